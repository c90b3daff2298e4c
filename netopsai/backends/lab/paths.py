"""Paths from the lab's forwarding model (a simulated traceroute)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Engine

from netopsai.backends.rows import Hop, Trace
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import as_utc
from netopsai.lab.forwarding import router_for
from netopsai.lab.info import lab_info
from netopsai.lab.trace import TraceError, trace


class LabPaths:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Trace:
        info = lab_info(self.engine)
        when = as_utc(at) if at else info.clock
        if when > info.clock:
            raise NetopsError(f"'at' {when:%Y-%m-%dT%H:%M:%SZ} is after the lab clock "
                              f"{info.clock:%Y-%m-%dT%H:%M:%SZ}")
        return trace_row(self.engine, info.version, when, src, dst, size)


def trace_row(engine: Engine, version: str, when: datetime, src: str, dst: str, size: int) -> Trace:
    """A trace in the lab state of `version` at `when`, as the Paths protocol returns it."""
    router = router_for(engine, version, when)
    try:
        t = trace(router, src, dst, size)
    except TraceError as exc:
        raise NetopsError(str(exc)) from None
    return {"hops": [cast(Hop, h.row()) for h in t.hops], "reached": t.reached,
            "stopped_at": t.stopped_at, "reason": t.reason, "ecmp_paths": t.ecmp_paths,
            "good_paths": t.good_paths, "path_devices": t.path_devices,
            "ecmp_devices": t.ecmp_devices, "at": when,
            "failing": ({"device": t.failure[0], "interface": t.failure[1], "reason": t.failure[2]}
                        if t.failure else None)}


def from_config(engine: Engine, cfg: Any) -> LabPaths:
    """The backend registry's builder (netopsai.backends.registry)."""
    return LabPaths(engine)
