"""What received events do to the store: name the device, raise or clear an alarm, and log each
event as received (a RawEvent row). Receivers build Events; the queued writer (ingest_store)
applies them in order, a batch per transaction."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Table, update
from sqlmodel import Session

from netopsai.common.ifnames import canonical
from netopsai.store import tables as m
from netopsai.store.alarmbook import AlarmBook, LinkCache
from netopsai.store.bulk import insert_plain, insert_rows
from netopsai.store.commits import record_change
from netopsai.store.eventrows import alarm_values, new_alarm, raw_row, unverified_text, visible_event
from netopsai.store.flaps import Flaps
from netopsai.store.naming import DeviceCache, Named

Action = Literal["raise", "clear", "note", "change"]  # change: a config commit, a change record


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


ALARMS: Table = m.Alarm.__table__  # type: ignore[attr-defined]
RAW: Table = m.RawEvent.__table__  # type: ignore[attr-defined]
_IFEVENT: Table = m.InterfaceEvent.__table__  # type: ignore[attr-defined]
# what a received event says about a port's state, for the one state history telemetry reads
PORT_STATE = {("LINK_DOWN", "raise"): "down", ("LINK_DOWN", "clear"): "up",
              ("ADMIN_DOWN", "raise"): "down"}
Named_ = tuple["Event", Named, str | None]  # an event as shown, who it is about, its alarm key


class Batch:
    """Applies a batch of events on one connection, inside the caller's transaction: the alarms
    its events touch are kept by key in memory (netopsai.store.alarmbook: looked up for the
    whole batch at once, opened in one insert), and its RawEvent rows go in at `finish`. Who
    an event is about and its port's name are resolved once per distinct spelling a batch
    holds (`_who`, `_ports`: a storm repeats a few senders and ports thousands of times), kept
    only for the batch: the caches behind them decide when the inventory is read again."""

    def __init__(self, s: Session, devices: DeviceCache, flaps: Flaps | None = None,
                 links: LinkCache | None = None) -> None:
        self.s, self.conn, self.devices, self.flaps = s, s.connection(), devices, flaps
        self.links = links or LinkCache()
        self.latest: datetime | None = None  # the batch's latest event time
        self.book = AlarmBook(self.conn)
        self._rows: list[dict[str, Any]] = []
        self._ifevents: list[dict[str, Any]] = []  # port state changes, for telemetry's history
        self.opened: list[tuple[int, str]] = []  # (alarm id, device) of each alarm opened here
        self._who: dict[tuple[str | None, str], Named] = {}  # (name given, sender) -> device
        self._ports: dict[tuple[str, str], str | None] = {}  # (device, as written) -> its name

    def apply(self, ev: Event) -> dict[str, Any]:
        """A raise opens an alarm unless one with its key is open, a clear closes the open one,
        a note only logs. Returns the RawEvent row to be inserted (its `count` may still grow).
        An event naming a device its sender may not speak for is only logged, marked."""
        return self._apply(*self._name(ev))

    def apply_all(self, events: list[Event]) -> list[dict[str, Any]]:
        """`apply` for each event in order, the open alarms of all their keys read at once."""
        named = [self._name(ev) for ev in events]
        keys = [key for _, _, key in named if key is not None]
        keys += [f"{other}|{who.name}|{ev.subject or ''}" for ev, who, key in named
                 if key is not None for other in ev.clears]
        self.book.prefetch(keys)
        return [self._apply(*n) for n in named]

    def _name(self, ev: Event) -> Named_:
        """The event as stored (network text made visible, the port as the inventory names
        it), who it is about and its alarm key (None: it raises and clears nothing)."""
        ev = visible_event(ev)
        asked = (ev.name, ev.host if ev.resolve_sender else "")
        who = self._who.get(asked)
        if who is None:
            who = self._who[asked] = self.devices.get(self.s, *asked)
        if who.claimed is not None:
            return ev, who, None
        if ev.interface:  # as the inventory names the port; the subject follows when it is one
            written = (who.name, ev.interface)
            if written in self._ports:
                port = self._ports[written]
            else:
                port = self._ports[written] = self.links.port(self.s, self.devices, *written)
            if ev.subject == ev.interface:
                ev.subject = port
            ev.interface = port
        return ev, who, f"{ev.kind}|{who.name}|{ev.subject or ''}" if ev.kind else None

    def _apply(self, ev: Event, who: Named, key: str | None) -> dict[str, Any]:
        if who.claimed is not None:
            return self._unverified(ev, who)
        at = ev.at or ev.received_at
        row = raw_row(ev, who.name, at, key)
        if self.latest is None or at > self.latest:
            self.latest = at
        action = ev.action
        if ev.interface and (state := PORT_STATE.get((ev.kind or "", action))):
            self._ifevents.append({"device": who.name, "interface": ev.interface, "at": at,
                                   "state": state, "reason": f"{ev.source} {ev.mnemonic or ev.kind}"})
        if action == "change":
            record_change(self.conn, ev.message, ev.author, who.name, who.site, at)
        if (flap := self._flap(ev, who, at, row)) is not None:  # a bounce of a flapping port
            row.update(alarm_id=flap, key=f"LINK_FLAP|{who.name}|{ev.subject or ''}")
        elif key is not None and action == "clear":
            for other in ev.clears:  # e.g. a port up ends an admin shut as well as a failure
                self._close(f"{other}|{who.name}|{ev.subject or ''}", at)
            row["alarm_id"] = self._close(key, at)
        elif key is not None and action == "raise":
            row["alarm_id"] = self._raise(ev, who, key, at)
        self._rows.append(row)
        return row

    def _raise(self, ev: Event, who: Named, key: str, at: datetime) -> int:
        """The open alarm of this key, or a new one (pending until `finish`)."""
        alarm = self.book.lookup(key)
        if alarm is None:
            alarm = (self.book.add(alarm_values(self.conn, self.links, ev, who, at)), at)
            self.book.set(key, None if ev.instant else alarm)
            if not ev.instant:
                self.opened.append((alarm[0], who.name))
        else:
            self.book.set(key, alarm)
        return alarm[0]

    def _unverified(self, ev: Event, who: Named) -> dict[str, Any]:
        """Kept about its sender (who.name), the device it names in its hostname column and its
        message: no alarm, no clear, no port state, no change record on the named device."""
        at = ev.at or ev.received_at
        if self.latest is None or at > self.latest:
            self.latest = at
        row = raw_row(ev, who.name, at, None)
        row.update(kind=None, message=unverified_text(ev, who),
                   interface=canonical(ev.interface) if ev.interface else None)
        self._rows.append(row)
        return row

    def _flap(self, ev: Event, who: Named, at: datetime, row: dict[str, Any]) -> int | None:
        if self.flaps is None or ev.kind != "LINK_DOWN" or not ev.interface \
                or ev.action not in ("raise", "clear"):
            return None
        def open_flap(first: datetime) -> int:
            flap = replace(ev, kind="LINK_FLAP", category="link", instant=False)
            alarm_id = new_alarm(self.conn, self.links, flap, who, first)
            self.opened.append((alarm_id, who.name))
            return alarm_id
        absorbed = self.flaps.transition(self.conn, (who.name, ev.interface), at,
                                         ev.action == "raise", open_flap, kept=(ev, who, row))
        if self.flaps.ended:
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
            alarm_id = new_alarm(self.conn, self.links, ev, who, at)
            self.opened.append((alarm_id, who.name))
            self.book.set(key, (alarm_id, at))
            row.update(key=key, alarm_id=alarm_id)
            if "id" in row:  # stored by an earlier batch
                self.conn.execute(update(RAW).where(RAW.c.id == row["id"])
                                  .values(key=key, alarm_id=alarm_id))

    def end_storms(self, now: datetime, every: bool = False) -> None:
        """Outside a batch of events: end the storms quiet by `now` (`every`: all of them, the
        writer stops), opening the outages of those that ended down."""
        if self.flaps is None:
            return
        if every:
            self.flaps.end_all(self.conn)
        else:
            self.flaps.expire(self.conn, now)
        self._outages()

    def _close(self, key: str, at: datetime) -> int | None:
        """Close the open alarm of this key, if any (never before it was raised); its id."""
        alarm = self.book.lookup(key)
        self.book.set(key, None)
        if alarm is None:
            return None
        self.book.close(alarm, at)
        return alarm[0]

    def finish(self, expire: bool = True) -> list[int]:
        """Insert the alarms the batch opened, then its RawEvent rows; their ids, in order.
        `expire`: end the flap storms quiet by the batch's latest event (the writer does it
        once per EXPIRE_EVERY of event time: it walks every port seen bouncing)."""
        if expire and self.flaps is not None and self.latest is not None:
            self.flaps.expire(self.conn, self.latest)
            self._outages()
        alarm_ids = self.book.flush()
        if alarm_ids:  # the pending alarms' handles become their ids
            for row in self._rows:
                if (handle := row["alarm_id"]) is not None and handle < 0:
                    row["alarm_id"] = alarm_ids[handle]
            self.opened = [(alarm_ids.get(a, a), dev) for a, dev in self.opened]
        insert_plain(self.conn, _IFEVENT, self._ifevents)
        if not self._rows:
            return []
        # each row keeps its id: a flap's last Down may be named by its outage in a later batch
        return insert_rows(self.conn, RAW, self._rows)
