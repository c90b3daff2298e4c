"""Engine and session factory: SQLite in NETOPSAI_HOME by default, any SQLAlchemy URL by DATABASE_URL."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import Engine, event, insert, inspect
from sqlmodel import Session, SQLModel, create_engine, select

from netopsai.config.settings import StoreSettings, private_dir
from netopsai.store import tables as models


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL lets readers (the app) run while a writer (poll, inject) works.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


@lru_cache(maxsize=8)
def engine_for(url: str) -> Engine:
    if url.startswith("sqlite"):
        eng = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(eng, "connect", _sqlite_pragmas)
    else:
        eng = create_engine(url, pool_pre_ping=True)
    file = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else None
    if file is not None and os.path.exists(file):
        from netopsai.store.migrate import is_store, upgrade

        if is_store(eng):
            upgrade(eng)  # an SQLite store gets this release's schema when opened
        else:  # another database of ours (incident memory): its tables gain new columns
            add_new_columns(eng)
    return eng


def get_engine(settings: StoreSettings | None = None) -> Engine:
    settings = settings or StoreSettings()
    make_store_dir(settings)
    return engine_for(settings.url)


def make_store_dir(settings: StoreSettings) -> None:
    """The SQLite file's folder: NETOPSAI_HOME is created closed to other users; a file named
    by DATABASE_URL elsewhere gets its folder as any program would make it."""
    path = settings.sqlite_path
    if path is None:
        return
    if path.parent == settings.home:
        private_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)


def create_all(engine: Engine) -> None:
    """Bring the store's schema to this release's (netopsai.store.migrate: Alembic), keeping its
    rows. Cheap after the first call for a store in a process."""
    from netopsai.store.migrate import upgrade

    upgrade(engine)


def add_new_columns(engine: Engine) -> None:
    """A store made before versioned migrations gains the columns added since it was made
    (every new column is nullable or has a plain default), keeping its rows."""
    with engine.begin() as conn:  # one connection: the ingest writer's takes the write lock
        insp = inspect(conn)
        tables = set(insp.get_table_names())
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in tables:
                continue
            have = {c["name"] for c in insp.get_columns(table.name)}
            new = [c for c in table.columns if c.name not in have]
            for col in new:
                conn.exec_driver_sql(_add_column(engine, table.name, col))
            if new:
                for index in table.indexes:
                    index.create(conn, checkfirst=True)


def _add_column(engine: Engine, table: str, col: Any) -> str:
    kind = col.type.compile(dialect=engine.dialect)
    default = col.default.arg if col.default is not None and col.default.is_scalar else None
    prep = engine.dialect.identifier_preparer
    ddl = f"ALTER TABLE {prep.quote(table)} ADD COLUMN {prep.quote(col.name)} {kind}"
    if isinstance(default, bool | int | float):
        ddl += f" DEFAULT {int(default) if isinstance(default, bool) else default}"
    elif isinstance(default, str):
        ddl += " DEFAULT '" + default.replace("'", "''") + "'"
    return ddl


def drop_all(engine: Engine) -> None:
    """Every table and the schema's version: the next create_all starts from nothing."""
    from netopsai.store.migrate import forget

    SQLModel.metadata.drop_all(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
    forget(engine)


def bulk_insert(session: Session, table: type[SQLModel], rows: Iterable[Mapping[str, Any]]) -> int:
    """Core executemany: ~10x faster than ORM adds for the lab's hundreds of thousands of rows."""
    batch = list(rows)
    if batch:
        session.execute(insert(table.__table__), batch)  # type: ignore[attr-defined]
    return len(batch)


def get_meta(session: Session, key: str, default: str | None = None) -> str | None:
    row = session.get(models.Meta, key)
    return row.value if row else default


def set_meta(session: Session, key: str, value: str) -> None:
    row = session.get(models.Meta, key)
    if row is None:
        session.add(models.Meta(key=key, value=value))
    else:
        row.value = value
        session.add(row)


def has_lab(engine: Engine) -> bool:
    from sqlalchemy import inspect

    if not inspect(engine).has_table("meta"):
        return False
    with Session(engine) as s:
        return s.exec(select(models.Meta).where(models.Meta.key == "clock")).first() is not None
