"""The lab's paths pinned to one state for a whole batch.

LabPaths reads the lab's facts (clock, state version) from the store on every trace: a quarter
of a warm trace's cost, paid 10,000 times by a big batch. A batch wants one consistent state
anyway (its alarms and changes are read once, for one window), so it reads the facts once and
traces every pair against them. The row is LabPaths.traceroute's, field for field (a test
compares the two); other backends are left alone."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine

from netopsai.backends.base import Backends, Row
from netopsai.backends.lab_paths import LabPaths
from netopsai.errors import NetopsError
from netopsai.lab.forwarding import router_for
from netopsai.lab.manage import lab_info
from netopsai.lab.trace import TraceError, trace


@dataclass(frozen=True)
class Pin:
    """The state every pair of a batch is traced in."""

    version: str
    clock: datetime


class SnapshotPaths:
    def __init__(self, engine: Engine, pin: Pin) -> None:
        self.engine, self.pin = engine, pin
        self._live = LabPaths(engine)

    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Row:
        if at is not None:  # a trace in the past is the live backend's business
            return self._live.traceroute(src, dst, size, at)
        router = router_for(self.engine, self.pin.version, self.pin.clock)
        try:
            t = trace(router, src, dst, size)
        except TraceError as exc:
            raise NetopsError(str(exc)) from None
        return {"hops": [h.row() for h in t.hops], "reached": t.reached,
                "stopped_at": t.stopped_at, "reason": t.reason, "ecmp_paths": t.ecmp_paths,
                "good_paths": t.good_paths, "path_devices": t.path_devices,
                "ecmp_devices": t.ecmp_devices, "at": self.pin.clock,
                "failing": ({"device": t.failure[0], "interface": t.failure[1],
                             "reason": t.failure[2]} if t.failure else None)}


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
