"""What one received event does to the store: name the device, raise or clear an alarm, and log
the event as received (a RawEvent row). Receivers build Events; the queued writer
(ingest_store) applies them in order, inside its own transactions."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlmodel import Session, col, or_, select

from netopsai import models as m

Action = Literal["raise", "clear", "note"]
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
    at: datetime | None = None  # when the source says it happened (default: received_at)
    instant: bool = False  # raised and over at once (a restart)
    facility: str | None = None
    syslog_severity: str | None = None
    site: str | None = None
    resolve_sender: bool = True  # False when the sender is a relay (Alertmanager), not the device


def resolve_device(s: Session, name: str | None, sender: str) -> m.Device | str:
    """The inventory device the event is about: by the name it gives (exact, then without its
    domain), by an address it gives, then by the sender's address; else the best name it has."""
    for candidate in (name, name.split(".")[0] if name and not _is_ip(name) else None):
        if candidate:
            dev = s.get(m.Device, candidate)
            if dev is not None:
                return dev
    for ip in (name if name and _is_ip(name) else None, sender):
        if ip and _is_ip(ip):
            dev = s.exec(select(m.Device).where(
                or_(m.Device.mgmt_ip == ip, m.Device.loopback == ip))).first()
            if dev is not None:
                return dev
    return name or sender


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _link_of(s: Session, device: str, interface: str | None) -> m.Link | None:
    if not interface:
        return None
    iface = s.exec(select(m.Interface).where(m.Interface.device == device,
                                             m.Interface.name == interface)).first()
    return s.get(m.Link, iface.link_id) if iface is not None and iface.link_id else None


def open_alarm(s: Session, key: str) -> m.Alarm | None:
    """The open alarm an earlier event with this key raised or joined."""
    q = (select(m.Alarm).join(m.RawEvent, col(m.RawEvent.alarm_id) == col(m.Alarm.id))
         .where(m.RawEvent.key == key, m.Alarm.state == "open")
         .order_by(col(m.Alarm.raised_at).desc()))
    return s.exec(q).first()


def apply_event(s: Session, ev: Event) -> m.RawEvent:
    """Apply one event (no commit): a raise opens an alarm unless one with its key is open, a
    clear closes the open one, a note only logs. Returns the RawEvent row added."""
    found = resolve_device(s, ev.name, ev.host if ev.resolve_sender else "")
    device = found.name if isinstance(found, m.Device) else found
    key = f"{ev.kind}|{device}|{ev.subject or ''}" if ev.kind else None
    raw = m.RawEvent(received_at=ev.received_at, source=ev.source, host=ev.host,
                     facility=ev.facility, severity=ev.syslog_severity, message=ev.message,
                     kind=ev.kind, key=key)
    at = ev.at or ev.received_at
    alarm = open_alarm(s, key) if key and ev.action in ("raise", "clear") else None
    if ev.action == "clear" and alarm is not None:
        alarm.cleared_at, alarm.state = max(at, _aware(alarm.raised_at, at)), "closed"
        s.add(alarm)
    elif ev.action == "raise" and alarm is None and ev.kind:
        alarm = _new_alarm(s, ev, found, device, at)
    raw.alarm_id = alarm.id if alarm is not None else None
    s.add(raw)
    s.flush()
    return raw


def _aware(t: datetime, like: datetime) -> datetime:
    """SQLite hands back naive datetimes: compare them as UTC with aware ones."""
    return t.replace(tzinfo=like.tzinfo) if t.tzinfo is None and like.tzinfo is not None else t


def _new_alarm(s: Session, ev: Event, found: m.Device | str, device: str,
               at: datetime) -> m.Alarm:
    link = _link_of(s, device, ev.interface)
    category = ev.category or "device"
    if link is not None and link.kind in LINK_KINDS_AS_CATEGORY and category == "link":
        category = link.kind
    site = ev.site or (found.site if isinstance(found, m.Device) else "")
    alarm = m.Alarm(kind=ev.kind or "EVENT", category=category, severity=ev.severity,
                    device=device, interface=ev.interface, link_id=link.id if link else None,
                    site=site, raised_at=at, cleared_at=at if ev.instant else None,
                    state="closed" if ev.instant else "open", message=ev.message,
                    source=ev.source, impact="none")
    s.add(alarm)
    s.flush()  # its id, for the RawEvent that raised it
    return alarm
