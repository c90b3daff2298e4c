"""The store's schema, versioned with Alembic (migrations/). `upgrade(engine)` brings any store
to this release's schema keeping its rows: a new store gets every revision; a store made before
versioning is stamped at the newest revision whose tables it has (release 1's: 0001), given the
columns that revision has, then upgraded. SQLite stores are upgraded when opened; a PostgreSQL
store with tables only by `netopsai db upgrade` (a team upgrades its shared database on
purpose, not whichever process starts first; an empty one is simply created).

Alembic costs half a second to import: a store already at HEAD is recognised with one query and
no Alembic at all (every CLI call opens the store)."""

from __future__ import annotations

import functools
import threading
from importlib import resources
from typing import Any

from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DatabaseError

from netopsai.errors import NetopsError

HEAD = "0003"  # the newest revision in migrations/versions (a test keeps the two equal)
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


def upgrade(engine: Engine, *, explicit: bool = False, only_filled: bool = False) -> str | None:
    """Bring the store to HEAD; returns the revision it is at. A PostgreSQL store behind HEAD
    is upgraded only when `explicit` (netopsai db upgrade); otherwise a NetopsError says so.
    `only_filled`: leave a store with no tables at all as it is (opening is not creating)."""
    url = str(engine.url)
    with _lock:
        if url in _done:
            return HEAD
        rev = current(engine)
        empty = rev is None and not inspect(engine).get_table_names()
        if empty and only_filled:
            return None
        if rev != HEAD:
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

    from netopsai.store.engine import add_new_columns

    stamp = None
    if rev is None:
        have = set(inspect(engine).get_table_names())
        found = [r for r, _ in history() if set(tables_at(r)) <= have]
        if have and found:  # made before versioning: stamp where its tables say it is
            stamp = found[-1]
            add_new_columns(engine, tables_at(stamp))
    with engine.begin() as conn:  # stamp and upgrade together: a failure leaves neither
        if stamp:
            command.stamp(_config(conn), stamp)
        command.upgrade(_config(conn), "head")


@functools.cache
def tables_at(rev: str) -> dict[str, set[str]]:
    """The tables and columns a store has at `rev`: the revisions up to it applied to an empty
    in-memory database and read back."""
    from alembic import command
    from sqlalchemy import create_engine

    with create_engine("sqlite://").begin() as conn:
        command.upgrade(_config(conn), rev)
        insp = inspect(conn)
        return {t: {c["name"] for c in insp.get_columns(t)}
                for t in insp.get_table_names() if t != "alembic_version"}
