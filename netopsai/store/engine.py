"""Engine and session factory: SQLite in NETOPSAI_HOME by default, any SQLAlchemy URL by DATABASE_URL."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import Engine, event, insert, inspect
from sqlalchemy.engine import ExceptionContext, make_url
from sqlmodel import Session, SQLModel, create_engine, select

from netopsai.common.errors import NetopsError
from netopsai.config.settings import StoreSettings, private_dir
from netopsai.store import tables as models


class StoreUnreachable(NetopsError):
    """The database could not be opened or connected to at all: its URL (password hidden) and
    the driver's reason, one line. Not "no lab in the store": that would invite a re-init over
    real data that is only out of reach."""

    def __init__(self, url: str, reason: str) -> None:
        shown = make_url(url).render_as_string(hide_password=True)
        secret = make_url(url).password
        if secret:  # a driver may quote the DSN it was given
            reason = reason.replace(str(secret), "***")
        super().__init__(f"the database cannot be reached at {shown}: {reason}")


def _first_line(exc: BaseException) -> str:
    """The driver's reason without its hints and background links (psycopg adds a second
    line; SQLAlchemy a link)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return lines[0] if lines else type(exc).__name__


def _unreachable(ctx: ExceptionContext) -> None:
    """SQLAlchemy's handle_error hook: a failure to open a connection at all (refused, no such
    file, not a database) becomes StoreUnreachable. A lock or a busy store is left alone: the
    writers retry those."""
    if ctx.connection is not None or ctx.engine is None:
        return  # an error on an open connection: a statement's, not the store's reachability
    reason = _first_line(ctx.original_exception)
    if "locked" in reason.lower() or "busy" in reason.lower():
        return
    raise StoreUnreachable(ctx.engine.url.render_as_string(hide_password=False), reason)


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
    event.listen(eng, "handle_error", _unreachable)
    file = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else None
    if file is not None and os.path.exists(file):
        from netopsai.store.migrate import is_store, upgrade

        if is_store(eng):
            upgrade(eng)  # an SQLite store gets this release's schema when opened
        else:  # another database of ours (incident memory): its tables gain new columns
            add_new_columns(eng)
    return eng


def check_reachable(engine: Engine) -> Engine:
    """The engine, once a connection opens (else StoreUnreachable, through the hook): for a
    command that would otherwise fail deep inside a worker with the driver's words."""
    with engine.connect():
        pass
    return engine


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
    try:
        if path.parent == settings.home:
            private_dir(path.parent)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where the folder should be, a read-only disk
        raise StoreUnreachable(settings.url, f"cannot make its folder {path.parent}: "
                               f"{exc.strerror or exc}") from None


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
