"""The store's schema, versioned with Alembic (migrations/). `upgrade(engine)` brings any store
to this release's schema keeping its rows: a new store gets every revision; a store made before
versioning gets the declared tables and columns the way release 1 added them (rows kept) and is
stamped at HEAD. SQLite stores are upgraded when opened; a PostgreSQL
store with tables only by `netopsai db upgrade` (a team upgrades its shared database on
purpose, not whichever process starts first; an empty one is simply created).

Alembic costs half a second to import: a store already at HEAD is recognised with one query and
no Alembic at all (every CLI call opens the store)."""

from __future__ import annotations

import threading
from importlib import resources
from typing import Any

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DatabaseError

from netopsai.common.errors import NetopsError

HEAD = "0008"  # the newest revision in migrations/versions (a test keeps the two equal)
_done: set[str] = set()  # stores found or brought up to date by this process (by url)
_lock = threading.Lock()


def _config(connection: Any) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("netopsai.store") / "migrations"))
    cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    from alembic.script import ScriptDirectory

    return str(ScriptDirectory.from_config(_config(None)).get_current_head())


def current(engine: Engine) -> str | None:
    """The store's revision (None: unversioned or empty)."""
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DatabaseError:  # no version table yet
        return None


def history() -> list[tuple[str, str]]:
    """(revision, what it does) oldest first."""
    from alembic.script import ScriptDirectory

    revs = list(ScriptDirectory.from_config(_config(None)).walk_revisions())[::-1]
    return [(r.revision, (r.doc or "").splitlines()[0]) for r in revs]


def upgrade(engine: Engine, *, explicit: bool = False) -> str:
    """Bring the store to HEAD; returns the revision it is at. A PostgreSQL store behind HEAD
    is upgraded only when `explicit` (netopsai db upgrade); otherwise a NetopsError says so."""
    url = str(engine.url)
    with _lock:
        if url in _done:
            return HEAD
        rev = current(engine)
        if rev != HEAD:
            empty = rev is None and not inspect(engine).get_table_names()
            if engine.dialect.name != "sqlite" and not (explicit or empty):
                raise NetopsError(f"the store's schema is at {rev or 'nothing'}, this release needs "
                                  f"{HEAD}: run `netopsai db upgrade` once")
            _migrate(engine, rev)
        _done.add(url)
        return HEAD


def forget(engine: Engine) -> None:
    """The store was emptied: check it again at the next upgrade."""
    with _lock:
        _done.discard(str(engine.url))


def _migrate(engine: Engine, rev: str | None) -> None:
    from alembic import command

    if rev is None and inspect(engine).get_table_names():
        # made before versioning (or by create_all): make its tables the declared ones the way
        # release 1 did (new tables, new nullable/defaulted columns; rows kept), then record it
        from sqlmodel import SQLModel

        from netopsai.store.engine import add_new_columns

        add_new_columns(engine)
        SQLModel.metadata.create_all(engine)
        with engine.begin() as conn:
            command.stamp(_config(conn), "head")
        return
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")


def is_store(engine: Engine) -> bool:
    """A netopsai store (versioned, or release 1's): not some other SQLite file of ours, such
    as incident memory's."""
    have = set(inspect(engine).get_table_names())
    return "alembic_version" in have or "alarm" in have
