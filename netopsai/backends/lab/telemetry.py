"""Telemetry of the embedded lab: the store's (oper-status history from interface transitions)
over the lab's linked ports, and counters from the lab's synthesised baseline overlaid with stored
samples (fault symptoms or real polls)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.base import IfaceSel
from netopsai.backends.rows import PortCounters, figure
from netopsai.common.roce import ROCE_METRICS
from netopsai.common.timewin import Window, as_utc
from netopsai.lab.info import lab_info
from netopsai.store import tables as m
from netopsai.store.telemetry import HEAVY, StoreTelemetry, scoped

if TYPE_CHECKING:
    import numpy as np

CHUNK = 20000


class LabTelemetry(StoreTelemetry):
    LINKED_ONLY = True
    ROCE = True  # answers the RoCE metrics (netopsai.lab.roce) besides the store's

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]:
        """Per-interface aggregates of a counter metric: the top rows, the interface count and
        how many interfaces show anything (errors/discards above zero, util above 80%)."""
        seed = lab_info(self.engine).seed
        with Session(self.engine) as s:
            ports = self._ports(s, sel)
        with HEAVY.slot(len(ports), window):  # before the grid: a year-1 window is 600M times
            if metric in ROCE_METRICS:
                from netopsai.backends.lab.roce import roce_counters

                return roce_counters(self.engine, ports, window, metric, top, seed)
            return self._lab_counters(ports, sel, window, metric, top, seed)

    def _lab_counters(self, ports: list[tuple[str, str, int]], sel: IfaceSel, window: Window,
                      metric: str, top: int, seed: int) -> tuple[list[PortCounters], int, int]:
        from netopsai.lab import counters  # numpy: only counter questions pay for it

        times = counters.grid(window.start, window.end)
        with Session(self.engine) as s:
            q = select(m.CounterSample).where(col(m.CounterSample.at) > window.start,
                                              col(m.CounterSample.at) <= window.end)
            stored = list(s.exec(scoped(q, sel, m.CounterSample.device)))
        overlay: dict[tuple[str, str], dict[datetime, m.CounterSample]] = {}
        for smp in stored:
            overlay.setdefault((smp.device, smp.interface), {})[as_utc(smp.at)] = smp
        rows: list[PortCounters] = []
        flagged = 0
        for i in range(0, len(ports), CHUNK):
            chunk = ports[i:i + CHUNK]
            f = counters.baseline(seed, [(d, n) for d, n, _ in chunk], [sp for *_, sp in chunk], times,
                                  counters.METRIC_FIELDS[metric])
            _overlay(f, chunk, times, overlay)
            part, hot = _aggregate(metric, f, chunk, top)
            flagged += hot
            rows = _top(rows + part, metric, top)
        return rows, len(ports), flagged


def _overlay(f: dict[str, np.ndarray], chunk: list[tuple[str, str, int]], times: list[datetime],
             overlay: dict[tuple[str, str], dict[datetime, m.CounterSample]]) -> None:
    if not overlay:
        return
    col = {t: j for j, t in enumerate(times)}
    for i, (d, n, _) in enumerate(chunk):
        for at, smp in overlay.get((d, n), {}).items():
            j = col.get(at)
            if j is None:
                continue
            for field in f:  # the metric's fields only
                val = getattr(smp, field)
                if val is not None:
                    f[field][i, j] = val


def _aggregate(metric: str, f: dict[str, np.ndarray], chunk: list[tuple[str, str, int]],
               top: int) -> tuple[list[PortCounters], int]:
    if next(iter(f.values())).shape[1] == 0:
        return [], 0
    if metric == "utilization":
        from netopsai.lab.counters import utilization_pct

        v = utilization_pct(f["in_octets"], f["out_octets"], [sp for *_, sp in chunk])
        agg = {"max_pct": v.max(1), "avg_pct": v.mean(1), "last_pct": v[:, -1]}
        hot = agg["max_pct"] >= 80
    elif metric == "rx_power":
        v = f["rx_power_dbm"]
        agg = {"min_dbm": v.min(1), "avg_dbm": v.mean(1), "last_dbm": v[:, -1]}
        hot = agg["min_dbm"] <= -10
    else:
        v = f["in_errors"] if metric == "errors" else f["in_discards"] + f["out_discards"]
        agg = {"total": v.sum(1), "max_per_5min": v.max(1), "last_5min": v[:, -1]}
        if metric == "errors":
            agg["crc_total"] = f["crc_errors"].sum(1)
        hot = agg["total"] > 0
    key = next(iter(agg))
    import numpy as np

    order = np.argsort(agg[key]) if metric == "rx_power" else np.argsort(-agg[key])
    rows = [cast(PortCounters, {"device": chunk[i][0], "interface": chunk[i][1],
                                **{k: round(float(a[i]), 2) for k, a in agg.items()}})
            for i in order[:top]]
    return rows, int(hot.sum())


def _top(rows: list[PortCounters], metric: str, top: int) -> list[PortCounters]:
    key = next(k for k in rows[0] if k not in ("device", "interface")) if rows else ""
    return sorted(rows, key=lambda r: figure(r, key), reverse=metric != "rx_power")[:top]


def from_config(engine: Engine, cfg: Any) -> LabTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    return LabTelemetry(engine)
