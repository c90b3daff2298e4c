"""Logs loaded after the fact (`netopsai ingest --file`): the alarms and history the live receiver
would have built, at the devices' times, so a past incident can be asked about; loading twice
stores once; bad files are one line. Fixture lines follow the vendors' documented formats."""

from __future__ import annotations

import gzip
import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli, small_lab_home
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "logfiles"

# `show logging` of dc1-leaf-03 (IOS: `service timestamps log datetime msec localtime
# show-timezone year`), a port that went down and came back on 2017-09-01, Pacific time
CAPTURE = (DATA / "dc1-leaf-03-show-logging.txt").read_text()
# a syslog server's files (rsyslog's traditional format: no PRI, one host per line), local time
SERVER_A = (DATA / "server-messages.1").read_text()
SERVER_B = (DATA / "server-messages").read_text()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("logfiles"))


def _file(path: Path, text: str, written: str) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    stamp = datetime.fromisoformat(written).timestamp()
    os.utime(path, (stamp, stamp))  # when the file was written: the year of year-less stamps
    return path


def _alarms(home: Path, start: str, end: str) -> list[dict[str, object]]:
    args = {"window": {"start": start, "end": end}, "state": "any", "correlate": False}
    done = run_cli(home, "tool", "alarms", json.dumps(args), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["rows"]


def test_a_show_logging_capture_lands_on_the_devices_clock(home: Path, tmp_path: Path) -> None:
    capture = _file(tmp_path / "leaf3.log", CAPTURE, "2017-09-02T08:00:00+00:00")
    done = run_cli(home, "ingest", "--file", str(capture), "--device", "dc1-leaf-03")
    assert done.returncode == 0, done.stderr
    assert "4 lines read from 1 file: 4 events stored, 0 already in the store" in done.stdout
    rows = _alarms(home, "2017-09-01T17:00:00Z", "2017-09-01T18:00:00Z")
    assert [(r["device"], r["interface"], r["state"]) for r in rows] == [
        ("dc1-leaf-03", "Ethernet49", "closed")]
    assert str(rows[0]["raised_at"]).startswith("2017-09-01T17:14:58")  # 10:14:58 PDT
    again = run_cli(home, "ingest", "--file", str(capture), "--device", "dc1-leaf-03")
    assert "0 events stored, 4 already in the store" in again.stdout, again.stdout
    assert len(_alarms(home, "2017-09-01T17:00:00Z", "2017-09-01T18:00:00Z")) == 1


def test_server_files_merge_in_device_time_order(home: Path, tmp_path: Path) -> None:
    """The Up for spine-02 is in the second file: merged by device time it closes the Down."""
    a = _file(tmp_path / "messages.1.gz", SERVER_A, "2017-08-05T00:00:00+00:00")
    b = _file(tmp_path / "messages", SERVER_B, "2017-08-05T00:00:00+00:00")
    done = run_cli(home, "ingest", "--file", str(b), "--file", str(a),
                   "--timezone", "America/Los_Angeles")
    assert done.returncode == 0, done.stderr
    rows = _alarms(home, "2017-08-04T17:00:00Z", "2017-08-04T18:00:00Z")
    got = {(r["device"], r["interface"]): (r["state"], str(r["raised_at"])[:19]) for r in rows}
    assert got == {("dc1-spine-02", "Ethernet8"): ("closed", "2017-08-04T17:15:02"),
                   ("dc1-leaf-01", "Ethernet49"): ("open", "2017-08-04T17:15:30")}


@pytest.mark.parametrize(("args", "said"), [
    (["--file", "{tmp}/missing.log"], "log file not found"),
    (["--file", "{tmp}"], "is not a file"),
    (["--file", "{tmp}/broken.gz"], "cannot read log file"),
    (["--file", "{tmp}/ok.log", "--timezone", "Mars/Olympus"], "'Mars/Olympus' is not a time zone"),
    (["--device", "dc1-leaf-03"], "--device and --timezone go with --file"),
])
def test_bad_log_files_are_one_line(home: Path, tmp_path: Path, args: list[str], said: str) -> None:
    (tmp_path / "broken.gz").write_bytes(b"not gzip")
    (tmp_path / "ok.log").write_text(SERVER_B)
    done = run_cli(home, "ingest", *[a.replace("{tmp}", str(tmp_path)) for a in args])
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0 and len(lines) == 1 and said in lines[0], done.stderr
