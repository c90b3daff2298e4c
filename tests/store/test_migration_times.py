"""Migration 0008: a store the ingest's batches wrote before cb91ec5 (times as sqlite3's adapter
wrote them, `+00:00` and a device's `+02:00` wall time) is rewritten to the ORM's form for the
same instants, so a window starting at an event's exact second finds it; rows and instants kept;
a second run and a downgrade change nothing. On PostgreSQL the columns are timestamptz and the
migration leaves them alone."""

from __future__ import annotations

import importlib
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import Connection, Engine, create_engine, inspect, text
from sqlmodel import Session, col, select

from netopsai.common.timewin import Window
from netopsai.store import migrate
from netopsai.store import tables as m
from netopsai.store.events import StoreEvents
from netopsai_testkit.peers.postgres import fresh_database, pg_url

__all__ = ["pg_url"]

M0008 = importlib.import_module("netopsai.store.migrations.versions.0008_utc_time_strings")
T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC)
EAST = timezone(timedelta(hours=2))
ORM_FORM = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}")
HOUR = Window(start=T0, end=T0 + timedelta(hours=1))


def old(t: datetime) -> str:
    """A time as sqlite3's default adapter wrote it (its adapt_datetime: isoformat(" "))."""
    return t.isoformat(" ")


def insert_old(conn: Connection, table: str, row: dict[str, Any]) -> None:
    """As the old batched insert did: plain SQL on the driver's cursor, times in the adapter's form."""
    names = ", ".join(f'"{c}"' for c in row)
    conn.exec_driver_sql(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(row))})',
                         tuple(old(v) if isinstance(v, datetime) else v for v in row.values()))


def event(message: str, received: datetime, at: datetime | None, device_time: datetime | None = None
          ) -> dict[str, Any]:
    return {"received_at": received, "at": at, "device_time": device_time, "source": "syslog",
            "host": "198.18.0.1", "device": "leaf1", "message": message, "count": 1}


def old_store(tmp_path: Path) -> Engine:
    """A store at 0007 holding rows the old batched insert wrote, and one the ORM wrote."""
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:
        command.upgrade(migrate._config(conn), "0007")
    with engine.begin() as conn:
        insert_old(conn, "rawevent", event("on the second", T0, T0))
        insert_old(conn, "rawevent", event("in another zone", T0 + timedelta(seconds=1, microseconds=250_000),
                                           (T0 + timedelta(seconds=1)).astimezone(EAST),
                                           (T0 + timedelta(seconds=1.5)).astimezone(EAST)))
        # an offset SQLite's datetime() refuses (beyond +14:00): left to the Python pass
        insert_old(conn, "rawevent", event("before the window", T0 - timedelta(seconds=1),
                                           T0 - timedelta(seconds=1),
                                           T0.astimezone(timezone(timedelta(hours=15)))))
        for at in (T0, T0.astimezone(EAST)):
            insert_old(conn, "interfaceevent", {"device": "leaf1", "interface": "Ethernet1", "at": at,
                                                "state": "down", "reason": ""})
        insert_old(conn, "alarm", {"kind": "link_down", "category": "link", "severity": "major",
                                   "device": "leaf1", "site": "", "raised_at": T0.astimezone(EAST),
                                   "cleared_at": T0 + timedelta(seconds=5), "state": "closed",
                                   "message": "", "source": "syslog", "impact": "none",
                                   "traffic_lost": False})
    with Session(engine) as s:  # a row the ORM wrote: its times are in the right form already
        s.add(m.RawEvent(received_at=T0 + timedelta(seconds=2), at=T0 + timedelta(seconds=2),
                         source="syslog", host="198.18.0.1", device="leaf1", message="by the ORM"))
        s.commit()
    return engine


def stored(engine: Engine) -> dict[tuple[str, str, int], str]:
    """Every time value of the migrated tables as stored: (table, column, rowid) -> text."""
    with engine.connect() as conn:
        return {(t, c, rowid): v for t, cols in M0008.TABLES.items() for c in cols
                for rowid, v in conn.execute(text(f'SELECT rowid, "{c}" FROM "{t}" WHERE "{c}" IS NOT NULL'))}


def instant(value: str) -> datetime:
    t = datetime.fromisoformat(value)
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t: conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()
                for t in inspect(conn).get_table_names()}


def found(engine: Engine) -> tuple[list[str], int, int]:
    """What the reads find: events of the hour from T0, alarms of the hour from their clear,
    interface changes at exactly T0."""
    events = [r["message"] for r in StoreEvents(engine).events(None, HOUR)[0]]
    cleared = Window(start=T0 + timedelta(seconds=5), end=T0 + timedelta(hours=1))
    alarms = len(StoreEvents(engine).alarms(None, "all", None, None, cleared))
    with Session(engine) as s:
        at = col(m.InterfaceEvent.at)
        ifevents = len(list(s.exec(select(m.InterfaceEvent).where(at >= T0, at <= T0))))
    return events, alarms, ifevents


def test_an_old_store_migrated_is_read_right_with_every_row_and_instant_kept(tmp_path: Path) -> None:
    engine = old_store(tmp_path)
    before, rows = stored(engine), counts(engine)
    assert before[("rawevent", "at", 1)] == "2026-11-27 10:00:00+00:00"  # the old form, as built
    assert before[("alarm", "raised_at", 1)] == "2026-11-27 12:00:00+02:00"
    # on the old form the reads miss: the event at T0 (+00:00 sorts before .000000), the one
    # whose +02:00 wall time lies after the window, the alarm cleared at the window's start (and
    # raised at a wall time hours after its instant), both interface changes at T0
    assert found(engine) == (["by the ORM"], 0, 0)
    assert migrate.upgrade(engine) == "0008" == migrate.current(engine)
    after = stored(engine)
    assert found(engine) == (["on the second", "in another zone", "by the ORM"], 1, 2)
    assert counts(engine) == rows
    assert after.keys() == before.keys()
    assert {k: instant(v) for k, v in after.items()} == {k: instant(v) for k, v in before.items()}
    assert all(ORM_FORM.fullmatch(v) for v in after.values()), after
    orm_row = [k for k in before if k[0] == "rawevent" and k[2] == 4]
    assert orm_row and all(after[k] == before[k] for k in orm_row)  # the ORM's row untouched
    with Session(engine) as s:  # read back by the ORM as the instants the old rows meant
        ev = s.exec(select(m.RawEvent).where(m.RawEvent.message == "in another zone")).one()
        alarm = s.exec(select(m.Alarm)).one()
    assert ev.at == T0 + timedelta(seconds=1) and ev.device_time == T0 + timedelta(seconds=1.5)
    assert ev.received_at == T0 + timedelta(seconds=1, microseconds=250_000)
    assert alarm.raised_at == T0 and alarm.cleared_at == T0 + timedelta(seconds=5)


def test_the_rewrite_runs_once_and_a_downgrade_keeps_the_times(tmp_path: Path) -> None:
    engine = old_store(tmp_path)
    with engine.connect() as conn:  # every old value is rewritten: 8 of rawevent, 2 + 2
        assert M0008.rewrite(conn) == 12
        conn.rollback()
    migrate.upgrade(engine)
    migrated = stored(engine)
    with engine.begin() as conn:
        assert M0008.rewrite(conn) == 0  # a second run finds nothing in the old form
    assert stored(engine) == migrated
    with engine.begin() as conn:
        command.downgrade(migrate._config(conn), "0007")
    assert migrate.current(engine) == "0007" and stored(engine) == migrated
    with engine.begin() as conn:
        command.upgrade(migrate._config(conn), "head")
    assert migrate.current(engine) == "0008" and stored(engine) == migrated


def test_a_value_naming_no_time_is_left_as_it_is() -> None:
    assert M0008.orm_form("not a time") is None and M0008.orm_form("") is None
    assert M0008.orm_form("2026-11-27 10:00:00.000000") is None  # the ORM's form already
    assert M0008.orm_form("2026-11-27 10:00:00") == "2026-11-27 10:00:00.000000"
    assert M0008.orm_form("2026-11-27 01:00:00.5-09:00:30") == "2026-11-27 10:00:30.500000"


def test_postgresql_stores_the_instants_so_the_migration_leaves_them(pg_url: str) -> None:
    url = fresh_database(pg_url, "times0008")
    engine = create_engine(url)
    with engine.begin() as conn:
        command.upgrade(migrate._config(conn), "0007")
    with engine.connect() as conn:
        types = {(t, c): conn.execute(text(
            "SELECT data_type FROM information_schema.columns WHERE table_name = :t AND column_name = :c"),
            {"t": t, "c": c}).scalar_one() for t, cols in M0008.TABLES.items() for c in cols}
    assert set(types.values()) == {"timestamp with time zone"}, types
    with engine.begin() as conn:  # as the old COPY did: the aware times handed to the server
        raw = conn.connection.driver_connection
        with raw.cursor() as cur, cur.copy(  # type: ignore[union-attr]
                'COPY rawevent (received_at, at, source, host, message, count) FROM STDIN') as cp:
            cp.write_row([T0, T0.astimezone(EAST), "syslog", "198.18.0.1", "on the second", 1])
    with engine.connect() as conn:
        before = conn.execute(text("SELECT at FROM rawevent")).scalar_one()
    with engine.begin() as conn:
        command.upgrade(migrate._config(conn), "head")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT at FROM rawevent")).scalar_one() == before == T0
    assert [r["message"] for r in StoreEvents(engine).events(None, HOUR)[0]] == ["on the second"]
    engine.dispose()
