"""Telemetry from what the store holds (`netopsai poll`, ingest), nothing synthesised:
oper-status history from stored transitions, counters from stored 5-minute samples. A port with no
sample in the window has no counter row (it is still counted among the ports). The lab's backend
(netopsai.backends.lab.telemetry) is this one with synthesised counters."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, cast

from sqlalchemy import Engine, Select, func
from sqlalchemy import select as sa_select  # sqlmodel's select is typed for up to 4 columns
from sqlmodel import Session, col, select

from netopsai.backends.base import IfaceSel
from netopsai.backends.rows import PortCounters, PortStatus, figure
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import Window, as_utc
from netopsai.store import tables as m
from netopsai.store.figures import port_figures
from netopsai.store.inventory import canonical_role
from netopsai.store.retention import horizons, hour_end

INTERVAL_S = 300  # samples hold deltas over 5 minutes (models.CounterSample)
# ports x 5-minute samples one counter question may read (~40 MB per counter field): a year of
# a whole site is refused with what to narrow, instead of taking the machine's memory
MAX_CELLS = 5_000_000
FIRST_SEEN = "first seen"  # in an InterfaceEvent's reason: the state a poll first saw a port in
SINCE_ALWAYS = datetime.min.replace(tzinfo=UTC)

_Q = TypeVar("_Q", bound=Select[*tuple[Any, ...]])


def scoped(q: _Q, sel: IfaceSel, dev_col: Any) -> _Q:
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
        return scoped(q, sel, m.Interface.device)

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
            events = s.execute(scoped(q, sel, m.InterfaceEvent.device)
                               .order_by(col(ev.at))).all()
        per: dict[tuple[str, str], list[tuple[datetime, str]]] = {}
        for dev, ifn, at, state, reason in events:
            # a poll's first sight of a port is its state from the start, not a transition
            when = SINCE_ALWAYS if FIRST_SEEN in reason else as_utc(at)
            per.setdefault((dev, ifn), []).append((when, state))
        rows = [r for key, evs in per.items() if (r := _history(key, evs, window))]
        self._admin(rows, sel)
        rows.sort(key=lambda r: (-r["down_s"], -r["transitions"], r["device"], r["interface"]))
        return rows, total

    def _admin(self, rows: list[PortStatus], sel: IfaceSel) -> None:
        """Each row's admin state as the inventory (SNMP poll: ifAdminStatus; the lab: its
        model) holds it now: a port shut on purpose is counted apart from a failure. A port
        up at the window's end was admin up then, whatever the inventory says now."""
        if not rows:
            return
        q = select(m.Interface.device, m.Interface.name, m.Interface.admin_status)
        with Session(self.engine) as s:
            admin = {(d, n): a for d, n, a in s.exec(self._port_query(q, sel))}
        for r in rows:
            if (a := admin.get((r["device"], r["interface"]))) in ("up", "down"):
                r["admin_status"] = "up" if r["state_at_end"] == "up" else a

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]:
        with Session(self.engine) as s:
            ports = {(d, n): sp for d, n, sp in self._ports(s, sel)}
        parts = read_plan(window, *horizons(self.engine))
        with HEAVY.slot(len(ports), window, parts):
            return self._counters(ports, sel, window, metric, top, parts)

    def _counters(self, ports: dict[tuple[str, str], int], sel: IfaceSel, window: Window,
                  metric: str, top: int, parts: list[Part]) -> tuple[list[PortCounters], int, int]:
        per: dict[tuple[str, str], list[Bucket]] = {}
        for dev, ifn, bucket in self._buckets(sel, parts):
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

    def _buckets(self, sel: IfaceSel, parts: list[Part]) -> Iterator[tuple[str, str, Bucket]]:
        """Each port's figures, part by part in time order (netopsai.store.figures)."""
        def shape(q: Select[Any]) -> Select[Any]:
            table = q.get_final_froms()[0]
            if sel.get("interface"):
                q = q.where(table.c.interface == sel["interface"])
            return scoped(q, sel, table.c.device)

        with Session(self.engine) as s:
            for start, end, from_rollups in parts:
                for row in s.execute(port_figures(start, end, from_rollups, shape)).mappings():
                    yield row["device"], row["interface"], Bucket(
                        **{k: row[k] for k in Bucket.__dataclass_fields__})


Part = tuple[datetime, datetime, bool]  # (start, end], from hourly roll-ups?


def read_plan(window: Window, rolled: datetime | None, pruned: datetime | None) -> list[Part]:
    """Whole hours up to `rolled` from roll-ups, the window's edges from 5-minute samples.
    Where the samples are pruned (at or before `pruned`), the hour holding the window's start
    is read whole from its roll-up: hourly detail."""
    start, end = window.start, window.end
    if rolled is None:
        return [(start, end, False)]
    gone = pruned is not None and start < pruned
    first = start if gone else hour_end(start)
    last = min(end.replace(minute=0, second=0, microsecond=0), rolled)
    if gone and last <= first:
        last = min(hour_end(start), rolled)
    if last - first < timedelta(hours=1) and not gone:
        return [(start, end, False)]
    parts = [(start, first, False)] if first > start else []
    parts.append((first, last, True))
    return parts + ([(last, end, False)] if end > last else [])


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
    def slot(self, ports: int, window: Window, parts: list[Part] | None = None) -> Iterator[None]:
        """Check the budget; for a heavy read, hold a slot while it runs."""
        check_budget(ports, window, parts)
        if ports * _samples(window, parts) <= self.heavy_cells:
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


def _samples(window: Window, parts: list[Part] | None = None) -> int:
    """Figures per port the window reads: hourly from roll-ups, 5-minute from samples."""
    if not parts:
        return max(1, int(window.seconds // INTERVAL_S))
    return max(1, sum(int((b - a).total_seconds() // (3600 if hourly else INTERVAL_S))
                      for a, b, hourly in parts))


def check_budget(ports: int, window: Window, parts: list[Part] | None = None) -> None:
    """Refuse, saying what to narrow, a counter question larger than one answer reads at once."""
    samples = _samples(window, parts)
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
    """One port's figures over a stretch of a window (netopsai.store.figures): from samples or
    from roll-ups, so both give the same totals, peaks and averages. `io` is the larger of in
    and out octets in a 5-minute interval; `n` counts the 5-minute samples."""

    n: int
    errors: int
    crc: int
    disc: int
    io: int
    errors_max: int
    disc_max: int
    io_max: int
    errors_last: int
    disc_last: int
    io_last: int
    rx_min: float | None
    rx_sum: float
    rx_n: int
    rx_last: float | None


def _deltas(total: int, most: int, last: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"total": total, "max_per_5min": most, "last_5min": last, **(extra or {})}


def _errors(bs: list[Bucket], _speed: int) -> dict[str, Any]:
    return _deltas(sum(b.errors for b in bs), max(b.errors_max for b in bs), bs[-1].errors_last,
                   {"crc_total": sum(b.crc for b in bs)})


def _discards(bs: list[Bucket], _speed: int) -> dict[str, Any]:
    return _deltas(sum(b.disc for b in bs), max(b.disc_max for b in bs), bs[-1].disc_last)


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
