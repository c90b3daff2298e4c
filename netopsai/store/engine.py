"""Engine and session factory: SQLite in NETOPSAI_HOME by default, any SQLAlchemy URL by DATABASE_URL."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from sqlalchemy import Engine, event, insert
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
    SQLModel.metadata.create_all(engine)


def drop_all(engine: Engine) -> None:
    SQLModel.metadata.drop_all(engine)


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
