"""The one writer of inventory rows from real sources: NAPALM discovery, NetBox CSV, YAML specs.

Every source builds an `InventoryBatch` of plain rows (the columns of netopsai.store.tables) and
hands it to `sync_inventory`, which upserts it in one transaction and marks the store's
network as real (Meta `network=real`, `source=napalm|netbox|yaml`). Keys: sites, PoDs and
devices by name, segments by prefix, host addresses by IP, interfaces by (device, name), links
by their two ends in either order. Columns a row leaves out keep their stored values. An
interface row's `addresses` (every address it holds; else its `ip`) replace the stored ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from ipaddress import ip_interface
from typing import Any

from sqlalchemy import Engine, bindparam, delete, select, update
from sqlmodel import Session, SQLModel

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import iso
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert, create_all, get_meta, set_meta
from netopsai.store.network import NETWORK_KEY  # "lab" (the simulator) or "real"

Row = dict[str, Any]
SOURCE_KEY = "source"  # Meta key: where a real inventory came from, e.g. "napalm+netbox"

# (table, key columns) in write order: parents before the rows that name them
KEYED: tuple[tuple[type[SQLModel], tuple[str, ...]], ...] = (
    (m.Site, ("name",)), (m.Pod, ("name",)), (m.Device, ("name",)),
    (m.Segment, ("cidr",)), (m.HostAddress, ("ip",)),
)


@dataclass
class InventoryBatch:
    """Rows to upsert, as dicts of model columns (a subset is fine for updates)."""

    source: str
    sites: list[Row] = field(default_factory=list)
    pods: list[Row] = field(default_factory=list)
    segments: list[Row] = field(default_factory=list)
    devices: list[Row] = field(default_factory=list)
    interfaces: list[Row] = field(default_factory=list)
    links: list[Row] = field(default_factory=list)
    hosts: list[Row] = field(default_factory=list)
    # devices whose interface list is complete here: stored interfaces not in it are removed
    authoritative_interfaces: set[str] = field(default_factory=set)
    # device columns written only when the device is new (discovery guesses role/site and
    # must not overwrite what an inventory import said)
    device_insert_only: set[str] = field(default_factory=set)

    def rows_for(self, table: type[SQLModel]) -> list[Row]:
        return {m.Site: self.sites, m.Pod: self.pods, m.Device: self.devices,
                m.Segment: self.segments, m.HostAddress: self.hosts}[table]


@dataclass
class SyncReport:
    added: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        parts = [f"{t}: +{n}" + (f" ~{self.updated.get(t, 0)}" if self.updated.get(t) else "")
                 for t, n in self.added.items()]
        parts += [f"{t}: -{n}" for t, n in self.removed.items() if n]
        return ", ".join(parts)


def link_kind(role_a: str, role_b: str, site_a: str = "", site_b: str = "") -> str:
    """Classify a link the way the lab does: host access, fabric, border-DCI backbone, DCI."""
    roles = {role_a, role_b}
    if "host" in roles:
        return "host"
    if roles == {"dci"} and site_a != site_b:
        return "dci"
    if "dci" in roles:
        return "backbone"
    return "fabric"


def network_kind(session: Session) -> str:
    """'lab', 'real' or 'empty': a store made by `lab init` has a lab clock but no network key."""
    kind = get_meta(session, NETWORK_KEY)
    if kind:
        return kind
    return "lab" if get_meta(session, "clock") else "empty"


def sync_inventory(engine: Engine, batch: InventoryBatch, replace: bool = False,
                   force: bool = False) -> SyncReport:
    """Upsert the batch in one transaction; `replace` first empties the whole store, which a
    batch with no devices (a header-only export) may do only with `force`."""
    if replace and not batch.devices and not force:
        raise NetopsError("the files hold no devices: --replace would leave an empty inventory; "
                          "add --force if that is what you want")
    create_all(engine)
    with Session(engine) as s:
        if replace:
            for table in reversed(SQLModel.metadata.sorted_tables):
                s.execute(delete(table))
        elif network_kind(s) == "lab":
            raise NetopsError("the store holds the embedded lab; import with --replace to use a "
                              "real network instead, or point NETOPSAI_HOME at another store")
        try:
            report = apply_batch(s, batch)
            mark_real(s, batch.source)
            s.commit()
        except Exception:
            s.rollback()
            raise
    return report


def mark_real(session: Session, source: str) -> None:
    """Mark the store as a real network; sources accumulate (a poll, then a discovery ...)."""
    set_meta(session, NETWORK_KEY, "real")
    sources = set((get_meta(session, SOURCE_KEY) or "").split("+")) | set(source.split("+"))
    set_meta(session, SOURCE_KEY, "+".join(sorted(sources - {""})))
    set_meta(session, "inventory_updated", iso(datetime.now(UTC)))


def apply_batch(session: Session, batch: InventoryBatch) -> SyncReport:
    """Write the batch into an open session (the caller commits)."""
    report = SyncReport()
    for table, keys in KEYED:
        insert_only = batch.device_insert_only if table is m.Device else set()
        _upsert_keyed(session, table, keys, batch.rows_for(table), insert_only, report)
    _upsert_interfaces(session, batch, report)
    _upsert_links(session, batch.links, report)
    return report


@lru_cache(maxsize=16)
def _shape(table: type[SQLModel]) -> tuple[tuple[tuple[str, Any], ...], frozenset[str]]:
    """(column defaults, required columns) of a table model."""
    defaults, required = [], set()
    for name, f in table.model_fields.items():
        if f.is_required():
            required.add(name)
        else:
            defaults.append((name, f.get_default(call_default_factory=True)))
    return tuple(defaults), frozenset(required)


def _full_row(table: type[SQLModel], row: Row) -> Row:
    """A row with every column and defaults filled. Not model_validate: SQLModel's validation of
    table models costs ~1 ms a row, 40 s for an imported fabric of 40,000 rows."""
    defaults, required = _shape(table)
    full = {**dict(defaults), **row}
    missing = sorted(c for c in required if full.get(c) is None)
    if missing:
        raise ValueError(f"{table.__name__} row {row!r} lacks {', '.join(missing)}")
    return full


def _upsert_keyed(session: Session, table: type[SQLModel], keys: tuple[str, ...],
                  rows: Iterable[Row], insert_only: set[str], report: SyncReport) -> None:
    tbl = table.__table__  # type: ignore[attr-defined]
    stored = {tuple(r[k] for k in keys): dict(r) for r in session.execute(select(tbl)).mappings()}
    new: dict[tuple[Any, ...], Row] = {}
    changed = 0
    for row in rows:
        key = tuple(row[k] for k in keys)
        if key in new:  # a later row for the same key refines the earlier one
            new[key] = _full_row(table, {**new[key], **row})
        elif key in stored:
            diff = {c: v for c, v in row.items()
                    if c not in insert_only and c not in keys and stored[key].get(c) != v}
            if diff:
                where = [tbl.c[k] == key[i] for i, k in enumerate(keys)]
                session.execute(update(tbl).where(*where).values(**diff))
                stored[key].update(diff)
                changed += 1
        else:
            new[key] = _full_row(table, row)
    bulk_insert(session, table, new.values())
    report.added[tbl.name] = len(new)
    report.updated[tbl.name] = changed


def _upsert_interfaces(session: Session, batch: InventoryBatch, report: SyncReport) -> None:
    tbl = m.Interface.__table__  # type: ignore[attr-defined]
    stored = {(r["device"], r["name"]): dict(r) for r in session.execute(select(tbl)).mappings()}
    seen: set[tuple[str, str]] = set()
    new: dict[tuple[str, str], Row] = {}
    changed = 0
    addresses: dict[tuple[str, str], list[str]] = {}
    for given in batch.interfaces:
        key = (given["device"], given["name"])
        row = {c: v for c, v in given.items() if c != "addresses"}
        every = given.get("addresses")  # all of them ([]: none any more), else its one `ip`
        if every is None and row.get("ip"):
            every = [row["ip"]]
        if every is not None:  # rows that name no address keep the stored ones
            addresses.setdefault(key, [])
            addresses[key] += [a for a in every if a not in addresses[key]]
        seen.add(key)
        if key in new:
            new[key] = _full_row(m.Interface, {**new[key], **row})
        elif key in stored:
            diff = {c: v for c, v in row.items() if c not in ("id", "device", "name")
                    and stored[key].get(c) != v}
            if diff:
                session.execute(update(tbl).where(tbl.c.id == stored[key]["id"]).values(**diff))
                changed += 1
        else:
            new[key] = {k: v for k, v in _full_row(m.Interface, row).items() if k != "id"}
    gone = [r["id"] for k, r in stored.items()
            if k[0] in batch.authoritative_interfaces and k not in seen]
    if gone:
        session.execute(delete(tbl).where(tbl.c.id.in_(gone)))
    bulk_insert(session, m.Interface, new.values())
    report.added["interface"], report.updated["interface"] = len(new), changed
    report.removed["interface"] = len(gone)
    removed = set(gone)
    _write_addresses(session, addresses, [k for k, r in stored.items() if r["id"] in removed])


def _write_addresses(session: Session, addresses: dict[tuple[str, str], list[str]],
                     gone: list[tuple[str, str]]) -> None:
    """Every address of each interface the batch gives addresses for: exactly those (an import
    lists them all), kept normalised (2001:DB8::1/64 is 2001:db8::1) so lookups meet; a removed
    interface's go with it."""
    tbl = m.InterfaceAddress.__table__  # type: ignore[attr-defined]
    drop = [{"d": d, "i": i} for d, i in [*addresses, *gone]]
    if drop:  # one executemany: a fabric has tens of thousands of ports
        session.connection().execute(delete(tbl).where(
            tbl.c.device == bindparam("d"), tbl.c.interface == bindparam("i")), drop)
    rows = []
    for (device, name), every in addresses.items():
        for text in every:
            try:
                addr = ip_interface(text)
            except ValueError:  # not an address (the source's validation let it through)
                continue
            prefix = addr.network.prefixlen if "/" in text else None
            rows.append({"device": device, "interface": name, "ip": addr.ip.compressed,
                         "prefixlen": prefix})
    bulk_insert(session, m.InterfaceAddress, rows)


def _ends(row: Row) -> frozenset[tuple[str, str]]:
    return frozenset({(row["a_device"], row["a_interface"]), (row["b_device"], row["b_interface"])})


def _upsert_links(session: Session, links: list[Row], report: SyncReport) -> None:
    """Links keyed by their two ends; interfaces at either end point back at the link."""
    tbl = m.Link.__table__  # type: ignore[attr-defined]
    stored = {_ends(dict(r)): dict(r) for r in session.execute(select(tbl)).mappings()}
    new: dict[frozenset[tuple[str, str]], Row] = {}
    changed = 0
    for row in links:
        key = _ends(row)
        if key in stored:
            diff = {c: v for c, v in row.items() if c in ("kind", "circuit_id", "provider", "status")
                    and stored[key].get(c) != v}
            if diff:
                session.execute(update(tbl).where(tbl.c.id == stored[key]["id"]).values(**diff))
                changed += 1
        elif key not in new:
            new[key] = {k: v for k, v in _full_row(m.Link, row).items() if k != "id"}
    bulk_insert(session, m.Link, new.values())
    report.added["link"], report.updated["link"] = len(new), changed
    if links:
        _point_interfaces_at_links(session)


def _point_interfaces_at_links(session: Session) -> None:
    ltbl, itbl = m.Link.__table__, m.Interface.__table__  # type: ignore[attr-defined]
    by_end: dict[tuple[str, str], int] = {}
    for r in session.execute(select(ltbl)).mappings():
        by_end[(r["a_device"], r["a_interface"])] = r["id"]
        by_end[(r["b_device"], r["b_interface"])] = r["id"]
    moves = []
    for r in session.execute(select(itbl.c.id, itbl.c.device, itbl.c.name, itbl.c.link_id)).mappings():
        link_id = by_end.get((r["device"], r["name"]))
        if link_id is not None and link_id != r["link_id"]:
            moves.append({"iid": r["id"], "lid": link_id})
    if moves:  # one executemany: an imported fabric has tens of thousands of ports
        session.connection().execute(
            update(itbl).where(itbl.c.id == bindparam("iid")).values(link_id=bindparam("lid")), moves)
