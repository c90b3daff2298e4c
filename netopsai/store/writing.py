"""The queued writer's own engine (netopsai.store.writer): how it opens the store, which of
the store's errors it waits out, and how it records the spool's mark."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event, insert, update
from sqlalchemy.exc import OperationalError

from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.engine import create_all
from netopsai.store.spool import Position

BUSY_MS = 200  # short: a locked store is retried by us, so the receivers' queue keeps moving
_MARK: Table = m.SpoolMark.__table__  # type: ignore[attr-defined]


def writer_engine(url: str, durable: bool = True) -> Engine:
    """Our own engine: SQLite transactions begin IMMEDIATE (take the write lock first, so a
    batch never fails half-way on a read-to-write upgrade) with a short busy timeout. Not
    `durable` (a spool without fsync: a power cut may cost the last events anyway), a commit
    is not flushed to the disk (synchronous=NORMAL: a killed process still loses nothing)."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    eng = create_engine(url, connect_args={"check_same_thread": False})

    @event.listens_for(eng, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        cur.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        cur.close()

    @event.listens_for(eng, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return eng


def is_locked(exc: OperationalError) -> bool:
    """Worth retrying: SQLite's lock, or a database connection that dropped."""
    text = str(exc.orig).lower()
    return exc.connection_invalidated or "locked" in text or "busy" in text


def create_tables(engine: Engine, wait_s: float) -> None:
    """The store's tables (RawEvent may be new), waiting out a lock held at start-up."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            create_all(engine)
            return
        except OperationalError as exc:
            if not is_locked(exc) or time.monotonic() > deadline:
                raise NetopsError(f"cannot prepare the store: {exc.orig}") from None
            time.sleep(0.2)


def save_mark(conn: Connection, name: str, mark: Position) -> None:
    """The spool's mark, in the caller's transaction: an update, an insert the first time.
    Core statements (compiled once) where the ORM's `merge` built and validated a SpoolMark
    model and read it back on every batch."""
    values = {"segment": mark.segment, "offset": mark.offset}
    if conn.execute(update(_MARK).where(_MARK.c.name == name).values(values)).rowcount == 0:
        conn.execute(insert(_MARK).values(name=name, **values))
