"""Telemetry from what was measured and stored (`netopsai poll`, ingest), nothing synthesised:
oper-status history from stored transitions, counters from stored 5-minute samples. A port with no
sample in the window has no counter row (it is still counted among the ports)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from netopsai.backends.base import IfaceSel, Row
from netopsai.backends.lab.telemetry import LabTelemetry, _scope
from netopsai.store import tables as m
from netopsai.timewin import Window

INTERVAL_S = 300  # samples hold deltas over 5 minutes (models.CounterSample)


class StoreTelemetry(LabTelemetry):
    """Every stored interface is a port (a real inventory may not know the links behind them)."""

    def _ports(self, s: Session, sel: IfaceSel) -> list[tuple[str, str, int]]:
        q = select(m.Interface.device, m.Interface.name, m.Interface.speed_mbps)
        if sel.get("interface"):
            q = q.where(m.Interface.name == sel["interface"])
        return [(d, n, sp) for d, n, sp in s.exec(_scope(q, sel, m.Interface.device))]

    def _count_ports(self, s: Session, sel: IfaceSel) -> int:
        q = select(func.count()).select_from(m.Interface)
        if sel.get("interface"):
            q = q.where(m.Interface.name == sel["interface"])
        return s.exec(_scope(q, sel, m.Interface.device)).one()

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[Row], int, int]:
        with Session(self.engine) as s:
            ports = {(d, n): sp for d, n, sp in self._ports(s, sel)}
            q = select(m.CounterSample).where(col(m.CounterSample.at) > window.start,
                                              col(m.CounterSample.at) <= window.end)
            if sel.get("interface"):
                q = q.where(m.CounterSample.interface == sel["interface"])
            samples = list(s.exec(_scope(q, sel, m.CounterSample.device)
                                  .order_by(col(m.CounterSample.at))))
        per: dict[tuple[str, str], list[m.CounterSample]] = {}
        for smp in samples:
            if (smp.device, smp.interface) in ports:
                per.setdefault((smp.device, smp.interface), []).append(smp)
        agg, first_key, hot = _METRICS[metric]
        rows = []
        for (dev, ifn), smps in per.items():
            values = agg(smps, ports[(dev, ifn)])
            if values:
                rows.append({"device": dev, "interface": ifn, **values})
        flagged = sum(1 for r in rows if hot(r))
        rows.sort(key=lambda r: (r[first_key] if metric == "rx_power" else -r[first_key],
                                 r["device"], r["interface"]))
        return rows[:top], len(ports), flagged


def _deltas(values: list[int], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"total": sum(values), "max_per_5min": max(values), "last_5min": values[-1], **(extra or {})}


def _errors(smps: list[m.CounterSample], _speed: int) -> dict[str, Any]:
    return _deltas([x.in_errors for x in smps], {"crc_total": sum(x.crc_errors for x in smps)})


def _discards(smps: list[m.CounterSample], _speed: int) -> dict[str, Any]:
    return _deltas([x.in_discards + x.out_discards for x in smps])


def _utilization(smps: list[m.CounterSample], speed: int) -> dict[str, Any]:
    if speed <= 0:  # an unknown line rate gives no percentage
        return {}
    pct = [max(x.in_octets, x.out_octets) * 8 / INTERVAL_S / (speed * 1e6) * 100 for x in smps]
    return {"max_pct": round(max(pct), 2), "avg_pct": round(sum(pct) / len(pct), 2),
            "last_pct": round(pct[-1], 2)}


def _rx_power(smps: list[m.CounterSample], _speed: int) -> dict[str, Any]:
    dbm = [x.rx_power_dbm for x in smps if x.rx_power_dbm is not None]
    if not dbm:
        return {}
    return {"min_dbm": min(dbm), "avg_dbm": round(sum(dbm) / len(dbm), 2), "last_dbm": dbm[-1]}


_Agg = Callable[[list[m.CounterSample], int], dict[str, Any]]
# metric -> (aggregate, the key rows are ranked by, whether a row is flagged) as the lab does
_METRICS: dict[str, tuple[_Agg, str, Callable[[Row], bool]]] = {
    "errors": (_errors, "total", lambda r: r["total"] > 0),
    "discards": (_discards, "total", lambda r: r["total"] > 0),
    "utilization": (_utilization, "max_pct", lambda r: r["max_pct"] >= 80),
    "rx_power": (_rx_power, "min_dbm", lambda r: r["min_dbm"] <= -10),
}


def from_config(engine: Engine, cfg: Any) -> StoreTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    return StoreTelemetry(engine)
