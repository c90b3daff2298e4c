"""The rows a received event makes (netopsai.store.apply decides which): its RawEvent row, the
Alarm row it opens, its text as stored. Built with the fewest steps per event: a storm is tens
of thousands of these a second through one writer thread, and every dict a row is copied
through is paid that often."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Table, insert

from netopsai.common.textsafe import UNVERIFIED, visible
from netopsai.store import tables as m
from netopsai.store.naming import Named, session_link

if TYPE_CHECKING:  # apply.py imports this module; Event stays there (spooled pickles name it)
    from netopsai.store.alarmbook import LinkCache
    from netopsai.store.apply import Event

ALARMS: Table = m.Alarm.__table__  # type: ignore[attr-defined]
LINK_KINDS_AS_CATEGORY = ("dci", "backbone")  # an alarm on these links is filed under its kind
_INSERT_ALARM = insert(ALARMS).returning(ALARMS.c.id)  # core tables: no ORM per event


def raw_row(ev: Event, device: str, at: datetime, key: str | None) -> dict[str, Any]:
    """The RawEvent row of an event about `device`, before it raised or joined anything (one
    dict built once: merging a second one in for its key cost a copy of every field)."""
    return {"received_at": ev.received_at, "at": at, "device_time": ev.device_time,
            "skew_s": ev.skew_s, "source": ev.source, "host": ev.host, "hostname": ev.name,
            "device": device, "interface": ev.interface, "program": ev.program,
            "mnemonic": ev.mnemonic, "facility": ev.facility, "severity": ev.syslog_severity,
            "message": ev.message, "kind": ev.kind, "key": key, "alarm_id": None, "count": 1,
            "fingerprint": ev.fingerprint}


def unverified_text(ev: Event, who: Named) -> str:
    """The message of an event whose sender may not speak for the device it names, saying so
    first: wherever the event is shown, it reads as what it is."""
    own = f" ({who.name})" if who.name != ev.host else ""
    return (f"{UNVERIFIED} names {who.claimed} but came from {ev.host}{own}, not an address of "
            f"{who.claimed} nor a relay in ingest.relays; raised nothing: {ev.message}")


def visible_event(ev: Event) -> Event:
    """The event's network text with its control characters made visible (netopsai.common.textsafe):
    an ESC sequence or a line break inside a message must not reach a terminal or forge a row.
    Always a copy: the caller's event is not ours to edit (a failed batch is applied again)."""
    texts = (ev.message, ev.name, ev.subject, ev.interface, ev.program, ev.mnemonic, ev.author,
             ev.facility, ev.host)
    # one test over the texts joined (None and "" dropped: "" is printable): a generator's
    # test per text cost four times as much, and nearly every event is printable
    if "".join(filter(None, texts)).isprintable():
        clone = object.__new__(type(ev))  # copy.copy takes three times as long
        clone.__dict__.update(ev.__dict__)
        return clone

    def v(text: str | None) -> str | None:
        return None if text is None else visible(text)
    return replace(ev, message=visible(ev.message), name=v(ev.name), subject=v(ev.subject),
                   interface=v(ev.interface), program=v(ev.program), mnemonic=v(ev.mnemonic),
                   author=v(ev.author), facility=v(ev.facility), host=visible(ev.host))


def new_alarm(conn: Connection, links: LinkCache, ev: Event, who: Named, at: datetime) -> int:
    """Insert an alarm now (a flap's, an outage's: their ids are needed at once)."""
    return int(conn.execute(_INSERT_ALARM, alarm_values(conn, links, ev, who, at)).scalar_one())


def alarm_values(conn: Connection, links: LinkCache, ev: Event, who: Named,
                 at: datetime) -> dict[str, Any]:
    """The Alarm row an event opens: its link (and a DCI or backbone link's category)."""
    link = links.link_of(conn, who.name, ev.interface)
    if link is None and ev.category in ("bgp", "routing"):  # the session rides a link
        found = session_link(conn, who.name, ev.subject)
        if found is not None:
            ev = replace(ev, interface=found[0])
            link = found[1:]
    category = ev.category or "device"
    if link is not None and link[1] in LINK_KINDS_AS_CATEGORY and category == "link":
        category = link[1]
    instant = ev.instant
    return {"kind": ev.kind or "EVENT", "category": category, "severity": ev.severity,
            "device": who.name, "interface": ev.interface, "link_id": link[0] if link else None,
            "site": ev.site or who.site, "raised_at": at,
            "cleared_at": at if instant else None,
            "state": "closed" if instant else "open", "message": ev.message,
            "neighbor": ev.subject if ev.category in ("bgp", "routing")
            and ev.subject != ev.interface else None,
            "source": ev.source, "impact": "none", "traffic_lost": False}
