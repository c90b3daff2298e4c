"""Bounded work (trust, F4, F13): a counter question too large for one answer — a year of every
switch port, a window from year 1 — is answered under a 2 GiB memory limit with a clear
message that says how far to narrow it, and the narrower window it suggests then works."""

from __future__ import annotations

import json
import re
import resource
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from netopsai.backends.base import Backends
from netopsai.backends.lab import telemetry as lab_telemetry
from netopsai.common.timewin import parse_window
from netopsai.store.telemetry import HeavyGate
from netopsai.tools.registry import run_tool
from tests.cli_helpers import run_cli, small_lab_home

LIMIT = 2 << 30  # address space of the whole `netopsai` process
NARROW = re.compile(r"narrow the window to at most (\d+[dhm]) for these ports")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(home, *args, preexec_fn=_limited)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("bounded"))


def test_a_year_of_every_port_is_a_clear_answer_under_a_memory_limit(home: Path) -> None:
    done = _run(home, "ask", "top CRC errors across all switches in the last 365 days", "--json")
    assert done.returncode == 0, done.stderr
    r = json.loads(done.stdout)
    errors = [err for e in r["evidence"] if e["tool"] == "telemetry" for err in e["errors"]]
    assert errors and NARROW.search(errors[0]), errors
    assert NARROW.search(" ".join(r["answer"].split()))  # the on-call reads it in the answer


@pytest.mark.parametrize("window", ["99999d", {"start": "0001-01-01T00:00:00Z"}], ids=["99999d", "year-1"])
def test_absurd_windows_are_refused_and_the_suggestion_works(home: Path, window: object) -> None:
    args = {"metric": "errors", "top": 5, "window": window}
    done = _run(home, "tool", "telemetry", json.dumps(args), "--json")
    ev = json.loads(done.stdout)
    m = NARROW.search(" ".join(ev["errors"]))
    assert m and ev["rows"] == [], ev["errors"]
    ok = json.loads(_run(home, "tool", "telemetry", json.dumps({**args, "window": m.group(1)}),
                         "--json").stdout)
    assert ok["errors"] == [] and ok["facts"]["ports"] > 0


def test_large_counter_reads_take_turns_and_small_ones_never_wait(
        backends: Backends, monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` answers many people in one process: with its heavy slot taken, another large
    read is answered "busy" with what to do, while a small read goes straight through."""
    gate = HeavyGate(slots=1, heavy_cells=100_000, wait_s=0.3)
    monkeypatch.setattr(lab_telemetry, "HEAVY", gate)
    heavy = {"metric": "errors", "window": "7d", "top": 3}  # every switch port, 2,016 samples each
    small = {"metric": "errors", "window": "1h", "devices": ["dc1-leaf-03"], "top": 3}
    hour = parse_window("1h", datetime.now(UTC))
    with gate.slot(100_000, hour):  # another large question is running
        busy = run_tool("telemetry", heavy, backends)
        quick = run_tool("telemetry", small, backends)
    assert busy.rows == [] and any("other large counter questions are being answered" in e
                                   and "narrow the window" in e for e in busy.errors), busy.errors
    assert quick.errors == [] and quick.facts["ports"] > 0
    done = run_tool("telemetry", heavy, backends)  # the slot is free again
    assert done.errors == [] and done.facts["ports"] * 2016 > gate.heavy_cells


def test_a_100_kb_change_ticket_is_shown_short_and_kept_whole(home: Path, tmp_path: Path) -> None:
    """F13: a huge ticket once took over 30 s to draw in a terminal. Every shown form (the
    table, the evidence summary, the answer) cuts it and says how much more there is; --json
    keeps the record whole."""
    text = ("Apply ACL set " + "x" * 60 + " ") * 1400  # ~105 KB
    scenario = tmp_path / "ticket.yaml"
    scenario.write_text(json.dumps({
        "id": "big-ticket", "question": "what changed on dc1-leaf-02?",
        "faults": [{"kind": "change", "at": "-10m", "target": {"device": "dc1-leaf-02"},
                    "params": {"summary": text, "ticket": "CHG-7001"}}]}))
    assert _run(home, "lab", "inject", str(scenario)).returncode == 0
    args = json.dumps({"devices": ["dc1-leaf-02"], "window": "1h"})
    shown = _run(home, "tool", "changelog", args)
    answer = _run(home, "ask", "what changed on dc1-leaf-02 in the last hour?")
    for done in (shown, answer):
        assert done.returncode == 0, done.stderr
        assert "CHG-7001" in done.stdout and len(done.stdout) < 10_000, len(done.stdout)
        assert re.search(r"… \(\+\d{2,3},\d{3} characters\)", " ".join(done.stdout.split()))
    whole = json.loads(_run(home, "tool", "changelog", args, "--json").stdout)
    assert [r["summary"] for r in whole["rows"] if r["ticket"] == "CHG-7001"] == [text]
