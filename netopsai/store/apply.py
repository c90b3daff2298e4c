"""What received events do to the store: name the device, raise or clear an alarm, and log each
event as received (a RawEvent row). Receivers build Events; the queued writer (ingest_store)
applies them in order, a batch per transaction."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Connection, Table, bindparam, insert, update
from sqlmodel import Session, or_, select

from netopsai.ifnames import canonical
from netopsai.store import tables as m
from netopsai.store.flaps import Flaps
from netopsai.store.naming import DeviceCache, Named, session_link
from netopsai.textsafe import UNVERIFIED, visible

Action = Literal["raise", "clear", "note", "change"]  # change: a config commit, a change record
LINK_KINDS_AS_CATEGORY = ("dci", "backbone")  # an alarm on these links is filed under its kind


@dataclass
class Event:
    """One thing a receiver took in. `fingerprint` is equal for retransmissions of the same event
    (same sender, same content); `subject` (an interface, a BGP peer or an alert fingerprint)
    with the device and kind names the condition a clear closes."""

    source: str  # trap | syslog | alertmanager
    action: Action
    message: str
    received_at: datetime
    fingerprint: str
    host: str = ""  # the sender's address
    name: str | None = None  # the device name the event itself gives (sysName, HOSTNAME, label)
    kind: str | None = None
    category: str | None = None
    subject: str | None = None
    interface: str | None = None
    severity: str = "major"
    at: datetime | None = None  # where it goes on the timeline (default: received_at)
    device_time: datetime | None = None  # what the device's clock said, believed or not
    skew_s: float | None = None  # the device's clock minus the receive time
    program: str | None = None  # the process or node that logged it (mib2d, Ebra, RP/0/RP0/CPU0)
    mnemonic: str | None = None  # the vendor's message id (LINK-3-UPDOWN, SNMP_TRAP_LINK_DOWN)
    instant: bool = False  # raised and over at once (a restart)
    facility: str | None = None
    syslog_severity: str | None = None
    site: str | None = None
    resolve_sender: bool = True  # False when the sender is a relay (Alertmanager), not the device
    clears: tuple[str, ...] = ()  # a clear also closes these kinds on the same subject
    author: str | None = None  # who made a change (a config commit's user)


# Core tables: the hot path skips the ORM's per-object overhead
ALARMS: Table = m.Alarm.__table__  # type: ignore[attr-defined]
RAW: Table = m.RawEvent.__table__  # type: ignore[attr-defined]
Open = tuple[int, datetime]  # an open alarm: its id and when it was raised


_IFACE: Table = m.Interface.__table__  # type: ignore[attr-defined]
_LINK: Table = m.Link.__table__  # type: ignore[attr-defined]
_IFEVENT: Table = m.InterfaceEvent.__table__  # type: ignore[attr-defined]
# what a received event says about a port's state, for the one state history telemetry reads
PORT_STATE = {("LINK_DOWN", "raise"): "down", ("LINK_DOWN", "clear"): "up",
              ("ADMIN_DOWN", "raise"): "down"}
# Built once with bind parameters: SQLAlchemy compiles each statement once, not per event
_LINK_OF = (select(_LINK.c.id, _LINK.c.kind).join(_IFACE, _IFACE.c.link_id == _LINK.c.id)
            .where(_IFACE.c.device == bindparam("device"), _IFACE.c.name == bindparam("name")))
_OPEN_ALARM = (select(ALARMS.c.id, ALARMS.c.raised_at).join(RAW, RAW.c.alarm_id == ALARMS.c.id)
               .where(RAW.c.key == bindparam("key"), ALARMS.c.state == "open")
               .order_by(ALARMS.c.raised_at.desc()).limit(1))
_CLOSE = (update(ALARMS).where(ALARMS.c.id == bindparam("alarm_id"))
          .values(cleared_at=bindparam("at"), state="closed"))
_INSERT_ALARM = insert(ALARMS).returning(ALARMS.c.id)


def _link_of(conn: Connection, device: str, interface: str | None) -> tuple[int, str] | None:
    """The link (id, kind) the device's interface is cabled to, if the inventory has it."""
    if not interface:
        return None
    row = conn.execute(_LINK_OF, {"device": device, "name": interface}).first()
    return (row[0], row[1]) if row else None


def open_alarm(conn: Connection, key: str) -> Open | None:
    """The open alarm an earlier event with this key raised or joined."""
    row = conn.execute(_OPEN_ALARM, {"key": key}).first()
    return (row[0], row[1]) if row else None


class Batch:
    """Applies a batch of events on one connection, inside the caller's transaction: the alarms
    its events touch are kept by key in memory, and its RawEvent rows go in at `finish`."""

    def __init__(self, s: Session, devices: DeviceCache, flaps: Flaps | None = None) -> None:
        self.s, self.conn, self.devices, self.flaps = s, s.connection(), devices, flaps
        self.latest: datetime | None = None  # the batch's latest event time
        self._open: dict[str, Open | None] = {}  # key -> its open alarm (None: none open)
        self._rows: list[dict[str, Any]] = []
        self._ifevents: list[dict[str, Any]] = []  # port state changes, for telemetry's history
        self.opened: list[tuple[int, str]] = []  # (alarm id, device) of each alarm opened here

    def apply(self, ev: Event) -> dict[str, Any]:
        """A raise opens an alarm unless one with its key is open, a clear closes the open one,
        a note only logs. Returns the RawEvent row to be inserted (its `count` may still grow).
        An event naming a device its sender may not speak for is only logged, marked."""
        ev = _visible(ev)
        who = self.devices.get(self.s, ev.name, ev.host if ev.resolve_sender else "")
        if who.claimed is not None:
            return self._unverified(ev, who)
        if ev.interface:  # as the inventory names the port; the subject follows when it is one
            port = self.devices.port(self.s, who.name, ev.interface)
            if ev.subject == ev.interface:
                ev.subject = port
            ev.interface = port
        key = f"{ev.kind}|{who.name}|{ev.subject or ''}" if ev.kind else None
        at = ev.at or ev.received_at
        row = {**_raw_row(ev, who.name, at), "key": key}
        self.latest = max(self.latest or at, at)
        if ev.interface and (state := PORT_STATE.get((ev.kind or "", ev.action))):
            self._ifevents.append({"device": who.name, "interface": ev.interface, "at": at,
                                   "state": state, "reason": f"{ev.source} {ev.mnemonic or ev.kind}"})
        if ev.action == "change":
            _change(self.conn, ev, who, at)
        if (flap := self._flap(ev, who, at, row)) is not None:  # a bounce of a flapping port
            row.update(alarm_id=flap, key=f"LINK_FLAP|{who.name}|{ev.subject or ''}")
            self._rows.append(row)
            return row
        if key is not None and ev.action == "clear":
            for other in ev.clears:  # e.g. a port up ends an admin shut as well as a failure
                self._close(f"{other}|{who.name}|{ev.subject or ''}", at)
            row["alarm_id"] = self._close(key, at)
        elif key is not None and ev.action == "raise":
            alarm = self._open[key] if key in self._open else open_alarm(self.conn, key)
            if alarm is None:
                alarm = (_new_alarm(self.conn, ev, who, at), at)
                self._open[key] = None if ev.instant else alarm
                if not ev.instant:
                    self.opened.append((alarm[0], who.name))
            else:
                self._open[key] = alarm
            row["alarm_id"] = alarm[0]
        self._rows.append(row)
        return row

    def _unverified(self, ev: Event, who: Named) -> dict[str, Any]:
        """Kept about its sender (who.name), the device it names in its hostname column and its
        message: no alarm, no clear, no port state, no change record on the named device."""
        at = ev.at or ev.received_at
        self.latest = max(self.latest or at, at)
        row = {**_raw_row(ev, who.name, at), "kind": None, "message": unverified_text(ev, who),
               "interface": canonical(ev.interface) if ev.interface else None}
        self._rows.append(row)
        return row

    def _flap(self, ev: Event, who: Named, at: datetime, row: dict[str, Any]) -> int | None:
        if self.flaps is None or ev.kind != "LINK_DOWN" or not ev.interface \
                or ev.action not in ("raise", "clear"):
            return None
        flap = replace(ev, kind="LINK_FLAP", category="link", instant=False)

        def open_flap(first: datetime) -> int:
            alarm_id = _new_alarm(self.conn, flap, who, first)
            self.opened.append((alarm_id, who.name))
            return alarm_id
        absorbed = self.flaps.transition(self.conn, (who.name, ev.interface), at,
                                         ev.action == "raise", open_flap, kept=(ev, who, row))
        self._outages()
        return absorbed

    def _outages(self) -> None:
        """Storms that ended with the port down: the LINK_DOWN alarm the flap absorbed, raised
        at its last Down, whose row (stored or still in this batch) now names it."""
        assert self.flaps is not None
        while self.flaps.ended:
            ev, who, row = self.flaps.ended.pop(0).kept
            at = row["at"]
            key = f"{ev.kind}|{who.name}|{ev.subject or ''}"
            alarm_id = _new_alarm(self.conn, ev, who, at)
            self.opened.append((alarm_id, who.name))
            self._open[key] = (alarm_id, at)
            row.update(key=key, alarm_id=alarm_id)
            if "id" in row:  # stored by an earlier batch
                self.conn.execute(update(RAW).where(RAW.c.id == row["id"])
                                  .values(key=key, alarm_id=alarm_id))

    def _close(self, key: str, at: datetime) -> int | None:
        """Close the open alarm of this key, if any (never before it was raised); its id."""
        alarm = self._open[key] if key in self._open else open_alarm(self.conn, key)
        self._open[key] = None
        if alarm is None:
            return None
        self.conn.execute(_CLOSE, {"alarm_id": alarm[0], "at": max(at, _aware(alarm[1], at))})
        return alarm[0]

    def finish(self) -> list[int]:
        """Insert the batch's RawEvent rows; their ids, in order."""
        if self.flaps is not None and self.latest is not None:
            self.flaps.expire(self.conn, self.latest)
            self._outages()
        if self._ifevents:
            self.conn.execute(insert(_IFEVENT), self._ifevents)
        if not self._rows:
            return []
        result = self.conn.execute(insert(RAW).returning(RAW.c.id, sort_by_parameter_order=True),
                                   self._rows)
        ids = [r[0] for r in result]
        for row, row_id in zip(self._rows, ids, strict=True):
            row["id"] = row_id  # a flap's last Down may be named by its outage in a later batch
        return ids


def _raw_row(ev: Event, device: str, at: datetime) -> dict[str, Any]:
    """The RawEvent row of an event about `device`, before it raised or joined anything."""
    return {"received_at": ev.received_at, "at": at, "device_time": ev.device_time,
            "skew_s": ev.skew_s, "source": ev.source, "host": ev.host, "hostname": ev.name,
            "device": device, "interface": ev.interface, "program": ev.program,
            "mnemonic": ev.mnemonic, "facility": ev.facility, "severity": ev.syslog_severity,
            "message": ev.message, "kind": ev.kind, "key": None, "alarm_id": None, "count": 1,
            "fingerprint": ev.fingerprint}


def unverified_text(ev: Event, who: Named) -> str:
    """The message of an event whose sender may not speak for the device it names, saying so
    first: wherever the event is shown, it reads as what it is."""
    own = f" ({who.name})" if who.name != ev.host else ""
    return (f"{UNVERIFIED} names {who.claimed} but came from {ev.host}{own}, not an address of "
            f"{who.claimed} nor a relay in ingest.relays; raised nothing: {ev.message}")


def _visible(ev: Event) -> Event:
    """The event's network text with its control characters made visible (netopsai.textsafe):
    an ESC sequence or a line break inside a message must not reach a terminal or forge a row."""
    def v(text: str | None) -> str | None:
        return None if text is None else visible(text)
    return replace(ev, message=visible(ev.message), name=v(ev.name), subject=v(ev.subject),
                   interface=v(ev.interface), program=v(ev.program), mnemonic=v(ev.mnemonic),
                   author=v(ev.author), facility=v(ev.facility), host=visible(ev.host))


def _aware(t: datetime, like: datetime) -> datetime:
    """SQLite hands back naive datetimes: compare them as UTC with aware ones."""
    return t.replace(tzinfo=like.tzinfo) if t.tzinfo is None and like.tzinfo is not None else t


_CHANGE: Table = m.Change.__table__  # type: ignore[attr-defined]
_TICKET = re.compile(r"\b(?:CHG|CR|CRQ|RFC|INC|TKT|CM)[-_ ]?\d{3,}\b", re.I)
TICKET_SLACK = timedelta(hours=1)  # a planned change's window, when its record gives no end


def _change(conn: Connection, ev: Event, who: Named, at: datetime) -> None:
    """A config commit: a change record, unless a recorded change on the device covers its
    time; without a ticket of its own it is kept as an unrecorded change."""
    covered = conn.execute(
        select(_CHANGE.c.id).where(_CHANGE.c.device == who.name, _CHANGE.c.start <= at + TICKET_SLACK,
                                   or_(_CHANGE.c.end.is_(None) & (_CHANGE.c.start >= at - TICKET_SLACK),
                                       _CHANGE.c.end >= at))).first()
    if covered is not None:
        return
    ticket = _TICKET.search(ev.message)
    conn.execute(insert(_CHANGE).values(
        ticket=ticket.group(0).upper() if ticket else "UNRECORDED", device=who.name, site=who.site,
        start=at, end=at, kind="config", summary=ev.message[:500], author=ev.author or "",
        status="completed" if ticket else "unrecorded"))


def _new_alarm(conn: Connection, ev: Event, who: Named, at: datetime) -> int:
    link = _link_of(conn, who.name, ev.interface)
    if link is None and ev.category in ("bgp", "routing"):  # the session rides a link
        found = session_link(conn, who.name, ev.subject)
        if found is not None:
            ev = replace(ev, interface=found[0])
            link = found[1:]
    category = ev.category or "device"
    if link is not None and link[1] in LINK_KINDS_AS_CATEGORY and category == "link":
        category = link[1]
    values = {"kind": ev.kind or "EVENT", "category": category, "severity": ev.severity,
              "device": who.name, "interface": ev.interface, "link_id": link[0] if link else None,
              "site": ev.site or who.site, "raised_at": at,
              "cleared_at": at if ev.instant else None,
              "state": "closed" if ev.instant else "open", "message": ev.message,
              "source": ev.source, "impact": "none", "traffic_lost": False}
    return int(conn.execute(_INSERT_ALARM, values).scalar_one())
