"""PostgreSQL as the team store (a real server from Debian's package, on loopback): the CLI
builds and answers on it, threads live in it (a new process resumes them), and a database
behind this release's schema is refused until `netopsai db upgrade`, which keeps its rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from netopsai.copilot.service import Copilot, postgres_saver
from netopsai.store import migrate
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.postgres import fresh_database, pg_url

pytestmark = pytest.mark.integration
__all__ = ["pg_url"]
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
SCENARIO = """id: pg-acl
faults:
  - kind: acl_block
    at: -25m
    target: {device: dc1-leaf-03}
    params: {dst: 10.2.1.0/24}
"""


def netopsai(home: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env={**env, "NETOPSAI_HOME": str(home), "DATABASE_URL": url},
                          timeout=300)


def test_the_cli_builds_and_answers_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    url = fresh_database(pg_url, "cli")
    assert netopsai(tmp_path, url, "lab", "init", "--scale", "small").returncode == 0
    (tmp_path / "acl.yaml").write_text(SCENARIO)
    assert netopsai(tmp_path, url, "lab", "inject", str(tmp_path / "acl.yaml")).returncode == 0
    r = netopsai(tmp_path, url, "ask", QUESTION, "--json", "--thread", "pg-1")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["root_cause"]["label"], out["root_cause"]["device"]) == ("config.acl_block", "dc1-leaf-03")
    assert not (tmp_path / "netopsai.db").exists()  # nothing went to the SQLite default
    current = netopsai(tmp_path, url, "db", "current").stdout
    assert current.startswith(f"{migrate.HEAD} (this release: {migrate.HEAD}; up to date)")
    # the thread lives in PostgreSQL: a new process follows it up
    first = netopsai(tmp_path, url, "ask", "who owns 10.1.3.20?", "--thread", "pg-2")
    follow = netopsai(tmp_path, url, "ask", "and its upstream switch?", "--thread", "pg-2")
    assert "dc1-host-03-1" in first.stdout and "dc1-leaf-03" in follow.stdout
    with engine_for(url).connect() as conn:
        threads = {row[0] for row in conn.execute(text("SELECT DISTINCT thread_id FROM checkpoints"))}
    assert {"pg-1", "pg-2"} <= threads


def test_threads_survive_a_new_saver(pg_url: str) -> None:
    from netopsai.backends.lab import lab_backends
    from netopsai.lab.manage import init_lab
    from tests.conftest import CLOCK

    url = fresh_database(pg_url, "threads")
    engine = engine_for(url)
    init_lab(engine, "default", "small", 7, CLOCK)
    one = Copilot(lab_backends(engine), checkpointer=postgres_saver(url))
    one.answer("who owns 10.1.3.20?", "t")
    two = Copilot(lab_backends(engine), checkpointer=postgres_saver(url))  # as after a restart
    assert two.thread("t").question == "who owns 10.1.3.20?"
    assert "dc1-leaf-03" in two.answer("and its upstream switch?", "t")["answer"]
    assert [len(turn) > 0 for turn in two.trail("t")] == [True, True]


def test_a_store_behind_is_refused_until_db_upgrade(pg_url: str, tmp_path: Path) -> None:
    from alembic import command

    url = fresh_database(pg_url, "behind")
    engine = engine_for(url)
    with engine.begin() as conn:
        command.upgrade(migrate._config(conn), "0002")
        conn.execute(text("INSERT INTO site (name, region, description) VALUES ('hq', 'eu', '')"))
        conn.execute(text("INSERT INTO device (name, role, vendor, model, os_version, mgmt_ip, site, "
                          "status, asn) VALUES ('edge', 'leaf', 'x', 'y', 'z', '127.0.0.9', 'hq', "
                          "'up', 65000)"))
    refused = netopsai(tmp_path, url, "tokens", "list")
    assert refused.returncode != 0 and "run `netopsai db upgrade`" in refused.stderr
    assert refused.stderr.strip().count("\n") == 0 and "Traceback" not in refused.stderr
    done = netopsai(tmp_path, url, "db", "upgrade")
    assert done.returncode == 0 and done.stdout.strip() == f"schema at {migrate.HEAD} (was 0002)"
    with engine.begin() as conn:  # the widened column takes a 4-byte ASN now; the row is kept
        conn.execute(text("UPDATE device SET asn = 4200000001 WHERE name = 'edge'"))
        assert conn.execute(text("SELECT asn FROM device")).scalar_one() == 4200000001
    assert netopsai(tmp_path, url, "tokens", "list").stdout.strip() == "no tokens"
