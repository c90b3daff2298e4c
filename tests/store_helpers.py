"""Shared pieces of the tests that fill an empty store (inventory import, NAPALM discovery): a
fresh SQLite store of the test's own, and a dump of everything in it, to compare two runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Engine

from netopsai.store.engine import engine_for


def empty_store(tmp_path: Path) -> Engine:
    return engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")


def dump(engine: Engine) -> str:
    """The whole database as SQL, row by row."""
    with sqlite3.connect(str(engine.url.database)) as conn:
        return "\n".join(conn.iterdump())
