"""The batch's worker processes (runner.py starts them, ray_engine.py's actors reuse their parts):
how they start (forked or spawned, Ctrl-C left to the driver, the resource tracker stopped after),
what each opens (the store by URL, pinned to the batch's lab state; the driver's routes when
forked), and the chunk each traces — healthy pairs finished there, failing ones diagnosed there
when every source the diagnosis reads is the lab store they open (`remote_diagnosis`), else sent
back as their trace for the driver."""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from netopsai.backends.base import Backends
from netopsai.copilot.batch.check import (
    PairResult,
    SharedEvidence,
    diagnosed_result,
    needs_diagnosis,
    quick_result,
    trace,
)
from netopsai.copilot.batch.healthy import healthy_result
from netopsai.copilot.batch.parse import Pair
from netopsai.copilot.batch.snapshot import Pin, pinned
from netopsai.copilot.evidence import Evidence

if TYPE_CHECKING:
    from netopsai.lab.forwarding import Router


def start_method() -> str:
    """How worker processes start: forked on Linux when this process runs no other thread, so a
    worker begins with the driver's imports instead of re-importing the store, the lab and the
    diagnosis (spawn: ~0.6 s of CPU per worker before its first pair, a fifth of a 10,000-pair
    batch's worker CPU); spawned otherwise (a thread holding a lock at the fork would leave it
    held in the child; macOS cannot fork safely). A forked worker opens its own engine
    (worker_init): the driver's pooled connections are never used across the fork."""
    return "fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn"


def stop_resource_tracker() -> None:
    """Stop multiprocessing's resource tracker once our workers are gone: it is started with the
    first pool and would otherwise outlive the command in its process group (it leaves only
    when every holder of its pipe has, after the command's exit). The next pool starts another."""
    from multiprocessing import resource_tracker

    tracker = getattr(resource_tracker, "_resource_tracker", None)
    with contextlib.suppress(Exception):  # a private API: at worst the tracker ends on its own
        tracker._stop()  # type: ignore[union-attr]


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Ctrl-C reaches the whole process group: a worker still importing would die with a
    traceback. SIG_IGN survives exec, so workers spawned under it never see the signal; the
    parent, which handles Ctrl-C, gets its handler back at once. Only the main thread may."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def failed(pair: Pair, exc: Exception) -> PairResult:
    msg = f"internal error: {type(exc).__name__}: {exc}"
    return PairResult(pair.line, pair.src, pair.dst, False, 0, None, None, None, msg, [], msg)


def store_url(backends: Backends) -> str | None:
    """The lab store's URL when worker processes can open it too (not an in-memory database)."""
    from netopsai.backends.lab.paths import LabPaths

    paths = backends.paths
    if not isinstance(paths, LabPaths):
        return None
    url = paths.engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return None
    return url.render_as_string(hide_password=False)


# ---------------------------------------------------------------- worker processes

_BACKENDS: Backends | None = None
_SHARED: SharedEvidence | None = None
_HANDOVER: Router | None = None  # the driver's routes at the pin, inherited by forked workers


def hand_over(routes: Router | None) -> None:
    """The driver's routes at the pin (or None), for the workers it forks next to inherit."""
    global _HANDOVER
    _HANDOVER = routes


def remote_diagnosis(backends: Backends, url: str) -> bool:
    """Whether a worker that opens the store at `url` diagnoses as the driver would: every
    source the diagnosis reads is the lab's over that store (a configured telemetry or alarms
    source stays the driver's)."""
    from netopsai.backends.lab.paths import LabPaths
    from netopsai.backends.lab.telemetry import LabTelemetry
    from netopsai.store.events import StoreEvents
    from netopsai.store.inventory import StoreInventory

    kinds = ((backends.inventory, StoreInventory), (backends.telemetry, LabTelemetry),
             (backends.paths, LabPaths), (backends.changes, StoreEvents),
             (backends.alarms, StoreEvents))
    if not all(type(b) is kind for b, kind in kinds):
        return False
    engines = {getattr(b, "engine", None) for b, _ in kinds}
    return all(e is not None and e.url.render_as_string(hide_password=False) == url for e in engines)


def open_backends(url: str, pin: Pin | None) -> Backends:
    """A worker's backends (a process here, or a Ray actor): the store opened again by URL."""
    from netopsai.backends.lab import lab_backends
    from netopsai.store.engine import engine_for

    # workers only trace, and only ever for the lab's own paths (store_url): whatever backends
    # the configuration picks for the other sources, the parent keeps them for the diagnosis
    return pinned(lab_backends(engine_for(url)), pin)


def open_diagnosis(url: str, zone: str | None, pin: Pin | None = None) -> SharedEvidence | None:
    """A worker's own shared evidence for diagnosing failing pairs (None: the driver does),
    over the store frozen at the batch's pin (frozen.py: the lab's state read once, not per call)."""
    if zone is None:
        return None
    from dataclasses import replace

    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.batch.frozen import frozen
    from netopsai.store.engine import engine_for

    return SharedEvidence(frozen(replace(lab_backends(engine_for(url)), zone=zone), pin))


def worker_init(url: str, pin: Pin | None, zone: str | None = None) -> None:
    global _BACKENDS, _SHARED
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # the heap it starts with (the imports, the driver's objects when forked) lives as long as
    # the worker: kept out of the collector, whose full passes scanned it again and again while
    # the traces and diagnoses allocate (a third of a worker's CPU, bench/RESULTS.md
    # "batch-speed-2"). A worker's own objects are still collected; it ends with the batch.
    gc.freeze()
    from netopsai.store.engine import engine_for

    # forked: the driver's engines (and their pooled connections) came along; the worker opens
    # its own. The old ones stay referenced by the driver's frames, so none is closed here either
    engine_for.cache_clear()
    if _HANDOVER is not None:  # forked: the driver's routes, loaded from the same store
        from netopsai.lab.forwarding import hand_over

        hand_over(_HANDOVER)
    _BACKENDS = open_backends(url, pin)
    _SHARED = open_diagnosis(url, zone, pin)


def worker_chunk(chunk: list[Pair]) -> list[tuple[Pair, PairResult | Evidence]]:
    assert _BACKENDS is not None
    return trace_chunk(_BACKENDS, chunk, _SHARED)


def trace_chunk(backends: Backends, chunk: list[Pair],
                shared: SharedEvidence | None = None) -> list[tuple[Pair, PairResult | Evidence]]:
    """Trace each pair; healthy ones and errors come back finished, failing ones diagnosed with
    `shared`, or as their trace for the driver to diagnose when there is none."""
    out: list[tuple[Pair, PairResult | Evidence]] = []
    for pair in chunk:
        try:
            quick = healthy_result(backends, pair)  # most pairs: no Evidence to build
            if quick is not None:
                out.append((pair, quick))
                continue
            ev = trace(backends, pair)
            if ev.errors or not needs_diagnosis(ev):
                out.append((pair, quick_result(pair, ev)))
            elif shared is None:
                out.append((pair, ev))
            else:
                out.append((pair, diagnosed_result(pair, ev, shared)))
        except Exception as exc:
            out.append((pair, failed(pair, exc)))
    return out
