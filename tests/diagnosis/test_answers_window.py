"""The asked window, everywhere (issue 25 item 1), end to end on the embedded lab: a border
router that rebooted three hours ago and came back, asked about its window (a range, a moment)
is found and named with its start and end — the alarms and changes read over that window, the
flow traced at that time — and asked about now, the path is healthy and the answer says what
happened on it in the last hours."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from netopsai.copilot.evidence import Evidence
from netopsai.diagnosis.context import DIAG_WINDOW, asked
from netopsai.lab.manage import lab_info
from tests.diagnosis.test_answers_headline import ask, first_line, lab_copilot

FLOW = "users on 10.2.27.20 {} problems reaching 10.1.13.20"
REBOOT = {"kind": "device_reboot", "at": "-3h", "target": {"device": "dc1-border-02"}}


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _clock(engine: Any) -> datetime:
    from netopsai.common.timewin import as_utc

    return as_utc(lab_info(engine).clock)


def _trace(at: str) -> Evidence:
    return Evidence(tool="traceroute", args={"src": "10.0.0.1", "dst": "10.0.0.2"},
                    window={"start": at, "end": at}, facts={"reached": True})


def test_the_asked_window_sets_every_read_and_the_moment_traced() -> None:
    now = [_trace("2025-11-04T20:00:00Z")]
    assert asked(now, None, None) == (DIAG_WINDOW, None)
    assert asked(now, "6h", None) == ("6h", None)
    past = {"start": "2025-11-04T16:55:00Z", "end": "2025-11-04T17:10:00Z"}
    assert asked(now, past, None) == (past, "2025-11-04T17:02:30Z")
    recent = {"start": "2025-11-04T19:30:00Z", "end": "2025-11-04T20:00:00Z"}
    assert asked(now, recent, None) == (recent, None)  # reaches now: the trace of now
    win, at = asked(now, None, "2025-11-04T18:05:00Z")
    assert at == "2025-11-04T18:05:00Z"
    assert win == {"start": "2025-11-04T17:35:00Z", "end": "2025-11-04T18:20:00Z"}


def _check_reboot_named(r: dict[str, Any], start: datetime) -> None:
    assert r["root_cause"]["label"] == "device.reboot"
    assert r["root_cause"]["device"] == "dc1-border-02"
    head = first_line(r)
    began, ended = f"{start:%H:%M}", f"{start + timedelta(minutes=4):%H:%M}"
    assert "Began and ended in the window" in head and f"{began}–{ended}" in head, head
    reads = {(e["tool"], str(e["args"].get("window"))) for e in r["evidence"]}
    assert ("alarms", "1h") not in reads and ("changelog", "1h") not in reads, reads
    assert any(e["tool"] == "traceroute" and e["args"].get("at") for e in r["evidence"])


def test_a_fault_that_came_and_went_is_found_in_its_window(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    c = lab_copilot(engine, [REBOOT])
    a, b = start - timedelta(minutes=5), start + timedelta(minutes=10)
    r = ask(c, FLOW.format("had") + f" between {a:%H:%M} and {b:%H:%M} UTC on {a:%Y-%m-%d}?")
    _check_reboot_named(r, start)
    r = ask(c, FLOW.format("had") + f" on {a:%Y-%m-%d} around {start + timedelta(minutes=2):%H:%M} UTC",
            "t2")
    _check_reboot_named(r, start)


def test_asked_now_a_healthy_path_says_what_happened_on_it(make_lab: Any) -> None:
    engine = make_lab()
    start = _clock(engine) - timedelta(hours=3)
    r = ask(lab_copilot(engine, [REBOOT]), FLOW.format("report"))
    assert r["root_cause"]["label"] == "none"
    head = first_line(r)
    assert head.startswith("**Reachable: yes**"), head
    assert "Earlier on this path" in head and "DEVICE_REBOOT on dc1-border-02" in head, head
    assert f"{start:%H:%M}–{start + timedelta(minutes=4):%H:%M}" in head
