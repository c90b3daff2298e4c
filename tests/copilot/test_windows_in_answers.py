"""Windows end to end (issue 12 §3): a question's dates and zone reach the tools, the answer's
first line states the window in the zone the question used, times without a zone are the
network's configured zone (ingest.timezone) in questions and in tool arguments alike, and "since
the maintenance window" starts at the change record. Embedded lab, real planner and tools."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.tools.registry import run_tool

SPINE = "dc1-spine-04"  # the lab clock (tests/conftest.py CLOCK) is 2025-11-04T20:00Z


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _windows(result: dict[str, Any], tool: str) -> list[Any]:
    return [e["args"].get("window") for e in result["evidence"] if e["tool"] == tool]


def test_a_date_and_zone_in_the_question_reach_the_tools_and_lead_the_answer(backends: Any) -> None:
    r = Copilot(backends).answer(f"alarms on {SPINE} between 10:15 and 10:25 on 2025-08-04 in PDT",
                                 "t")
    assert _windows(r, "alarms") == [{"start": "2025-08-04T17:15:00Z", "end": "2025-08-04T17:25:00Z"}]
    first = r["answer"].split("\n", 1)[0]
    assert "2025-08-04 10:15–10:25 PDT" in first and "17:15–17:25 UTC" in first


def test_the_networks_zone_reads_times_given_without_one(backends: Any) -> None:
    la = replace(backends, zone="America/Los_Angeles")  # ingest.timezone: the devices log in PT
    r = Copilot(la).answer(f"alarms on {SPINE} between 10:15 and 10:25 on 2025-08-04", "t")
    assert _windows(r, "alarms") == [{"start": "2025-08-04T17:15:00Z", "end": "2025-08-04T17:25:00Z"}]
    # said as its clocks showed it on that day, as the answer's other times say it
    assert r["answer"].split("\n", 1)[0] == "_Window: 2025-08-04 10:15–10:25 PDT (17:15–17:25 UTC)_"
    ev = run_tool("alarms", {"window": "2025-11-04T08:00..2025-11-04T09:00"}, la)  # PST in November
    assert ev.window == {"start": "2025-11-04T16:00:00Z", "end": "2025-11-04T17:00:00Z"}
    utc = run_tool("alarms", {"window": "2025-11-04T08:00Z..2025-11-04T09:00Z"}, la)
    assert utc.window == {"start": "2025-11-04T08:00:00Z", "end": "2025-11-04T09:00:00Z"}


def test_no_window_in_the_question_adds_no_window_line(backends: Any) -> None:
    r = Copilot(backends).answer(f"open alarms on {SPINE}", "t")
    assert not r["answer"].startswith("_Window")


def test_since_the_maintenance_window_starts_at_the_change(make_lab: Any) -> None:
    engine = make_lab()
    sc = Scenario.model_validate({
        "id": "since-change", "now": lab_info(engine).clock, "question": "-",
        "faults": [{"kind": "change", "at": "-40m", "target": {"device": SPINE},
                    "params": {"summary": "Maintenance: replace line card", "ticket": "CHG-3001"}},
                   {"kind": "link_flap", "at": "-20m",
                    "target": {"link": f"{SPINE}:Ethernet1"}}]})
    inject(engine, sc)
    r = Copilot(lab_backends(engine)).answer(f"alarms on {SPINE} since the maintenance window", "t")
    assert _windows(r, "alarms") == [{"start": "2025-11-04T19:20:00Z", "end": "2025-11-04T20:00:00Z"}]
    assert "CHG-3001" in r["answer"]
    assert any(row["kind"] == "LINK_FLAP" for e in r["evidence"] if e["tool"] == "alarms"
               for row in e["rows"])
