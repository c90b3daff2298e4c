"""Telemetry from the store: oper-status history from interface transitions, and counters from
the lab's synthesised baseline overlaid with stored samples (fault symptoms or real polls)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy import Engine, Select, func
from sqlalchemy import select as sa_select  # sqlmodel's select is typed for up to 4 columns
from sqlmodel import Session, col, select

from netopsai.backends.base import IfaceSel, Row
from netopsai.lab.manage import lab_info
from netopsai.store import tables as m
from netopsai.store.inventory import canonical_role
from netopsai.timewin import Window, as_utc

if TYPE_CHECKING:
    import numpy as np

CHUNK = 20000
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


class LabTelemetry:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _ports(self, s: Session, sel: IfaceSel) -> list[tuple[str, str, int]]:
        q = select(m.Interface.device, m.Interface.name, m.Interface.speed_mbps).where(
            col(m.Interface.link_id).is_not(None))
        if sel.get("interface"):
            q = q.where(m.Interface.name == sel["interface"])
        return [(d, n, sp) for d, n, sp in s.exec(_scope(q, sel, m.Interface.device))]

    def _count_ports(self, s: Session, sel: IfaceSel) -> int:
        q = select(func.count()).select_from(m.Interface).where(col(m.Interface.link_id).is_not(None))
        if sel.get("interface"):
            q = q.where(m.Interface.name == sel["interface"])
        return s.exec(_scope(q, sel, m.Interface.device)).one()

    def oper_status(self, sel: IfaceSel, window: Window) -> tuple[list[Row], int]:
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
                 top: int = 20) -> tuple[list[Row], int, int]:
        """Per-interface aggregates of a counter metric: the top rows, the interface count and
        how many interfaces show anything (errors/discards above zero, util above 80%)."""
        seed = lab_info(self.engine).seed
        from netopsai.lab import counters  # numpy: only counter questions pay for it

        times = counters.grid(window.start, window.end)
        with Session(self.engine) as s:
            ports = self._ports(s, sel)
            q = select(m.CounterSample).where(col(m.CounterSample.at) > window.start,
                                              col(m.CounterSample.at) <= window.end)
            stored = list(s.exec(_scope(q, sel, m.CounterSample.device)))
        overlay: dict[tuple[str, str], dict[datetime, m.CounterSample]] = {}
        for smp in stored:
            overlay.setdefault((smp.device, smp.interface), {})[as_utc(smp.at)] = smp
        rows: list[Row] = []
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


def _history(key: tuple[str, str], evs: list[tuple[datetime, str]], w: Window) -> Row | None:
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
               top: int) -> tuple[list[Row], int]:
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
    rows = [{"device": chunk[i][0], "interface": chunk[i][1],
             **{k: round(float(a[i]), 2) for k, a in agg.items()}} for i in order[:top]]
    return rows, int(hot.sum())


def _top(rows: list[Row], metric: str, top: int) -> list[Row]:
    key = next(k for k in rows[0] if k not in ("device", "interface")) if rows else ""
    return sorted(rows, key=lambda r: r[key], reverse=metric != "rx_power")[:top]


def from_config(engine: Engine, cfg: Any) -> LabTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    return LabTelemetry(engine)
