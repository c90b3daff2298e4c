"""What the reliability report reads from the store, in a handful of queries: the window's alarms
(through the alarms reader, so rows look as the alarms tool's do), the acknowledgements of those
alarms, the changes and port transitions in the window, the unreachable probes of recorded batch
runs (store/probes.py), and where each device sits."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, or_, select

from netopsai.common.timewin import Window, as_utc
from netopsai.store import acks as ack_store
from netopsai.store import tables as m
from netopsai.store.events import StoreEvents
from netopsai.store.probes import Outage, unreachable

ACK_ACTIONS = ("ack", "silence")  # a silence is an acknowledgement too (store/acks.py)


@dataclass
class History:
    """The rows one report is computed from; times are aware UTC datetimes."""

    window: Window
    alarms: list[dict[str, Any]] = field(default_factory=list)
    acks: dict[int, datetime] = field(default_factory=dict)  # alarm id -> first ack or silence
    changes: list[dict[str, Any]] = field(default_factory=list)
    transitions: list[tuple[str, str, datetime]] = field(default_factory=list)  # device, port, at
    lossy: list[tuple[str, str, datetime]] = field(default_factory=list)  # device, port, sample end
    places: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # device -> site, pod
    regions: dict[str, str] = field(default_factory=dict)  # site -> region (the zone)
    pods: dict[str, str] = field(default_factory=dict)  # pod -> site
    links: dict[int, str] = field(default_factory=dict)  # link id -> "a:if — b:if"
    outages: list[Outage] = field(default_factory=list)  # unreachable probes reaching the window


def _utc(t: Any) -> datetime | None:
    if t is None:
        return None
    return as_utc(t if isinstance(t, datetime) else datetime.fromisoformat(str(t).replace("Z", "+00:00")))


def read_history(engine: Engine, window: Window, loss_per_5min: int | None = None) -> History:
    """`loss_per_5min`: read the 5-minute samples losing at least that many packets."""
    h = History(window=window)
    for row in StoreEvents(engine).alarms(None, "any", None, None, window):
        a = dict(row)
        a["raised_at"], a["cleared_at"] = _utc(a["raised_at"]), _utc(a.get("cleared_at"))
        h.alarms.append(a)
    ack_store.ensure_table(engine)
    h.outages = unreachable(engine, window)
    with Session(engine) as s:
        _read_acks(s, h)
        _read_changes(s, h)
        ev = m.InterfaceEvent
        q = select(ev.device, ev.interface, ev.at).where(col(ev.at) >= window.start,
                                                         col(ev.at) <= window.end)
        h.transitions = [(d, i, as_utc(t)) for d, i, t in s.exec(q)]
        if loss_per_5min is not None:
            h.lossy = _read_lossy(s, window, loss_per_5min)
        h.places = {n: (site, pod) for n, site, pod in s.exec(
            select(m.Device.name, m.Device.site, m.Device.pod).where(m.Device.role != "host"))}
        h.regions = {n: r or n for n, r in s.exec(select(m.Site.name, m.Site.region))}
        h.pods = {n: site for n, site in s.exec(select(m.Pod.name, m.Pod.site))}
        ids = {a["link_id"] for a in h.alarms if a.get("link_id")}
        for lk in s.exec(select(m.Link).where(col(m.Link.id).in_(ids))) if ids else []:
            h.links[int(lk.id or 0)] = f"{lk.a_device}:{lk.a_interface} — {lk.b_device}:{lk.b_interface}"
    return h


def _read_acks(s: Session, h: History) -> None:
    ids = [a["id"] for a in h.alarms if a.get("id") is not None]
    ack = m.AlarmAck
    for i in range(0, len(ids), 500):  # SQLite's bound-parameter limit
        q = select(ack.alarm_id, ack.at).where(col(ack.alarm_id).in_(ids[i:i + 500]),
                                               col(ack.action).in_(ACK_ACTIONS))
        for alarm_id, at in s.exec(q):
            t = as_utc(at)
            if alarm_id not in h.acks or t < h.acks[alarm_id]:
                h.acks[alarm_id] = t


def _read_changes(s: Session, h: History) -> None:
    c = m.Change
    q = select(c).where(col(c.start) <= h.window.end,
                        or_(col(c.end).is_(None), col(c.end) >= h.window.start))
    h.changes = [{"ticket": r.ticket, "device": r.device, "start": as_utc(r.start),
                  "end": _utc(r.end), "summary": r.summary} for r in s.exec(q)]


def _read_lossy(s: Session, window: Window, least: int) -> list[tuple[str, str, datetime]]:
    c = m.CounterSample
    lost = col(c.in_errors) + col(c.in_discards) + col(c.out_discards)
    q = select(c.device, c.interface, c.at).where(col(c.at) > window.start, col(c.at) <= window.end,
                                                  lost >= least)
    return [(d, i, as_utc(t)) for d, i, t in s.exec(q)]
