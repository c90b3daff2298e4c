"""The store's schema under Alembic: the migrations build exactly the tables the code declares;
a store made before versioning (release 1; one also missing a column an even older one lacked)
is stamped and upgraded in place with every row kept; `netopsai db` reports and upgrades."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, Integer, inspect, text
from sqlmodel import SQLModel

from netopsai.lab.manage import init_lab
from netopsai.store import migrate
from netopsai.store.engine import create_all, engine_for


def test_the_migrations_build_the_declared_schema(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'new.db'}")
    assert migrate.upgrade(engine) == migrate.HEAD == migrate.head() == migrate.current(engine)
    assert schema_diffs(engine) == []  # a model changed without a migration shows up here
    assert migrate.HEAD == "0008"  # 0008: batched times rewritten in the ORM's form
    insp = inspect(engine)
    assert {i["name"] for i in insp.get_indexes("proberesult")} == {"ix_probe_at", "ix_probe_pair_at"}


def schema_diffs(engine: Engine) -> list[Any]:
    """What the store's tables lack of the declared ones; on SQLite, a wider integer is no
    difference (0003 leaves SQLite's INTEGER columns alone: they hold 64 bits already)."""
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                 SQLModel.metadata)

    def same(d: Any) -> bool:
        return (engine.dialect.name == "sqlite" and isinstance(d, list) and d[0][0] == "modify_type"
                and isinstance(d[0][5], Integer) and isinstance(d[0][6], Integer))
    return [d for d in diffs if not same(d)]


def counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t: conn.execute(text(f'SELECT count(*) FROM "{t}"')).scalar_one()
                for t in inspect(conn).get_table_names() if t != "alembic_version"}


def test_a_release_1_store_is_upgraded_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    engine = engine_for(f"sqlite:///{path}")
    init_lab(engine, "default", "small", 7)
    with engine.begin() as conn:  # back to release 1: no version table, none of 0002's tables
        for t in ("alembic_version", "alarmack", "apitoken"):
            conn.execute(text(f'DROP TABLE "{t}"'))
        conn.execute(text("ALTER TABLE alarm DROP COLUMN interface"))  # an older store's gap
    before = counts(engine)
    assert before["alarm"] > 0 and before["device"] > 100
    engine.dispose()
    reopened = engine_for(f"sqlite:///{path}")  # a new process: nothing cached
    migrate._done.clear()
    create_all(reopened)  # what any command does on opening the store
    assert migrate.current(reopened) == migrate.head()
    after = counts(reopened)
    assert {t: n for t, n in after.items() if t in before} == before  # every row kept
    assert after["alarmack"] == after["apitoken"] == 0
    cols = {c["name"] for c in inspect(reopened).get_columns("alarm")}
    assert "interface" in cols


def test_a_store_unversioned_but_newer_is_stamped_where_its_tables_say(tmp_path: Path) -> None:
    path = tmp_path / "between.db"
    engine = engine_for(f"sqlite:///{path}")
    init_lab(engine, "default", "small", 7)
    with engine.begin() as conn:  # every table of HEAD, but no version (made by create_all)
        conn.execute(text('DROP TABLE "alembic_version"'))
    before = counts(engine)
    engine.dispose()
    migrate._done.clear()
    reopened = engine_for(f"sqlite:///{path}")
    create_all(reopened)
    assert migrate.current(reopened) == migrate.HEAD and counts(reopened) == before


def test_db_commands(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    env["NETOPSAI_HOME"] = str(tmp_path)

    def db(*args: str) -> str:
        r = subprocess.run([sys.executable, "-m", "netopsai.cli", "db", *args], env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout
    head = migrate.head()
    assert db("current").startswith(f"none (this release: {head}; behind")
    assert [line.split()[0] for line in db("history").splitlines()] == \
        [rev for rev, _ in migrate.history()] and head in db("history")
    assert db("upgrade").strip() == f"schema at {head} (was none)"
    assert db("current").strip() == f"{head} (this release: {head}; up to date)"
    assert db("upgrade").strip() == f"schema at {head}"
