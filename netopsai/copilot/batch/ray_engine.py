"""Batch checks on Ray (`netopsai batch --engine ray [--address HOST:PORT]`).

The work is the worker processes' (workers.py): actors, each opening the store by URL once and
keeping its backends and the lab's route memo between chunks (opening and routing are the cost
a task per chunk would pay again each time), trace chunks of neighbouring destinations and
diagnose their failing pairs with evidence shared per actor (workers.remote_diagnosis: when the
diagnosis reads only the lab store; else the driver diagnoses them), so the driver only merges
rows, the same as the local engine's. The cluster itself: netopsai.common.ray_cluster."""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from netopsai.common.errors import NetopsError
from netopsai.common.ray_cluster import RayOptions, ray_cluster, worker_count
from netopsai.copilot.batch.parse import Pair, pair_key
from netopsai.copilot.batch.snapshot import Pin

IN_FLIGHT = 2  # chunks queued per actor: the next one is ready when a chunk finishes
WAIT_S = 0.5  # the driver wakes this often, so Ctrl-C is handled while the cluster works

# ---------------------------------------------------------------- batch checks

Take = Callable[[list[Any]], bool]


class Tracer:
    """One Ray actor: the store opened once, pinned to the batch's lab state."""

    def __init__(self, url: str, pin: Pin | None, zone: str | None = None) -> None:
        from netopsai.copilot.batch.workers import open_backends, open_diagnosis

        self.backends = open_backends(url, pin)
        self.shared = open_diagnosis(url, zone, pin)  # None: failing pairs go back as their trace

    def trace(self, chunk: list[Pair]) -> list[Any]:
        from netopsai.copilot.batch.workers import trace_chunk

        return trace_chunk(self.backends, chunk, self.shared)


def run_batch(todo: list[Pair], take: Take, url: str, pin: Pin | None, opts: RayOptions,
              stop: threading.Event | None, sizes: tuple[int, int], zone: str | None = None) -> None:
    """Trace `todo` on Ray, handing each finished chunk to `take` until it says stop; `zone`
    (not None) has the actors diagnose failing pairs too."""
    with ray_cluster(opts) as cpus:
        import ray

        workers = worker_count(opts, cpus, math.ceil(len(todo) / sizes[0]))
        size = max(sizes[0], min(sizes[1], len(todo) // (workers * 8)))
        # neighbouring destinations together: each actor memoises the routes it builds
        todo = sorted(todo, key=pair_key)
        chunks = deque(todo[i:i + size] for i in range(0, len(todo), size))
        actor = ray.remote(num_cpus=1)(Tracer)
        actors = [actor.remote(url, pin, zone) for _ in range(workers)]
        _feed(ray, actors, chunks, take, stop or threading.Event())


def _feed(ray: Any, actors: list[Any], chunks: deque[list[Pair]], take: Take,
          stop: threading.Event) -> None:
    """Keep every actor IN_FLIGHT chunks deep; results are taken in the order they finish."""
    running: dict[Any, Any] = {}

    def submit(actor: Any) -> None:
        if chunks and not stop.is_set():
            running[actor.trace.remote(chunks.popleft())] = actor

    for actor in actors:
        for _ in range(IN_FLIGHT):
            submit(actor)
    while running:
        ready, _ = ray.wait(list(running), num_returns=1, timeout=WAIT_S)
        if not ready:
            continue
        actor = running.pop(ready[0])
        if take(_result(ray, ready[0])):
            return
        submit(actor)


def _result(ray: Any, ref: Any) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayActorError as exc:  # the store could not be opened there
        cause = getattr(exc, "cause", None) or exc
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[-1]
        raise NetopsError(f"a Ray worker could not open the store: {first[:300]}") from None
