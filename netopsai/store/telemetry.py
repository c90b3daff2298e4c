"""Telemetry from what the store holds (`netopsai poll`, ingest), nothing synthesised:
oper-status history from stored transitions, counters from stored 5-minute samples. A port with no
sample in the window has no counter row (it is still counted among the ports). The lab's backend
(netopsai.backends.lab.telemetry) is this one with synthesised counters."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from sqlalchemy import Engine, Select, func
from sqlalchemy import select as sa_select  # sqlmodel's select is typed for up to 4 columns
from sqlmodel import Session, col, select

from netopsai.backends.base import IfaceSel
from netopsai.backends.rows import PortCounters, PortStatus, figure
from netopsai.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.inventory import canonical_role
from netopsai.timewin import Window, as_utc

INTERVAL_S = 300  # samples hold deltas over 5 minutes (models.CounterSample)
# ports x 5-minute samples one counter question may read (~40 MB per counter field): a year of
# a whole site is refused with what to narrow, instead of taking the machine's memory
MAX_CELLS = 5_000_000
FIRST_SEEN = "first seen"  # in an InterfaceEvent's reason: the state a poll first saw a port in
SINCE_ALWAYS = datetime.min.replace(tzinfo=UTC)

_Q = TypeVar("_Q", bound=Select[*tuple[Any, ...]])


def _scope(q: _Q, sel: IfaceSel, dev_col: Any) -> _Q:
    """Restrict a query on interfaces/events to the selected devices."""
    if sel.get("devices"):
        return q.where(dev_col.in_(sel["devices"]))
    q = q.join(m.Device, col(m.Device.name) == dev_col)
    role = canonical_role(sel.get("role"))
    q = q.where(col(m.Device.role) == role) if role else q.where(col(m.Device.role) != "host")
    if sel.get("site"):
        q = q.where(col(m.Device.site) == sel["site"])
    if sel.get("pod"):
        q = q.where(col(m.Device.pod) == sel["pod"])
    return q


class StoreTelemetry:
    """Every stored interface is a port (a real inventory may not know the links behind them)."""

    LINKED_ONLY = False  # count only ports on a known link (the lab's ports)

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _port_query(self, q: _Q, sel: IfaceSel) -> _Q:
        if self.LINKED_ONLY:
            q = q.where(col(m.Interface.link_id).is_not(None))
        if sel.get("interface"):
            q = q.where(col(m.Interface.name) == sel["interface"])
        return _scope(q, sel, m.Interface.device)

    def _ports(self, s: Session, sel: IfaceSel) -> list[tuple[str, str, int]]:
        q = select(m.Interface.device, m.Interface.name, m.Interface.speed_mbps)
        return [(d, n, sp) for d, n, sp in s.exec(self._port_query(q, sel))]

    def _count_ports(self, s: Session, sel: IfaceSel) -> int:
        return s.exec(self._port_query(select(func.count()).select_from(m.Interface), sel)).one()

    def oper_status(self, sel: IfaceSel, window: Window) -> tuple[list[PortStatus], int]:
        with Session(self.engine) as s:
            total = self._count_ports(s, sel)
            ev = m.InterfaceEvent
            q = sa_select(col(ev.device), col(ev.interface), col(ev.at), col(ev.state),
                          col(ev.reason)).where(col(ev.at) <= window.end)
            if sel.get("interface"):
                q = q.where(col(ev.interface) == sel["interface"])
            events = s.execute(_scope(q, sel, m.InterfaceEvent.device)
                               .order_by(col(ev.at))).all()
        per: dict[tuple[str, str], list[tuple[datetime, str]]] = {}
        for dev, ifn, at, state, reason in events:
            # a poll's first sight of a port is its state from the start, not a transition
            when = SINCE_ALWAYS if FIRST_SEEN in reason else as_utc(at)
            per.setdefault((dev, ifn), []).append((when, state))
        rows = [r for key, evs in per.items() if (r := _history(key, evs, window))]
        rows.sort(key=lambda r: (-r["down_s"], -r["transitions"], r["device"], r["interface"]))
        return rows, total

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]:
        with Session(self.engine) as s:
            ports = {(d, n): sp for d, n, sp in self._ports(s, sel)}
        with HEAVY.slot(len(ports), window):
            return self._counters(ports, sel, window, metric, top)

    def _counters(self, ports: dict[tuple[str, str], int], sel: IfaceSel, window: Window,
                  metric: str, top: int) -> tuple[list[PortCounters], int, int]:
        with Session(self.engine) as s:
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
        rows: list[PortCounters] = []
        for (dev, ifn), smps in per.items():
            values = agg(smps, ports[(dev, ifn)])
            if values:
                rows.append(cast(PortCounters, {"device": dev, "interface": ifn, **values}))
        flagged = sum(1 for r in rows if hot(r))
        rows.sort(key=lambda r: (figure(r, first_key) if metric == "rx_power" else -figure(r, first_key),
                                 r["device"], r["interface"]))
        return rows[:top], len(ports), flagged



def _history(key: tuple[str, str], evs: list[tuple[datetime, str]], w: Window) -> PortStatus | None:
    state = "up"
    for at, st in evs:
        if at > w.start:
            break
        state = st
    start_state, cur, since, down, changes = state, state, w.start, 0.0, []
    for at, st in evs:
        if at <= w.start or at > w.end or st == cur:
            continue
        if cur == "down":
            down += (at - since).total_seconds()
        cur, since = st, at
        changes.append(f"{at:%Y-%m-%d %H:%M:%S} {st}")
    if cur == "down":
        down += (w.end - since).total_seconds()
    if not changes and start_state == "up":
        return None
    return {"device": key[0], "interface": key[1], "state_at_start": start_state,
            "transitions": len(changes), "flaps": sum(c.endswith("down") for c in changes),
            "down_s": round(down), "state_at_end": cur, "events": "; ".join(changes[:12])}


class HeavyGate:
    """Few large counter reads at once per process: `serve` and the Slack bot answer many
    people, and each large read holds up to MAX_CELLS samples in memory. A read over
    `heavy_cells` waits up to `wait_s` for one of `slots`, then is answered "busy" instead."""

    def __init__(self, slots: int = 2, heavy_cells: int = 500_000, wait_s: float = 60.0) -> None:
        self.slots, self.heavy_cells, self.wait_s = slots, heavy_cells, wait_s
        self._sem = threading.BoundedSemaphore(slots)

    @contextmanager
    def slot(self, ports: int, window: Window) -> Iterator[None]:
        """Check the budget; for a heavy read, hold a slot while it runs."""
        check_budget(ports, window)
        if ports * _samples(window) <= self.heavy_cells:
            yield
            return
        if not self._sem.acquire(timeout=self.wait_s):
            raise NetopsError(
                f"{self.slots} other large counter questions are being answered; try again in a "
                "minute, or narrow the window or the scope for a quicker answer")
        try:
            yield
        finally:
            self._sem.release()


HEAVY = HeavyGate()


def _samples(window: Window) -> int:
    return max(1, int(window.seconds // INTERVAL_S))


def check_budget(ports: int, window: Window) -> None:
    """Refuse, saying what to narrow, a counter question larger than one answer reads at once."""
    samples = _samples(window)
    if ports * samples <= MAX_CELLS:
        return
    most = MAX_CELLS // max(ports, 1) * INTERVAL_S
    raise NetopsError(
        f"{ports:,} ports over {_span(window.seconds)} ({samples:,} five-minute samples each) is more "
        f"than one question reads at once; narrow the window to at most {_span(most)} for these "
        "ports, or the scope to a site, a PoD or a few devices")


def _span(seconds: float) -> str:
    """7d, 36h, 45m: whole units, as the tools' windows are written."""
    hours = int(seconds) // 3600
    if hours >= 48:
        return f"{hours // 24:,}d"
    return f"{hours}h" if hours else f"{int(seconds) // 60}m"


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
_METRICS: dict[str, tuple[_Agg, str, Callable[[PortCounters], bool]]] = {
    "errors": (_errors, "total", lambda r: r["total"] > 0),
    "discards": (_discards, "total", lambda r: r["total"] > 0),
    "utilization": (_utilization, "max_pct", lambda r: r["max_pct"] >= 80),
    "rx_power": (_rx_power, "min_dbm", lambda r: r["min_dbm"] <= -10),
}


def from_config(engine: Engine, cfg: Any) -> StoreTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    return StoreTelemetry(engine)
