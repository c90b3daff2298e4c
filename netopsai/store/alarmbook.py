"""The alarms one batch of received events touches, kept by key (netopsai.store.apply), with
the store's round trips done per batch instead of per event: the open alarms of every key the
batch names are read in one query before it is applied, the alarms it opens are inserted in one
statement at its end (a handle stands for each until then; a clear in the same batch edits the
pending row), and the links behind a device's ports are read once per device and kept a while
(the inventory changes rarely, events come often)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, String, Table, bindparam, column, func, select, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.sql.elements import TextClause
from sqlmodel import Session

from netopsai.store import tables as m
from netopsai.store.bulk import insert_rows
from netopsai.store.naming import DeviceCache

ALARMS: Table = m.Alarm.__table__  # type: ignore[attr-defined]
RAW: Table = m.RawEvent.__table__  # type: ignore[attr-defined]
_IFACE: Table = m.Interface.__table__  # type: ignore[attr-defined]
_LINK: Table = m.Link.__table__  # type: ignore[attr-defined]
Open = tuple[int, datetime]  # an open alarm: its id (or a pending handle, < 0) and when raised
KEYS_PER_QUERY = 500


def _open_alarms(keys: Any) -> Select[Any]:
    return (select(RAW.c.key, ALARMS.c.id, ALARMS.c.raised_at)
            .join(ALARMS, RAW.c.alarm_id == ALARMS.c.id)
            .where(keys, ALARMS.c.state == "open"))


# PostgreSQL: one index probe per key, whatever the statistics say. The join above let its
# planner scan every open alarm per batch (a plan made while the tables were empty, kept by the
# prepared statement: 146 ms a query, 80 % of the server's time, with 15,000 alarms open in a
# storm), or the whole rawevent table (its key index's 500 probes priced above one full scan):
# each LATERAL below depends on the row before it, so it can only be a nested loop of point
# look-ups (the key index, then the alarm's primary key), OFFSET 0 keeping each apart.
_PG_OPEN_ALARMS = text(
    "SELECT k.key, a.id, a.raised_at FROM unnest(:keys) AS k(key) "
    "CROSS JOIN LATERAL (SELECT rawevent.alarm_id FROM rawevent WHERE rawevent.key = k.key "
    "AND rawevent.alarm_id IS NOT NULL OFFSET 0) AS r "
    "CROSS JOIN LATERAL (SELECT alarm.id, alarm.raised_at FROM alarm WHERE alarm.id = r.alarm_id "
    "AND alarm.state = 'open' OFFSET 0) AS a"
).bindparams(bindparam("keys", type_=ARRAY(String)))

# The keys go in as one parameter where the database takes a list as one value, so the
# statement is compiled once: an expanding IN of 500 keys is compiled again on every execution
# (SQLAlchemy names each of its parameters: 30,000 names made for 20,000 events in a profile).
_OPEN_ALARMS: dict[str, tuple[Select[Any] | TextClause, Callable[[list[str]], Any]]] = {
    "sqlite": (_open_alarms(RAW.c.key.in_(select(column("value", String))
                                          .select_from(func.json_each(bindparam("keys"))))),
               json.dumps),
    "postgresql": (_PG_OPEN_ALARMS, list),
    "": (_open_alarms(RAW.c.key.in_(bindparam("keys", expanding=True))), list),
}
_LINKS_OF = (select(_IFACE.c.name, _LINK.c.id, _LINK.c.kind)
             .join(_LINK, _IFACE.c.link_id == _LINK.c.id).where(_IFACE.c.device == bindparam("device")))
_CLOSE = (update(ALARMS).where(ALARMS.c.id == bindparam("alarm_id"))
          .values(cleared_at=bindparam("at"), state="closed"))


class LinkCache:
    """A device's cabled ports: interface name -> (link id, link kind), and the inventory's name
    for a port as messages write it (DeviceCache.port, remembered per spelling), for `ttl`
    seconds."""

    def __init__(self, ttl: float = 60.0) -> None:
        self.ttl = ttl
        self._devices: dict[str, tuple[dict[str, tuple[int, str]], float]] = {}
        self._ports: dict[tuple[str, str], tuple[str | None, float]] = {}

    def port(self, s: Session, devices: DeviceCache, device: str, written: str) -> str | None:
        now = time.monotonic()
        hit = self._ports.get((device, written))
        if hit is None or now - hit[1] >= self.ttl:
            if len(self._ports) > 200_000:
                self._ports.clear()
            hit = self._ports[(device, written)] = (devices.port(s, device, written), now)
        return hit[0]

    def link_of(self, conn: Connection, device: str, interface: str | None) -> tuple[int, str] | None:
        if not interface:
            return None
        now = time.monotonic()
        hit = self._devices.get(device)
        if hit is None or now - hit[1] >= self.ttl:
            if len(self._devices) > 50_000:
                self._devices.clear()
            ports = {r[0]: (r[1], r[2]) for r in conn.execute(_LINKS_OF, {"device": device})}
            hit = self._devices[device] = (ports, now)
        return hit[0].get(interface)


class AlarmBook:
    """Open alarms by key for one batch, on the batch's connection and transaction."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._open: dict[str, Open | None] = {}  # key -> its open alarm (None: none open)
        self._new: list[dict[str, Any]] = []  # alarms opened by this batch, inserted at flush

    def prefetch(self, keys: Iterable[str]) -> None:
        """Read the open alarm of every key not known yet, in a few queries."""
        wanted = sorted({k for k in keys if k not in self._open})
        query, param = _OPEN_ALARMS.get(self.conn.dialect.name, _OPEN_ALARMS[""])
        for i in range(0, len(wanted), KEYS_PER_QUERY):
            part = wanted[i:i + KEYS_PER_QUERY]
            found: dict[str, Open] = {}
            for key, alarm_id, raised in self.conn.execute(query, {"keys": param(part)}):
                if key not in found or raised > found[key][1]:  # the latest raised
                    found[key] = (alarm_id, raised)
            for key in part:
                self._open[key] = found.get(key)

    def known(self, key: str) -> bool:
        return key in self._open

    def lookup(self, key: str) -> Open | None:
        """The open alarm of `key`, read from the store if the batch has not read it yet (one
        call per event where `known` then `get` were two)."""
        try:
            return self._open[key]
        except KeyError:
            self.prefetch([key])
            return self._open.get(key)

    def get(self, key: str) -> Open | None:
        return self._open.get(key)

    def set(self, key: str, alarm: Open | None) -> None:
        self._open[key] = alarm

    def add(self, values: dict[str, Any]) -> int:
        """An alarm to insert at `flush`; its handle (negative) until then."""
        self._new.append(values)
        return -len(self._new)

    def close(self, alarm: Open, at: datetime) -> None:
        """Close an alarm (never before it was raised): a pending one in its row."""
        when = max(at, _aware(alarm[1], at))
        if alarm[0] < 0:
            row = self._new[-alarm[0] - 1]
            if row["state"] == "open":
                row.update(cleared_at=when, state="closed")
            return
        self.conn.execute(_CLOSE, {"alarm_id": alarm[0], "at": when})

    def flush(self) -> dict[int, int]:
        """Insert the pending alarms in one statement; handle -> id."""
        if not self._new:
            return {}
        ids = {-(i + 1): row_id for i, row_id in enumerate(insert_rows(self.conn, ALARMS, self._new))}
        self._new = []
        return ids


def _aware(t: datetime, like: datetime) -> datetime:
    """SQLite hands back naive datetimes: compare them as UTC with aware ones."""
    return t.replace(tzinfo=like.tzinfo) if t.tzinfo is None and like.tzinfo is not None else t
