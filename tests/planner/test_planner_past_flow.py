"""Two ends asked about a past moment or window (issue 25 item 1: "between 10.x and 10.y at
12:12 today?"): a connectivity diagnosis at that time, not a bare trace. A trace of that moment
delivers once the fault has gone and names nothing; the diagnosis reads the alarms and changes
of the window and names what came and went. "trace ... at 12:12" and a window reaching now stay
as they were."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.planner import Vocabulary, plan
from tests.conftest import CLOCK
from tests.diagnosis.test_answers_headline import ask, lab_copilot

A, B = "10.2.27.20", "10.1.13.20"  # their path crosses dc1-border-02 (tests/diagnosis/test_answers_window.py)
REBOOT_1212 = {"kind": "device_reboot", "at": "-468m", "target": {"device": "dc1-border-02"}}
PAST = [f"between {A} and {B} at 12:12 today?",
        f"what happened between {A} and {B} at 12:12 today?",
        f"{A} and {B} between 12:05 and 12:20?",
        f"what happened between {A} and {B} this morning?",
        f"between {A} and {B} yesterday around 18:05?"]
NOT_PAST = [f"trace {A} to {B} at 12:12 today",  # the trace word asks for the trace itself
            f"show traffic between {A} and {B} since 08:00",  # reaches now: no past to diagnose
            f"between {A} and {B}?"]


@pytest.fixture(scope="module")
def vocab(backends: Any) -> Vocabulary:
    return Vocabulary.from_inventory(backends.inventory)


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("question", PAST)
def test_two_ends_at_a_past_time_are_a_diagnosis(vocab: Vocabulary, question: str) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "diagnose.connectivity"
    assert p.entities.at or p.entities.window  # the asked time goes with it
    assert [(c.tool, c.args["src"], c.args["dst"]) for c in p.calls] == [("traceroute", A, B)]


@pytest.mark.parametrize("question", NOT_PAST)
def test_a_trace_or_a_window_to_now_stays_a_trace(vocab: Vocabulary, question: str) -> None:
    assert plan(question, vocab, CLOCK).intent == "trace"


def test_the_reboot_that_came_and_went_at_that_moment_is_named(make_lab: Any) -> None:
    r = ask(lab_copilot(make_lab(), [REBOOT_1212]), PAST[0])
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("device.reboot", "dc1-border-02")
    assert "12:12" in r["answer"]
    reads = {e["tool"] for e in r["evidence"]}
    assert {"alarms", "changelog"} <= reads  # the window's history was read, not the trace only
