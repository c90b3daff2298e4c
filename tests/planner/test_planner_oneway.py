"""One-way words (issue 25 item 2): "SYNs arrive but nothing comes back", "they see our
requests", "replies never come back", "asymmetric" between two ends are a connectivity
diagnosis (which traces the way back too), not a plain trace; the flow starts at the end that
asks ("replies from B never come back to A" traces A -> B). End to end on the lab, with an ACL
that only the return path crosses, each answer names the fault as on the return path."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.planner import Vocabulary, plan
from tests.diagnosis.test_answers_headline import ask, first_line, lab_copilot
from tests.diagnosis.test_answers_return import BACK_ACL
from tests.planner.test_planner_rules import CLOCK

A, B = "10.2.27.20", "10.1.13.20"  # A's ToR (dc2-leaf-27) drops what comes back to A's segment
ONE_WAY = [
    f"SYNs arrive at {B} from {A} but nothing comes back",
    f"one-way traffic between {A} and {B}",
    f"one way only {A} to {B}",
    f"{B} says they see our requests from {A} but we get nothing",
    f"their side sees our echo requests, {A} -> {B}",
    f"SYN goes out from {A} to {B}, no SYN-ACK",
    f"replies never come back from {B} to {A}",
    f"replies from {B} never come back to {A}",
    f"no SYN-ACK from {B}, SYNs leave {A} fine",
    f"asymmetric routing between {A} and {B}?",
    f"pings from {A} reach {B} but replies never come back",
    f"from {A} to {B} the responses don't make it back",
    "dc2-host-27-1 to dc1-host-13-1: they receive our packets, nothing comes back",
    "responses from dc1-host-13-1 never arrive at dc2-host-27-1",
]
STILL_A_TRACE = [f"trace from {A} to {B}", f"show traffic between {A} and {B}",
                 f"which path does {A} take to {B}"]


@pytest.fixture(scope="module")
def vocab(backends: Backends) -> Vocabulary:
    return Vocabulary.from_inventory(backends.inventory)


@pytest.mark.parametrize("question", ONE_WAY)
def test_one_way_words_are_a_diagnosis_from_the_end_that_asks(vocab: Vocabulary, question: str) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "diagnose.connectivity"
    assert [(c.tool, c.args["src"], c.args["dst"]) for c in p.calls] == [("traceroute", A, B)]


@pytest.mark.parametrize("question", STILL_A_TRACE)
def test_a_path_question_without_one_way_words_stays_a_trace(vocab: Vocabulary, question: str) -> None:
    assert plan(question, vocab, CLOCK).intent == "trace"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def test_each_one_way_question_names_the_return_path_fault(make_lab: Any) -> None:
    c = lab_copilot(make_lab(), [BACK_ACL])
    for i, question in enumerate(ONE_WAY):
        r = ask(c, question, thread=f"t{i}")
        assert r["root_cause"]["label"] == "config.acl_block", question
        assert r["root_cause"]["device"] == "dc2-leaf-27", question
        head = first_line(r)
        assert head.startswith("**Reachable: one way only**"), (question, head)
        assert "return path stops at dc2-leaf-27" in head, (question, head)
        assert any(e["tool"] == "traceroute" and e["args"]["src"] == B for e in r["evidence"])


@pytest.mark.parametrize("question", [f"what's wrong between {A} and {B}?",
                                      f"whats wrong b/w {A} and {B}?? urgent",
                                      f"anything wrong between {A} and {B}"])
def test_a_health_question_between_two_ends_is_a_diagnosis(vocab: Vocabulary, question: str) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "diagnose.connectivity"
    assert [(c.tool, c.args["src"], c.args["dst"]) for c in p.calls] == [("traceroute", A, B)]
