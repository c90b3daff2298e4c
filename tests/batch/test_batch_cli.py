"""Batch connectivity checks as a process (issue 4 §3): `netopsai batch` end to end on a lab with
injected faults — CSV to stdout with the summary on stderr, JSON lines, one-line input errors,
Ctrl-C leaving a valid partial file that --resume completes, a progress bar on a terminal only.
Lab addresses are data: nothing here sends a packet."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.lab.inject import inject
from netopsai.store.engine import engine_for
from tests.batch.test_batch import (
    ACL_TOR,
    COLUMNS,
    DOWN_TOR,
    FAULTS,
    SRC,
    fault_pairs,
    small_lab,
    write_input,
)


@pytest.fixture(scope="module")
def hosts(home: Path) -> list[dict[str, Any]]:
    return lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")).inventory.hosts(None, None,
                                                                                        None)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    h = tmp_path_factory.mktemp("home")
    inject(small_lab(h / "netopsai.db"), FAULTS)
    return h


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NETOPSAI_PROBE_SOURCE")}
    env.update(NETOPSAI_HOME=str(home), COLUMNS="200", NO_COLOR="1", TERM="dumb")
    return env


def netopsai(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, timeout=300, env=env_for(home), check=False)


def test_cli_csv_to_stdout_with_summary_on_stderr(home: Path, hosts: list[dict[str, Any]],
                                                  tmp_path: Path) -> None:
    text = fault_pairs(hosts).replace("10.1.4.20,10.2.1.20\n", "10.1.4.20,10.2.1.20\nnot-an-ip\n")
    bad_line = text.splitlines().index("not-an-ip") + 1
    summary = tmp_path / "summary.json"
    r = netopsai(home, "batch", str(write_input(tmp_path / "pairs.csv", text)), "--summary", str(summary))
    # fping's: a bad line outranks unreachable pairs (2), the valid pairs are still checked
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 25 and list(rows[0]) == COLUMNS
    lines = [int(x["line"]) for x in rows]
    assert lines == sorted(lines)  # input order, though checks finish in any order
    assert {x["status"] for x in rows} == {"reachable", "unreachable", "error"}
    assert all((x["status"] == "reachable") == (x["reachable"] == "true" and not x["cause"])
               for x in rows if x["status"] != "error")
    s = json.loads(summary.read_text())
    assert (s["total"], s["reachable"], s["errors"]) == (25, 3, 1)
    assert s["status"] == {"reachable": 3, "unreachable": 21, "error": 1}
    assert {x["reachable"] for x in rows} == {"true", "false"}
    err = r.stderr.splitlines()
    assert err[0] == f"skipped line {bad_line}: 'not-an-ip' is not an IPv4 address"
    assert err[-1] == (f"error: line {bad_line}: 'not-an-ip' is not an IPv4 address (1 bad line "
                       "not checked; the 25 valid pairs were)")
    assert "checked 25 pairs: 3 reachable, 21 unreachable, 1 error" in err
    assert f"16 pairs fail at {ACL_TOR}: config.acl_block" in err
    assert f"3 pairs fail at {DOWN_TOR}: link.down" in err


def test_cli_json_lines_from_the_default_source(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    r = netopsai(home, "batch", str(write_input(tmp_path / "ips.txt", "10.2.1.20\n10.2.2.20\n")),
                 "-o", str(out), "--json")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    rows = sorted((json.loads(x) for x in out.read_text().splitlines()), key=lambda x: x["line"])
    assert [(x["src"], x["dst"], x["reachable"]) for x in rows] == [
        (SRC, "10.2.1.20", True), (SRC, "10.2.2.20", True)]
    assert rows[0]["evidence"] == ["traceroute E1"] and rows[0]["cause"] is None


@pytest.mark.parametrize("args, needle", [
    (["batch", "/nonexistent/pairs.csv"], "batch file not found"),
    (["batch", "EMPTY"], "no valid line to check"),
    (["batch", "EMPTY", "--source", "10.1.1"], "probe source '10.1.1' is not an IPv4 address"),
])
def test_cli_bad_input_is_one_line(home: Path, tmp_path: Path, args: list[str], needle: str) -> None:
    empty = str(write_input(tmp_path / "empty.txt", "# only a comment\n"))
    r = netopsai(home, *[empty if a == "EMPTY" else a for a in args])
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and lines[0].startswith("error: ")


def test_cli_ctrl_c_leaves_a_valid_partial_file_that_resume_completes(home: Path, tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C does (worker processes too)."""
    ips = [f"10.{dc}.{seg}.{h}" for dc in (1, 2) for seg in range(1, 33) for h in (20, 30, 40, 50)]
    pairs = tmp_path / "many.csv"
    # 8,160 pairs: enough for worker processes, and to still be running when interrupted (1,530
    # once were; since the batch got faster, those finished between the check and the SIGINT)
    sources = ips[:32]
    pairs.write_text("".join(f"{a},{b}\n" for a in sources for b in ips if a != b))
    out = tmp_path / "out.csv"
    proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "batch", str(pairs), "-o", str(out)],
                            env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_text().count("\n") >= 50:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the batch finished before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "run it again with --resume" in err
    text = out.read_text()
    assert text.endswith("\n")
    rows = list(csv.DictReader(io.StringIO(text)))
    total = len(sources) * (len(ips) - 1)
    assert 49 <= len(rows) < total and list(rows[0]) == COLUMNS
    r = netopsai(home, "batch", str(pairs), "-o", str(out), "--resume")
    assert r.returncode == 1, r.stderr  # the pairs behind the lab's faults stay unreachable
    final = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(final) == len({(x["src"], x["dst"]) for x in final}) == total
    assert f"resuming: {len(rows)} pairs already" in r.stderr


def test_cli_progress_bar_goes_to_a_terminal_stderr_only(home: Path, tmp_path: Path) -> None:
    import pty

    master, slave = pty.openpty()
    ips = "".join(f"10.2.{seg}.20\n" for seg in range(1, 33))
    proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "batch",
                             str(write_input(tmp_path / "ips.txt", ips))],
                            env={**env_for(home), "TERM": "xterm"}, stdout=subprocess.PIPE,
                            stderr=slave, text=True)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:  # keep reading, or a full pty buffer would block the child
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                return
            if not data:
                return
            chunks.append(data)
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out, _ = proc.communicate(timeout=120)
    reader.join(timeout=10)
    os.close(master)
    tty = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 1, tty  # one pair unreachable
    assert "checking pairs" in tty and "checked 32 pairs" in tty
    assert "\x1b" not in out and len(list(csv.DictReader(io.StringIO(out)))) == 32
