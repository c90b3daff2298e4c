"""The lab's paths pinned to one state for a whole batch (netopsai.batch) or a job's rail
traces (diagnosis/job_rails.py).

LabPaths reads the lab's facts (clock, state version) from the store on every trace: a quarter
of a warm trace's cost, paid 10,000 times by a big batch. A batch wants one consistent state
anyway (its alarms and changes are read once, for one window), so it reads the facts once and
traces every pair against them, through the same row builder as LabPaths (trace_row; a test
compares the two). Other backends are left alone."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths, trace_row
from netopsai.backends.rows import Trace
from netopsai.common.timewin import as_utc
from netopsai.lab.info import lab_info


@dataclass(frozen=True)
class Pin:
    """The state every pair of a batch is traced in."""

    version: str
    clock: datetime


class SnapshotPaths:
    def __init__(self, engine: Engine, pin: Pin) -> None:
        self.engine, self.pin = engine, pin
        self._live = LabPaths(engine)

    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Trace:
        if at is not None:  # a trace in the past is the live backend's business
            return self._live.traceroute(src, dst, size, at)
        return trace_row(self.engine, self.pin.version, self.pin.clock, src, dst, size)


def pin_of(backends: Backends) -> Pin | None:
    """The lab's current state, when the paths are the lab's; None for any other backend."""
    if type(backends.paths) is not LabPaths:
        return None
    info = lab_info(backends.paths.engine)
    return Pin(info.version, info.clock)


def pinned(backends: Backends, pin: Pin | None) -> Backends:
    if pin is None or type(backends.paths) is not LabPaths:
        return backends
    return replace(backends, paths=SnapshotPaths(backends.paths.engine, pin))


def pinned_now(paths: object, at: datetime | None) -> SnapshotPaths | None:
    """The lab's paths pinned to its current state, for traces at `at` (None: now); None for
    any other backend, or for a time in the lab's past (traced live)."""
    if type(paths) is not LabPaths:
        return None
    info = lab_info(paths.engine)
    if at is not None and as_utc(at) < as_utc(info.clock):
        return None
    return SnapshotPaths(paths.engine, Pin(info.version, info.clock))
