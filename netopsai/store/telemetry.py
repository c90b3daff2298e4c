"""Telemetry from what the store holds (`netopsai poll`, ingest), nothing synthesised:
oper-status history from stored transitions, counters from stored 5-minute samples. A port with no
sample in the window has no counter row (it is still counted among the ports). The lab's backend
(netopsai.backends.lab.telemetry) is this one with synthesised counters."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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
from netopsai.store.retention import rolled_through
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
        rolled = rolled_through(self.engine)
        with HEAVY.slot(len(ports), window, rolled):
            return self._counters(ports, sel, window, metric, top, rolled)

    def _counters(self, ports: dict[tuple[str, str], int], sel: IfaceSel, window: Window,
                  metric: str, top: int, rolled: datetime | None
                  ) -> tuple[list[PortCounters], int, int]:
        per: dict[tuple[str, str], list[Bucket]] = {}
        for dev, ifn, bucket in self._buckets(sel, window, rolled):
            if (dev, ifn) in ports:
                per.setdefault((dev, ifn), []).append(bucket)
        agg, first_key, hot = _METRICS[metric]
        rows: list[PortCounters] = []
        for (dev, ifn), buckets in per.items():
            values = agg(buckets, ports[(dev, ifn)])
            if values:
                rows.append(cast(PortCounters, {"device": dev, "interface": ifn, **values}))
        flagged = sum(1 for r in rows if hot(r))
        rows.sort(key=lambda r: (figure(r, first_key) if metric == "rx_power" else -figure(r, first_key),
                                 r["device"], r["interface"]))
        return rows[:top], len(ports), flagged

    def _buckets(self, sel: IfaceSel, window: Window, rolled: datetime | None
                 ) -> Iterator[tuple[str, str, Bucket]]:
        """Hourly roll-ups up to the retention horizon, 5-minute samples after it, oldest first."""
        with Session(self.engine) as s:
            if rolled is not None and window.start < rolled:
                r = m.CounterRollup
                q = select(r).where(col(r.at) > window.start, col(r.at) <= min(window.end, rolled))
                if sel.get("interface"):
                    q = q.where(r.interface == sel["interface"])
                for roll in s.exec(_scope(q, sel, r.device).order_by(col(r.at))):
                    yield roll.device, roll.interface, Bucket.of_rollup(roll)
            start = max(window.start, rolled) if rolled is not None else window.start
            c = m.CounterSample
            q2 = select(c).where(col(c.at) > start, col(c.at) <= window.end)
            if sel.get("interface"):
                q2 = q2.where(c.interface == sel["interface"])
            for smp in s.exec(_scope(q2, sel, c.device).order_by(col(c.at))):
                yield smp.device, smp.interface, Bucket.of_sample(smp)


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
    def slot(self, ports: int, window: Window, rolled: datetime | None = None) -> Iterator[None]:
        """Check the budget; for a heavy read, hold a slot while it runs."""
        check_budget(ports, window, rolled)
        if ports * _samples(window, rolled) <= self.heavy_cells:
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


def _samples(window: Window, rolled: datetime | None = None) -> int:
    """Figures per port the window reads: hourly up to the roll-up horizon, 5-minute after it."""
    if rolled is None or window.start >= rolled:
        return max(1, int(window.seconds // INTERVAL_S))
    hourly = (min(window.end, rolled) - window.start).total_seconds()
    return max(1, int(hourly // 3600 + (window.seconds - hourly) // INTERVAL_S))


def check_budget(ports: int, window: Window, rolled: datetime | None = None) -> None:
    """Refuse, saying what to narrow, a counter question larger than one answer reads at once."""
    samples = _samples(window, rolled)
    if ports * samples <= MAX_CELLS:
        return
    most = MAX_CELLS // max(ports, 1) * INTERVAL_S
    raise NetopsError(
        f"{ports:,} ports over {_span(window.seconds)} ({samples:,} samples each) is more "
        f"than one question reads at once; narrow the window to at most {_span(most)} for these "
        "ports, or the scope to a site, a PoD or a few devices")


def _span(seconds: float) -> str:
    """7d, 36h, 45m: whole units, as the tools' windows are written."""
    hours = int(seconds) // 3600
    if hours >= 48:
        return f"{hours // 24:,}d"
    return f"{hours}h" if hours else f"{int(seconds) // 60}m"


@dataclass(frozen=True, slots=True)
class Bucket:
    """What the aggregates need of a stretch of one port's counters: a 5-minute sample (n=1)
    or an hourly roll-up, so both give the same totals, peaks and averages. `io` is the larger of
    in and out octets in a 5-minute interval."""

    n: int
    errors: int
    crc: int
    discards: int
    io: int
    errors_max: int
    discards_max: int
    io_max: int
    errors_last: int
    discards_last: int
    io_last: int
    rx_min: float | None
    rx_sum: float
    rx_n: int
    rx_last: float | None

    @classmethod
    def of_sample(cls, x: m.CounterSample) -> Bucket:
        disc, io, rx = x.in_discards + x.out_discards, max(x.in_octets, x.out_octets), x.rx_power_dbm
        return cls(1, x.in_errors, x.crc_errors, disc, io, x.in_errors, disc, io, x.in_errors,
                   disc, io, rx, rx or 0.0, int(rx is not None), rx)

    @classmethod
    def of_rollup(cls, r: m.CounterRollup) -> Bucket:
        return cls(r.samples, r.in_errors, r.crc_errors, r.discards, r.io_sum, r.errors_max,
                   r.discards_max, r.io_max, r.errors_last, r.discards_last, r.io_last,
                   r.rx_min, r.rx_sum, r.rx_samples, r.rx_last)


def _deltas(total: int, most: int, last: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"total": total, "max_per_5min": most, "last_5min": last, **(extra or {})}


def _errors(bs: list[Bucket], _speed: int) -> dict[str, Any]:
    return _deltas(sum(b.errors for b in bs), max(b.errors_max for b in bs), bs[-1].errors_last,
                   {"crc_total": sum(b.crc for b in bs)})


def _discards(bs: list[Bucket], _speed: int) -> dict[str, Any]:
    return _deltas(sum(b.discards for b in bs), max(b.discards_max for b in bs),
                   bs[-1].discards_last)


def _utilization(bs: list[Bucket], speed: int) -> dict[str, Any]:
    if speed <= 0:  # an unknown line rate gives no percentage
        return {}

    def pct(octets: float) -> float:
        return octets * 8 / INTERVAL_S / (speed * 1e6) * 100

    n = sum(b.n for b in bs)
    return {"max_pct": round(pct(max(b.io_max for b in bs)), 2),
            "avg_pct": round(pct(sum(b.io for b in bs) / n), 2), "last_pct": round(pct(bs[-1].io_last), 2)}


def _rx_power(bs: list[Bucket], _speed: int) -> dict[str, Any]:
    seen = [b for b in bs if b.rx_n]
    if not seen:
        return {}
    return {"min_dbm": min(b.rx_min for b in seen if b.rx_min is not None),
            "avg_dbm": round(sum(b.rx_sum for b in seen) / sum(b.rx_n for b in seen), 2),
            "last_dbm": seen[-1].rx_last}


_Agg = Callable[[list[Bucket], int], dict[str, Any]]
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
