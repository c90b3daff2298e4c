"""The lab's RoCE counters for the telemetry tool (metrics pfc, ecn, retransmits): the
synthesised baseline of GPU-PoD ports (netopsai.lab.roce) under the active faults' symptoms."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.rows import PortCounters
from netopsai.common.roce import ROCE_METRICS
from netopsai.common.timewin import Window, as_utc
from netopsai.store import tables as m

CHUNK = 20000


def gpu_pod_devices(engine: Engine) -> set[str]:
    """Devices of the PoDs that hold GPU hosts: the ports that carry lossless RoCE traffic."""
    with Session(engine) as s:
        pods = select(m.Device.pod).where(m.Device.role == "gpu_host").distinct()
        return set(s.exec(select(m.Device.name).where(col(m.Device.pod).in_(pods))))


def roce_faults(engine: Engine, window: Window) -> list[tuple[datetime, datetime | None, dict[str, Any]]]:
    with Session(engine) as s:
        rows = s.exec(select(m.LabFault).where(col(m.LabFault.start) < window.end)).all()
    return [(as_utc(f.start), as_utc(f.end) if f.end else None, f.params["roce"])
            for f in rows if (f.params or {}).get("roce")
            and (f.end is None or as_utc(f.end) > window.start)]


def roce_counters(engine: Engine, ports: list[tuple[str, str, int]], window: Window, metric: str,
                  top: int, seed: int) -> tuple[list[PortCounters], int, int]:
    from netopsai.lab import counters, roce  # numpy: only counter questions pay for it

    times = counters.grid(window.start, window.end)
    gpu = gpu_pod_devices(engine)
    faults = roce_faults(engine, window)
    fields = ROCE_METRICS[metric].fields
    rows: list[dict[str, Any]] = []
    flagged = 0
    for i in range(0, len(ports), CHUNK):
        chunk = [(d, n) for d, n, _ in ports[i:i + CHUNK]]
        f = roce.baseline(seed, chunk, [d in gpu for d, _ in chunk], times, fields)
        roce.overlay(f, chunk, times, faults)
        part, hot = roce.aggregate(metric, f, chunk, top)
        flagged += hot
        rows = sorted(rows + part, key=lambda r: -r["total"])[:top]
    return [cast(PortCounters, r) for r in rows], len(ports), flagged
