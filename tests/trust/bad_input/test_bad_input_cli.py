"""Bad input to the command line that used to be answered silently or wrongly (issue 23 item 7):
each is now one line on stderr naming what was wrong (and the closest valid value where there
is one), a non-zero exit, no traceback, and nothing stored.

- `tool events` with a device that is nowhere answered "0 events", exit 0, while changelog and
  alarms refuse the same name; a device the inventory lacks but that logged is still read.
- `batch` with a bad line exited 0 (or 1): the valid lines are still checked and written, as
  fping pings the hosts it can resolve, then exit 2 with a last line naming the bad line.
- a thread id that is empty or carries a line break, a port out of range, a concurrency of
  10**23, a snapshot listing of a misspelt device, a dedupe of "nan", a log load into a store
  that takes no writes (exited 0 saying "-1 events stored")."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.lab import lab_backends
from netopsai.lab.manage import lab_info
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.store.probes import ProbeResult
from netopsai.tools.registry import run_tool
from tests.cli_helpers import CLI, run_cli, small_lab_home


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("badcli"))


def one_line(done: subprocess.CompletedProcess[str], needle: str, code: int = 2) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code, (done.returncode, done.stderr)
    assert lines and lines[-1].startswith("error: ") and needle in lines[-1], done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    return lines[-1]


def store_of(home: Path) -> Engine:
    return engine_for(f"sqlite:///{home / 'netopsai.db'}")


# ------------------------------------------------------------------- the events tool's devices


@pytest.mark.parametrize("tool", ["events", "changelog", "alarms"])
def test_a_misspelt_device_is_refused_alike_with_the_closest(home: Path, tool: str) -> None:
    done = run_cli(home, "tool", tool, '{"devices": ["dc1-leaf-01x"]}')
    line = one_line(done, "unknown device 'dc1-leaf-01x'; did you mean dc1-leaf-01")
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == "", line


def test_a_device_that_is_nowhere_is_refused(home: Path) -> None:
    one_line(run_cli(home, "tool", "events", '{"devices": ["no-such-box"]}'),
             "unknown device 'no-such-box'")


def test_a_device_the_inventory_lacks_but_that_logged_is_read(
        make_lab: Callable[..., Engine]) -> None:
    """A new switch logging before it is imported is kept under its own name (store.naming):
    asking for it reads its events rather than refusing it; a case slip still respells."""
    engine = make_lab()
    at = lab_info(engine).clock - timedelta(minutes=5)
    with Session(engine) as s:
        s.add(m.RawEvent(received_at=at, at=at, source="syslog", host="192.0.2.9",
                         device="newswitch-99", message="%LINK-3-UPDOWN: Interface Gi1/1, "
                         "changed state to down", mnemonic="LINK-3-UPDOWN"))
        s.commit()
    backends = lab_backends(engine)
    ev = run_tool("events", {"devices": ["newswitch-99"], "window": "1h"}, backends)
    assert ev.errors == [] and ev.facts["events"] == 1
    mixed = run_tool("events", {"devices": ["dc1-leaf-01", "newswitch-99"]}, backends)
    assert mixed.errors == [] and "newswitch-99" in mixed.facts["devices"]
    # before its first line it is still a device (its lines at any time prove it): no events,
    # no error; a name that never logged is still refused
    before = run_tool("events", {"devices": ["newswitch-99"], "window": "-2h..-1h"}, backends)
    assert before.errors == [] and before.facts["events"] == 0
    never = run_tool("events", {"devices": ["newswitch-98"]}, backends)
    assert never.errors and "unknown device 'newswitch-98'" in never.errors[0]
    upper = run_tool("events", {"devices": ["DC1-LEAF-01"]}, backends)
    assert upper.errors == [] and upper.args["devices"] == ["dc1-leaf-01"]


# ------------------------------------------------------------------------------ batch


def test_batch_with_a_bad_line_checks_the_rest_then_exits_2(home: Path, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("10.1.1.20,10.2.1.20\n10.1.1.20,10.2.1.999\n10.1.1.30,10.2.2.20\n")
    done = run_cli(home, "batch", str(pairs), "--record")
    line = one_line(done, "error: line 2: '10.2.1.999' is not an IPv4 address (1 bad line not "
                          "checked; the 2 valid pairs were)")
    assert done.stderr.splitlines()[0] == "skipped line 2: '10.2.1.999' is not an IPv4 address"
    rows = done.stdout.strip().splitlines()
    assert len(rows) == 3 and rows[1].startswith("1,") and rows[2].startswith("3,"), line
    assert "recorded 2 probe results" in done.stderr  # what was checked is kept, not lost
    with Session(store_of(home)) as s:
        recorded = s.exec(select(ProbeResult)).all()
    assert sorted((p.src, p.dst) for p in recorded) == [("10.1.1.20", "10.2.1.20"),
                                                         ("10.1.1.30", "10.2.2.20")]


def test_batch_concurrency_beyond_reason(home: Path, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("10.1.1.20,10.2.1.20\n")
    done = run_cli(home, "batch", str(pairs), "--concurrency", "99999999999999999999999")
    one_line(done, "--concurrency must be at most 256")
    assert done.stdout == ""


# --------------------------------------------------------------- threads, ports, snapshots


@pytest.mark.parametrize("thread, needle", [
    ("", "--thread is empty"),
    ("a\nb", "--thread has a control character (U+000A)"),
    ("x\x1b[2J", "--thread has a control character (U+001B)"),
])
def test_ask_thread_ids(home: Path, thread: str, needle: str) -> None:
    last = home / "last_thread"
    before = last.read_text() if last.exists() else None
    done = run_cli(home, "ask", "any alarms in dc1?", "--thread", thread)
    one_line(done, needle)
    assert done.stdout == "" and (last.read_text() if last.exists() else None) == before


@pytest.mark.parametrize("args", [["serve", "--port", "99999999"], ["serve", "--port", "-1"],
                                  ["slack", "--http", "--port", "70000"],
                                  ["api", "--port", "99999999"],
                                  ["mcp", "--transport", "http", "--port", "70000"]])
def test_ports_out_of_range(home: Path, args: list[str]) -> None:
    done = run_cli(home, *args)
    one_line(done, f"--port {args[-1]} is not a port (0-65535)")
    assert len(done.stderr.strip().splitlines()) == 1


def test_snapshots_of_a_misspelt_device(home: Path) -> None:
    one_line(run_cli(home, "snapshots", "dc1-leaf-01x"),
             "unknown device 'dc1-leaf-01x'; did you mean dc1-leaf-01")
    known = run_cli(home, "snapshots", "dc1-leaf-01")  # in the inventory, never snapshotted
    assert known.returncode == 0 and known.stdout.strip() == "no snapshots of dc1-leaf-01"


# ------------------------------------------------------------------------------ ingest


def test_ingest_dedupe_that_is_not_a_number(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(tmp_path / "home"), NO_COLOR="1")
    for value in ("nan", "inf"):  # refused before any port is opened (else it would listen)
        done = subprocess.run([*CLI, "ingest", "--dedupe", value, "--syslog-port", "0",
                               "--trap-port", "-1", "--webhook-port", "-1"], env=env,
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        one_line(done, "--dedupe must be 0 or more seconds")
        assert "listening" not in done.stdout


def test_ingest_file_into_a_store_that_takes_no_writes(home: Path, tmp_path: Path) -> None:
    """A read-only store used to answer "-1 events stored" and exit 0."""
    copy = tmp_path / "ro.db"
    copy.write_bytes((home / "netopsai.db").read_bytes())
    before = copy.read_bytes()
    log = tmp_path / "dc1.log"
    log.write_text("<187>7: dc1-leaf-01: Nov  4 19:50:00.000 UTC: %LINK-3-UPDOWN: Interface "
                   "Ethernet1, changed state to down\n")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(tmp_path / "h"), NO_COLOR="1",
               DATABASE_URL=f"sqlite:///file:{copy}?mode=ro&uri=true")
    done = subprocess.run([*CLI, "ingest", "--file", str(log)], env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    # refused when the writer prepares the store, or per event ("1 of 1 events could not be
    # stored"), depending on whether the copy's schema needs a write first: one line either way
    one_line(done, "readonly database")
    assert len(done.stderr.strip().splitlines()) == 1
    assert "-1" not in done.stdout and "[SQL:" not in done.stderr
    assert copy.read_bytes() == before


def test_ingest_file_whose_events_the_writer_could_not_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store took the connection but refused every event (the writer logs each, many lines
    with the SQL and the event's text): one line, non-zero, never "-1 events stored"."""
    import logging

    from typer.testing import CliRunner

    from netopsai.backends.syslog import files
    from netopsai.launch.app import app

    def refusing_load(*_: object, **__: object) -> files.LoadStats:
        logging.getLogger("netopsai.ingest").error(
            "could not store a %s event: %s", "syslog",
            "(sqlite3.OperationalError) disk I/O error\n[SQL: INSERT INTO alarm ...]")
        return files.LoadStats(lines=1, stored=-1)

    monkeypatch.setattr(files, "load_files", refusing_load)
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    log = tmp_path / "x.log"
    log.write_text("<13>Nov  4 20:00:00 dc1-leaf-01 hello\n")
    done = CliRunner().invoke(app, ["ingest", "--file", str(log)])
    assert done.exit_code != 0
    assert "0 events stored" in done.output and "-1" not in done.output
    assert str(done.exception) == ("1 of 1 events could not be stored: could not store a syslog "
                                   "event: (sqlite3.OperationalError) disk I/O error")


@pytest.mark.parametrize("args", [["jobs", "import", "/dev/zero"], ["batch", "/dev/zero"],
                                  ["lab", "inject", "/dev/zero"]])
def test_an_input_that_never_ends_is_refused_before_it_is_read(home: Path,
                                                               args: list[str]) -> None:
    """The second hostile pass: `jobs import /dev/zero` read until the kernel's OOM killer."""
    one_line(run_cli(home, *args), "/dev/zero is not a regular file")


def test_an_input_too_big_to_read_whole_is_refused(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from netopsai.common import errors

    monkeypatch.setattr(errors, "MAX_INPUT_BYTES", 1000)
    big = tmp_path / "jobs.txt"
    big.write_text("x" * 1001)
    with pytest.raises(errors.NetopsError, match="larger than 0 MB"):
        errors.read_text(big, "jobs file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(errors.NetopsError, match="is not a regular file"):
        errors.read_text(fifo, "jobs file")  # never opened: opening a FIFO would wait
