"""Lab life cycle: init (generate + history), the lab clock, the state version, reset."""

from __future__ import annotations

import random
import sqlite3
import uuid
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from netopsai.common.timewin import as_utc, iso, parse_time
from netopsai.lab.info import LabInfo, lab_info
from netopsai.lab.jobs import lab_jobs
from netopsai.lab.loglines import mark_port_log
from netopsai.lab.noise import noise_rows
from netopsai.lab.spec import get_scale, load_spec
from netopsai.lab.topology import build_topology
from netopsai.store import tables as models
from netopsai.store.engine import bulk_insert, create_all, drop_all, get_meta, set_meta


def floor_5min(t: datetime) -> datetime:
    t = t.replace(second=0, microsecond=0)
    return t - timedelta(minutes=t.minute % 5)


def init_lab(engine: Engine, spec_name: str = "default", scale: str = "small", seed: int = 7,
             now: datetime | None = None) -> LabInfo:
    """Build the lab from a spec: inventory, a week of background history up to the clock."""
    spec = load_spec(spec_name)
    sc = get_scale(spec, scale)
    clock = as_utc(now) if now else floor_5min(datetime.now(UTC))
    topo = build_topology(spec, sc, seed, clock)
    drop_all(engine)
    create_all(engine)
    hist = spec.history
    noise = noise_rows(random.Random(seed + 1), topo.devices, topo.links,
                       clock - timedelta(days=hist.days), clock, alarms=hist.alarms,
                       changes=hist.changes, flaps=hist.flaps, ticket_base=1000)
    with Session(engine) as s:
        for table, rows in ((models.Site, topo.sites), (models.Pod, topo.pods),
                            (models.Segment, topo.segments), (models.Device, topo.devices),
                            (models.Interface, topo.interfaces), (models.Link, topo.links),
                            (models.HostAddress, topo.hosts), (models.BgpSession, topo.bgp),
                            (models.Alarm, noise["alarms"]), (models.Change, noise["changes"]),
                            (models.InterfaceEvent, noise["events"])):
            bulk_insert(s, table, rows)
        mark_port_log(s)  # the background flaps stay unlogged: only faults log (loglines.py)
        jobs = lab_jobs(topo.devices, clock, seed)  # GPU PoDs only: none in the default spec
        if jobs:
            bulk_insert(s, models.Job, jobs)
        for key, value in (("spec", spec_name), ("scale", scale), ("seed", str(seed)),
                           ("clock", iso(clock)), ("init_clock", iso(clock))):
            set_meta(s, key, value)
        set_meta(s, "version", uuid.uuid4().hex)
        set_meta(s, "generation", uuid.uuid4().hex)  # a new set of names: see generation()
        s.commit()
    _snapshot(engine)
    return lab_info(engine)


# Meta keys that change when the store's set of names does: a lab init, an inventory import or
# a discovery (store/inventory_sync.py), the namespace lab; not an injection, a reset or a poll
GENERATION_KEYS = ("generation", "spec", "scale", "seed", "init_clock", "inventory_updated",
                   "network", "source", "netns_lab")


def generation(engine: Engine) -> str:
    """What the store's inventory is, in one string: a long-running server that keeps the
    names it read (the planner's vocabulary) compares it to know when to read them again.
    "" for a store with no tables yet."""
    try:
        with Session(engine) as s:
            rows = s.exec(select(models.Meta).where(models.Meta.key.in_(GENERATION_KEYS))).all()  # type: ignore[attr-defined]
    except OperationalError:
        return ""
    return "|".join(f"{r.key}={r.value}" for r in sorted(rows, key=lambda r: r.key))


def touch(session: Session) -> None:
    """A new state version: caches keyed by the old one (forwarding tables) are stale."""
    set_meta(session, "version", uuid.uuid4().hex)


def set_clock(session: Session, clock: datetime) -> None:
    set_meta(session, "clock", iso(clock))


def _db_path(engine: Engine) -> Path | None:
    db = engine.url.database
    return Path(db) if engine.url.get_backend_name() == "sqlite" and db else None


def _snapshot(engine: Engine) -> None:
    """Keep a copy of the healthy lab beside the database so 'lab reset' is a file copy."""
    path = _db_path(engine)
    if path is None:
        return
    _copy(path, Path(f"{path}.healthy"))


def _copy(src_path: Path, dst_path: Path) -> None:
    """One SQLite file copied onto another through the backup API. Both connections are closed
    here: `with sqlite3.connect()` only commits, and a connection is in a reference cycle (its
    statement cache), so it stayed open until the cyclic GC ran: two descriptors per lab init or
    reset, piling up in a long-lived process."""
    with closing(sqlite3.connect(src_path)) as src, closing(sqlite3.connect(dst_path)) as dst:
        src.backup(dst)


def reset_lab(engine: Engine) -> LabInfo:
    """Back to the healthy lab of the last init."""
    info = lab_info(engine)
    path = _db_path(engine)
    snap = Path(f"{path}.healthy") if path else None
    if snap is None or not snap.exists():
        with Session(engine) as s:
            init_clock = get_meta(s, "init_clock") or iso(info.clock)
        return init_lab(engine, info.spec, info.scale, info.seed,
                        parse_time(init_clock, datetime.now(UTC)))
    engine.dispose()
    _copy(snap, path)  # type: ignore[arg-type]
    with Session(engine) as s:
        touch(s)
        s.commit()
    return lab_info(engine)

