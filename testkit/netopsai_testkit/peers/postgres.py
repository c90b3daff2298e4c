"""A real PostgreSQL server for tests (Debian's postgresql package): a fresh cluster in a
temporary directory, listening on loopback only, owned by the `postgres` system user (the server
refuses to run as root), trust auth for local connections, stopped and removed afterwards."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from netopsai_testkit.peers.process import free_port

USER = "postgres"


def _bin(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


def skip_reason() -> str | None:
    if _bin("initdb") is None or _bin("pg_ctl") is None:
        return "PostgreSQL is not installed (scripts/system-deps.sh installs Debian's postgresql)"
    if os.geteuid() != 0:
        return "starting a PostgreSQL cluster here needs root (to run it as the postgres user)"
    try:
        import pwd

        pwd.getpwnam(USER)
    except KeyError:
        return "no postgres system user (Debian's postgresql package creates it)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed"
    return None


def _as_postgres(*cmd: str) -> list[str]:
    return ["runuser", "-u", USER, "--", *cmd]


@contextmanager
def postgres_server() -> Iterator[str]:
    """A running cluster; yields a SQLAlchemy URL for database `netopsai`, user `netopsai`."""
    root = Path(tempfile.mkdtemp(prefix="netopsai-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    shutil.chown(root, USER)
    shutil.chown(sock, USER)
    port = free_port()
    subprocess.run(_as_postgres(str(_bin("initdb")), "-D", str(data), "-A", "trust", "-U",
                                "netopsai", "-E", "UTF8", "--no-sync"),
                   check=True, capture_output=True, timeout=120)
    opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run(_as_postgres(str(_bin("pg_ctl")), "-D", str(data), "-o", opts, "-l",
                                str(root / "log"), "-w", "-t", "60", "start"),
                   check=True, capture_output=True, timeout=120)
    try:
        _createdb(port)
        yield f"postgresql+psycopg://netopsai@127.0.0.1:{port}/netopsai"
    finally:
        subprocess.run(_as_postgres(str(_bin("pg_ctl")), "-D", str(data), "-m", "immediate",
                                    "-w", "stop"), capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


def _createdb(port: int) -> None:
    import psycopg

    for _ in range(50):
        try:
            with psycopg.connect(host="127.0.0.1", port=port, user="netopsai", dbname="postgres",
                                 autocommit=True) as conn:
                conn.execute("CREATE DATABASE netopsai")
                return
        except psycopg.OperationalError:
            time.sleep(0.2)
    raise RuntimeError("PostgreSQL did not accept connections")


def fresh_database(url: str, name: str) -> str:
    """Another empty database on the same server (one per test that fills a store)."""
    import psycopg

    base, _ = url.rsplit("/", 1)
    host_port = base.split("@", 1)[1]
    host, port = host_port.split(":")
    with psycopg.connect(host=host, port=int(port), user="netopsai", dbname="postgres",
                         autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{base}/{name}"


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """One PostgreSQL server for the test session; tests make their own databases in it
    (fresh_database)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    with postgres_server() as url:
        yield url
