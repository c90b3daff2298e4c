"""Change records, alarms and received events from the store."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import Engine, func
from sqlalchemy import select as core_select
from sqlalchemy import text as sql
from sqlmodel import Session, or_

from netopsai.backends.base import Row
from netopsai.backends.rows import AlarmRecord, ChangeRecord, EventRecord
from netopsai.common.ifnames import mentions, same_port
from netopsai.common.timewin import Window, as_utc, iso, iso_ms
from netopsai.store import tables as m
from netopsai.store.naming import is_ip, owners_of, resolve_device

SCAN = 20_000  # events read for one question at most: the latest ones in the window
LOGGED_NAMES = 5_000  # device names listed at most (a picker, the planner's known names)
# distinct device names by repeated "the next name after this one" (each an index seek)
_SKIP_SCAN = sql(
    "WITH RECURSIVE names(name) AS (SELECT min(device) FROM rawevent UNION ALL "
    "SELECT (SELECT min(device) FROM rawevent WHERE device > names.name) FROM names "
    "WHERE names.name IS NOT NULL) SELECT name FROM names WHERE name IS NOT NULL LIMIT :limit")


def _times(row: dict[str, Any], *cols: str) -> dict[str, Any]:
    for c in cols:
        if row.get(c) is not None:
            row[c] = iso(row[c])
    return row


class StoreEvents:
    """Serves both the Changes and the Alarms protocols (alarms and the events behind them)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def changes(self, devices: list[str] | None, site: str | None, ticket: str | None,
                window: Window) -> list[ChangeRecord]:
        t = _cols(m.Change)
        q = core_select(*t).where(t.start <= window.end, or_(t.end.is_(None), t.end >= window.start))
        if devices:
            q = q.where(t.device.in_(devices))
        if site:
            q = q.where(t.site == site)
        if ticket:
            q = q.where(t.ticket == ticket)
        with self.engine.connect() as c:
            rows = [_times(_plain(r, exclude="id"), "start", "end")
                    for r in c.execute(q.order_by(t.start.desc()))]
        return cast(list[ChangeRecord], rows)

    def alarms(self, category: str | None, state: str, devices: list[str] | None,
               site: str | None, window: Window) -> list[AlarmRecord]:
        t = _cols(m.Alarm)
        q = core_select(*t).where(t.raised_at <= window.end,
                                  or_(t.cleared_at.is_(None), t.cleared_at >= window.start))
        if category:
            q = q.where(t.category == category)
        if state in ("open", "closed"):
            q = q.where(t.state == state)
        if devices:
            q = q.where(t.device.in_(devices))
        if site:
            q = q.where(t.site == site)
        with Session(self.engine) as s:  # one transaction with the peers' reads
            rows = [_times(_plain(r), "raised_at", "cleared_at")
                    for r in s.connection().execute(q.order_by(t.raised_at.desc()))]
            _add_peers(s, rows)
        return cast(list[AlarmRecord], rows)

    def events(self, devices: list[str] | None, window: Window, *, interface: str | None = None,
               mnemonic: str | None = None, text: str | None = None, source: str | None = None,
               limit: int = 200) -> tuple[list[EventRecord], int]:
        ev = _cols(m.RawEvent)
        when = func.coalesce(ev.at, ev.received_at)
        q = core_select(*ev).where(when >= window.start, when <= window.end)
        if devices:
            q = q.where(ev.device.in_(devices))
        if mnemonic:
            q = q.where(ev.mnemonic.ilike(f"%{_like(mnemonic)}%", escape="\\"))
        if text:
            q = q.where(ev.message.ilike(f"%{_like(text)}%", escape="\\"))
        if source:
            q = q.where(ev.source == source)
        with self.engine.connect() as c:
            found = c.execute(q.order_by(when.desc()).limit(SCAN)).all()
        if interface:  # any of its names, or a line that names it
            found = [r for r in found if (r.interface and same_port(r.interface, interface))
                     or mentions(r.message, interface)]
        rows = [_event_row(r) for r in reversed(found[:limit])]
        return cast(list[EventRecord], rows), len(found)

    def logged_devices(self, limit: int = LOGGED_NAMES) -> list[str]:
        """Every device name the events store holds (as stored: nothing is rewritten), at most
        `limit`, in name order: the devices known only from their logs are among them. One
        index seek per name (a skip scan over ix_rawevent_device_at), not a scan of the lines."""
        with Session(self.engine) as s:
            return [str(r[0]) for r in s.connection().execute(_SKIP_SCAN, {"limit": limit})]


def _cols(model: Any) -> Any:
    """A table's columns, for Core statements: the same SQL as the ORM's select of the model,
    without its per-statement compile, and no mapping of the 28 tables on a cold `ask` whose
    reads are all Core (~15 ms; RESULTS "cold-ask-21")."""
    return model.__table__.c


def _plain(row: Any, exclude: str = "") -> dict[str, Any]:
    """A Core row of `select(*table.c)` as a dict: its keys in the table's column order, as
    column_row gives an ORM object's (answers are byte-stable either way)."""
    return {k: v for k, v in row._mapping.items() if k != exclude}


def _like(text: str) -> str:
    """A LIKE pattern's literal part: % and _ in the text match themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _event_row(r: Any) -> Row:
    """A RawEvent row of a Core `select(*table.c)` (its `count` column by key: a Row's own
    .count is the tuple method)."""
    at = r.at or r.received_at
    return {"at": iso_ms(at), "device": r.device or r.hostname or r.host,
            "interface": r.interface, "source": r.source, "mnemonic": r.mnemonic, "kind": r.kind,
            "message": r.message, "count": r._mapping["count"], "received_at": iso(as_utc(r.received_at)),
            "skew_s": r.skew_s, "host": r.host}


def _add_peers(s: Session, rows: list[Row]) -> None:
    """The device at the other end of an alarm's link: a dead peer explains a link alarm. A
    session alarm (BGP, OSPF, IS-IS) with no link names its neighbour itself: its address and
    the device holding it (any address of any interface, a loopback) or named so (IS-IS)."""
    ids = {r["link_id"] for r in rows if r.get("link_id")}
    lt = _cols(m.Link)
    links = ({lk.id: lk for lk in s.connection().execute(core_select(*lt).where(lt.id.in_(ids)))}
             if ids else {})
    for r in rows:
        lk = links.get(r.get("link_id"))
        r["peer"] = (lk.b_device if lk.a_device == r["device"] else lk.a_device) if lk else None
    _add_peer_addresses(s, [r for r in rows if r.get("category") == "bgp" and r.get("link_id")])
    # keyed by (neighbour, device): the peer leaves out the alarm's own device, so one address
    # held by two devices is each one's peer, and a row must not take another device's answer
    named: dict[tuple[str, str], str | None] = {}
    for r in rows:
        neighbor = r.pop("neighbor", None)
        if not neighbor or r.get("category") not in ("bgp", "routing"):
            continue
        if is_ip(neighbor):
            r["peer_address"] = r.get("peer_address") or neighbor
        if not r["peer"]:
            key = (neighbor, r["device"])
            if key not in named:
                named[key] = _device_of(s, neighbor, r["device"])
            r["peer"] = named[key]


def _device_of(s: Session, neighbor: str, device: str) -> str | None:
    """The inventory device a neighbour stands for: the one other device holding the address,
    else the device of that name (an IS-IS system name, in any case or without its domain)."""
    if is_ip(neighbor):
        owners = [o.name for o in owners_of(s, neighbor) if o.name != device]
        return owners[0] if len(owners) == 1 else None
    found = resolve_device(s, neighbor, "")
    return found.name if s.get(m.Device, found.name) is not None else None


def _add_peer_addresses(s: Session, rows: list[Row]) -> None:
    """A BGP alarm names its neighbour's address: the far end of the session over its link."""
    ids = {r["link_id"] for r in rows}
    if not ids:
        return
    bt = _cols(m.BgpSession)
    sessions = s.connection().execute(core_select(*bt).where(bt.link_id.in_(ids))).all()
    far = {(b.link_id, b.a_device): b.b_ip for b in sessions}
    far.update({(b.link_id, b.b_device): b.a_ip for b in sessions})
    for r in rows:
        r["peer_address"] = far.get((r["link_id"], r["device"])) or None
