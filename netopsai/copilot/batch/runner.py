"""BatchChecker: every pair's check with bounded concurrency, results reported as they finish.

Threads by default: a real paths backend waits on the network, so threads overlap the waits
(backends are shared by concurrent tool calls anyway). The lab's simulated traceroute is pure
Python under its router's lock, so threads do not speed it up: big lab batches from the CLI
(processes=None) go to worker processes instead (forked where safe, else spawned; each opening
the same store), which do use more than one core. Every pair is traced in one lab state, read
when the run starts.

Workers (processes or Ray actors) also diagnose the failing pairs when every source the
diagnosis reads is the lab store the workers open (`remote_diagnosis`): each keeps its own
SharedEvidence for the chunks it gets (chunks are cut by destination, so a destination's
evidence is fetched once per worker), and the driver only merges rows. Otherwise failing pairs
come back as their trace and the driver diagnoses them with its backends. What runs in a worker,
and how workers start and stop, is workers.py's."""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.common.ray_cluster import RayOptions
from netopsai.copilot.batch import workers as worker_side
from netopsai.copilot.batch.check import PairResult, SharedEvidence, check_pair, diagnosed_result
from netopsai.copilot.batch.parse import Pair, pair_key
from netopsai.copilot.batch.ray_engine import run_batch
from netopsai.copilot.batch.snapshot import Pin, pin_of, pinned
from netopsai.copilot.batch.workers import (  # the worker side's names, as callers knew them here
    failed,
    open_backends,
    open_diagnosis,
    remote_diagnosis,
    sigint_ignored,
    start_method,
    stop_resource_tracker,
    store_url,
    trace_chunk,
)
from netopsai.copilot.evidence import Evidence

if TYPE_CHECKING:
    from netopsai.lab.forwarding import Router

PROCESS_MIN = 1000  # below this, spawning workers (~1 s each) costs more than it saves
CHUNK = (20, 250)  # pairs per process task: small enough for steady progress, big enough to amortise
OnResult = Callable[[PairResult], None]


class BatchChecker:
    def __init__(self, backends: Backends, concurrency: int = 8, processes: bool | None = False,
                 ray: RayOptions | None = None) -> None:
        """`processes`: False (the default) keeps threads; None picks worker processes for big
        batches on the lab; True forces them where the store can be opened again. Workers are
        spawned, which re-imports the caller's main module: only a main guarded by
        `if __name__ == "__main__"` may ask for them (the CLI does). `ray`: trace on Ray
        instead (ray_engine.py), whatever the batch's size."""
        if concurrency < 1:
            raise NetopsError(f"concurrency must be at least 1, not {concurrency}")
        self.backends, self.concurrency, self.processes = backends, concurrency, processes
        self.ray = ray
        self.shared = SharedEvidence(backends)

    def run(self, pairs: Iterable[Pair], on_result: OnResult | None = None,
            stop: threading.Event | None = None) -> list[PairResult]:
        """Check every pair; `on_result` sees each result as it finishes (in the calling thread),
        `stop` ends the run early. Returns the results in input order."""
        todo = list(pairs)
        results: list[PairResult] = []

        def done(r: PairResult) -> bool:
            results.append(r)
            if on_result is not None:
                on_result(r)
            return stop is not None and stop.is_set()

        if not todo:
            return []
        pin = pin_of(self.backends)  # one lab state for the whole batch, read once
        if self.ray is not None:
            ray_url = self._ray_url()
            run_batch(todo, self._chunk_taker(done), ray_url, pin, self.ray, stop, CHUNK,
                      self._remote_zone(ray_url))
            return sorted(results, key=lambda r: r.line)
        workers, url = self._workers(len(todo))
        if workers and url:
            self._run_processes(todo, done, workers, url, pin)
        else:
            self._run_threads(pinned(self.backends, pin), todo, done, stop)
        return sorted(results, key=lambda r: r.line)

    def _remote_zone(self, url: str) -> str | None:
        """The network's zone when the workers may diagnose (see remote_diagnosis), else None."""
        return self.backends.zone if remote_diagnosis(self.backends, url) else None

    def _ray_url(self) -> str:
        url = store_url(self.backends)
        if url is None:
            raise NetopsError("--engine ray traces on the lab's paths in a store its workers can "
                              "open (a file or a database), not in memory nor a real network's")
        return url

    def _workers(self, n: int) -> tuple[int, str | None]:
        if self.processes is False or (self.processes is None and n < PROCESS_MIN):
            return 0, None
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        workers = min(self.concurrency, cpus, math.ceil(n / CHUNK[0]))
        if workers < 2 and not self.processes:
            return 0, None
        return workers, store_url(self.backends)

    def _run_threads(self, backends: Backends, todo: list[Pair], done: Callable[[PairResult], bool],
                     stop: threading.Event | None) -> None:
        halt = stop or threading.Event()

        def one(pair: Pair) -> PairResult | None:
            if halt.is_set():
                return None
            try:
                return check_pair(backends, self.shared, pair)
            except Exception as exc:  # one pair's bug must not sink the batch
                return failed(pair, exc)

        if self.concurrency == 1:  # in the calling thread: no pool to pay for (or to hide from a profiler)
            for pair in todo:
                r = one(pair)
                if r is None or done(r):
                    return
            return
        pool = ThreadPoolExecutor(min(self.concurrency, len(todo)), "netopsai-batch")
        futures = [pool.submit(one, p) for p in todo]
        _drain(pool, futures, lambda r: r is not None and done(r))

    def _run_processes(self, todo: list[Pair], done: Callable[[PairResult], bool], workers: int,
                       url: str, pin: Pin | None) -> None:
        size = max(CHUNK[0], min(CHUNK[1], len(todo) // (workers * 8)))
        # chunks of neighbouring destinations: the lab memoises routes per destination and per
        # process, so each worker then builds about its share of them instead of all (~10% CPU)
        todo = sorted(todo, key=pair_key)
        method = start_method()
        worker_side.hand_over(self._routes(pin) if method == "fork" else None)
        pool = ProcessPoolExecutor(workers, mp_context=mp.get_context(method),
                                   initializer=worker_side.worker_init,
                                   initargs=(url, pin, self._remote_zone(url)))
        with sigint_ignored():  # the workers start on submit and inherit it from their first breath
            futures = [pool.submit(worker_side.worker_chunk, todo[i:i + size])
                       for i in range(0, len(todo), size)]
        try:
            _drain(pool, futures, self._chunk_taker(done))
        finally:
            stop_resource_tracker()

    def _routes(self, pin: Pin | None) -> Router | None:
        """The lab's routes at the pin, loaded here once for forked workers to inherit: each
        loaded them itself before (topology and state, ~0.2 s of CPU a worker, twice with
        the past moments its diagnoses trace)."""
        from netopsai.backends.lab.paths import LabPaths
        from netopsai.lab.forwarding import router_for

        paths = self.backends.paths
        if pin is None or type(paths) is not LabPaths:
            return None
        return router_for(paths.engine, pin.version, pin.clock)

    def _chunk_taker(self, done: Callable[[PairResult], bool]) -> Callable[[list[Any]], bool]:
        def chunk_done(items: list[tuple[Pair, PairResult | Evidence]]) -> bool:
            for pair, item in items:  # failing pairs come back as their trace, diagnosed here
                r = item if isinstance(item, PairResult) else self._diagnose(pair, item)
                if done(r):
                    return True
            return False
        return chunk_done

    def _diagnose(self, pair: Pair, ev: Evidence) -> PairResult:
        try:
            return diagnosed_result(pair, ev, self.shared)
        except Exception as exc:
            return failed(pair, exc)


def _drain(pool: Executor, futures: list[Future[Any]], take: Callable[[Any], bool]) -> None:
    """Hand each finished task to `take` until it says stop; on the way out (stop, Ctrl-C, an
    error) drop the queued tasks and wait only for the running ones."""
    try:
        for fut in as_completed(futures):
            if take(fut.result()):
                return
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["CHUNK", "PROCESS_MIN", "BatchChecker", "OnResult", "open_backends", "open_diagnosis",
           "remote_diagnosis", "start_method", "stop_resource_tracker", "store_url", "trace_chunk"]
