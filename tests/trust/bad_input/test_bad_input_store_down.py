"""The store out of reach (issue 23 item 7): every command that needs the database says, in one
line on stderr and with exit 2, that the database cannot be reached at its URL (the password
hidden), never "internal error", never a traceback, and never "no lab in the store — run lab
init", which would invite a re-init over real data that is only out of reach. Nothing is
written anywhere meanwhile.

"Down" is real: a PostgreSQL URL on a loopback port nothing listens on, an SQLite "file" that is
a directory, one that is not a database, and one whose folder cannot be made."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.cli_helpers import CLI

PASSWORD = "s3cret-pw"
LOG_LINE = ("<187>7: dc1-leaf-01: Nov  4 19:50:00.000 UTC: %LINK-3-UPDOWN: Interface Ethernet1, "
            "changed state to down\n")


def free_port() -> int:
    """A loopback port nothing listens on: bound, read and closed again."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(home: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(home), NO_COLOR="1", COLUMNS="200", DATABASE_URL=url)
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("down")
    (base / "pairs.csv").write_text("10.1.1.20,10.2.1.20\n")
    (base / "dc1.log").write_text(LOG_LINE)
    (base / "a-directory").mkdir()
    (base / "not-a-db.db").write_bytes(b"this is not an sqlite database\n" * 200)
    (base / "a-file").write_text("a file where a folder should be\n")
    return {"base": base, "pairs": base / "pairs.csv", "log": base / "dc1.log"}


COMMANDS = [
    ("lab", "status"), ("lab", "reset"), ("lab", "init"), ("ask", "any alarms in dc1?"),
    ("tool", "events", "{}"), ("tool", "metadata", '{"query": "sites"}'),
    ("alarms", "ack", "1"), ("alarms", "acks"), ("alarms", "cases"),
    ("db", "upgrade"), ("db", "current"), ("db", "prune"), ("tokens", "list"), ("jobs", "list"),
    ("report", "reliability"), ("snapshots", "dc1-leaf-01"), ("batch", "PAIRS"),
    ("ingest", "--file", "LOG"), ("config", "check"),
]


def check_one_line(done: subprocess.CompletedProcess[str], shown_url: str) -> str:
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert len(err) == 1, done.stderr
    assert err[0].startswith(f"error: the database cannot be reached at {shown_url}: "), err[0]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert "lab init" not in done.stderr and "no lab" not in done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    return err[0]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a) for a in COMMANDS])
def test_postgres_down_is_one_line_naming_the_url(tmp_path: Path, files: dict[str, Path],
                                                  args: tuple[str, ...]) -> None:
    port = free_port()
    url = f"postgresql+psycopg://netops:{PASSWORD}@127.0.0.1:{port}/netops"
    argv = [str(files["pairs"]) if a == "PAIRS" else str(files["log"]) if a == "LOG" else a
            for a in args]
    done = run(tmp_path / "home", url, *argv)
    line = check_one_line(done, f"postgresql+psycopg://netops:***@127.0.0.1:{port}/netops")
    assert "Connection refused" in line or "connection failed" in line
    assert done.stdout == ""  # "config ok" and the like are not said first


SOME = [a for a in COMMANDS if a[0] in ("lab", "ask", "tool", "tokens", "batch", "ingest", "config")]


@pytest.mark.parametrize("args", SOME, ids=[" ".join(a) for a in SOME])
def test_sqlite_path_that_is_a_directory(tmp_path: Path, files: dict[str, Path],
                                         args: tuple[str, ...]) -> None:
    url = f"sqlite:///{files['base'] / 'a-directory'}"
    argv = [str(files["pairs"]) if a == "PAIRS" else str(files["log"]) if a == "LOG" else a
            for a in args]
    done = run(tmp_path / "home", url, *argv)
    assert "unable to open database file" in check_one_line(done, url)
    assert list((files["base"] / "a-directory").iterdir()) == []  # nothing made inside


@pytest.mark.parametrize("args", [("lab", "status"), ("db", "upgrade"), ("tokens", "list"),
                                  ("ingest", "--file", "LOG"), ("serve", "--port", "0")])
def test_sqlite_file_that_is_not_a_database(tmp_path: Path, files: dict[str, Path],
                                            args: tuple[str, ...]) -> None:
    path = files["base"] / "not-a-db.db"
    before = path.read_bytes()
    url = f"sqlite:///{path}"
    done = run(tmp_path / "home", url, *[str(files["log"]) if a == "LOG" else a for a in args])
    assert "file is not a database" in check_one_line(done, url)  # never "first run: building"
    assert path.read_bytes() == before  # not "repaired", not written


@pytest.mark.parametrize("args", [("lab", "init"), ("alarms", "acks"), ("ingest", "--file", "LOG")])
def test_sqlite_folder_that_cannot_be_made(tmp_path: Path, files: dict[str, Path],
                                           args: tuple[str, ...]) -> None:
    url = f"sqlite:///{files['base'] / 'a-file' / 'netopsai.db'}"
    done = run(tmp_path / "home", url, *[str(files["log"]) if a == "LOG" else a for a in args])
    assert "cannot make its folder" in check_one_line(done, url)
    assert (files["base"] / "a-file").is_file()


def test_unreachable_is_a_netops_error_naming_no_password() -> None:
    """In process too (the web app and the API print str(err)): the password is hidden even
    when the driver quotes it back."""
    from netopsai.common.errors import NetopsError
    from netopsai.store.engine import StoreUnreachable

    err = StoreUnreachable(f"postgresql://ops:{PASSWORD}@db.example:5432/netops",
                           f"password '{PASSWORD}' refused")
    assert isinstance(err, NetopsError)
    assert PASSWORD not in str(err)
    assert str(err).startswith("the database cannot be reached at postgresql://ops:***@db.example")
