"""Errors that help (issue 26 item 9): "is the network ok?" answered offline from the existing
tools, an invalid address stops the turn, and an unknown name is offered names of its own kind."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.planner import Vocabulary, plan
from netopsai.sandbox import worker

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)  # tests/conftest.py CLOCK


@pytest.fixture(scope="module")
def vocab(backends: Backends) -> Vocabulary:
    return Vocabulary.from_inventory(backends.inventory)


@pytest.fixture(scope="module")
def copilot(backends: Backends) -> Iterator[Copilot]:
    yield Copilot(backends)
    worker.shutdown()


@pytest.mark.parametrize("question", ["is the network ok?", "is everything ok", "network status",
                                      "Is the network OK right now?", "how is the network doing?",
                                      "any problems?", "anything wrong today?"])
def test_the_whole_network_is_an_overview_of_cases_worst_ports_and_changes(
        question: str, vocab: Vocabulary) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.intent == "overview"
    tools = [c.tool for c in p.calls]
    assert tools == ["alarms", "telemetry", "changelog"]
    assert p.calls[0].args["state"] == "open" and p.calls[0].args["correlate"] is True
    assert p.calls[1].args["metric"] == "flaps"


@pytest.mark.parametrize("question", ["is dc1-leaf-01 ok?", "is the network ok in dc1?",
                                      "is 10.1.3.20 ok", "network status of the spines"])
def test_a_question_that_names_a_place_is_not_the_overview(question: str, vocab: Vocabulary) -> None:
    assert plan(question, vocab, CLOCK).intent != "overview"


def test_the_overview_window_follows_the_question(vocab: Vocabulary) -> None:
    p = plan("is the network ok in the last 6h?", vocab, CLOCK)
    assert p.intent == "overview"
    assert {c.args["window"] for c in p.calls} == {"6h"}


def test_the_overview_answers_offline_with_a_citation_per_part(copilot: Copilot) -> None:
    r = copilot.answer("is the network ok?", "ov-1")
    assert r["intent"] == "overview"
    assert [e["tool"] for e in r["evidence"]] == ["alarms", "telemetry", "changelog"]
    assert not any(e.get("errors") for e in r["evidence"])
    assert {"E1", "E2", "E3"} <= set(re.findall(r"\[(E\d+)\]", r["answer"]))
    assert "could not place" not in r["answer"]


@pytest.mark.parametrize("question", ["10.1.3.300 to 10.2.1.40 not communicating",
                                      "packet loss from 10.2.1.40 to 10.1.3.300",
                                      "who owns 10.1.3.300 and 10.2.1.40"])
def test_an_invalid_address_stops_the_turn(question: str, vocab: Vocabulary, copilot: Copilot) -> None:
    p = plan(question, vocab, CLOCK)
    assert p.calls == []
    assert "10.1.3.300 is not a valid IPv4 address" in p.note
    r = copilot.answer(question, f"bad-{question}")
    assert r["evidence"] == []


def _suggested(note: str) -> list[str]:
    m = re.search(r"did you mean ([^?]+)\?", note)
    return m.group(1).split(", ") if m else []


def test_an_unknown_device_is_offered_devices_only(vocab: Vocabulary) -> None:
    near = _suggested(plan("what is wrong with dc1-leaf-99", vocab, CLOCK).note)
    assert near and not set(near) & set(vocab.pods)
    assert all(n in vocab.devices for n in near)


def test_an_unknown_pod_is_offered_pods_only(vocab: Vocabulary) -> None:
    near = _suggested(plan("details of dc1-pod9", vocab, CLOCK).note)
    assert near and set(near) <= set(vocab.pods)


def _first_line(r: dict[str, object]) -> str:
    from netopsai.copilot.headline import headline

    return headline(str(r["answer"]))


def test_the_overview_headline_says_ok_on_a_healthy_lab(copilot: Copilot) -> None:
    r = copilot.answer("is the network ok?", "ov-ok")
    alarms = next(e for e in r["evidence"] if e["tool"] == "alarms")
    assert alarms["facts"]["open"] == 0  # the rows under the verdict: nothing open
    line = _first_line(r)
    assert line.startswith("OK: no open cases in the last 24h (")
    assert "2025-11-04 20:00" in line  # the window it read, on the network's clock
    # the rest of the glance is counted from the same evidence, not guessed
    flaps = next(e for e in r["evidence"] if e["tool"] == "telemetry")["facts"]["changed"]
    assert f"{flaps} port" in line


def test_the_overview_headline_says_not_ok_and_names_the_open_case(make_lab: object) -> None:
    from netopsai.backends.lab import lab_backends
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import lab_info
    from netopsai.lab.scenario import Scenario

    engine = make_lab()  # type: ignore[operator]
    sc = Scenario.model_validate({"id": "ov-down", "now": lab_info(engine).clock, "question": "q",
                                  "faults": [{"at": "-25m", "kind": "link_down",
                                              "target": {"link": "dc1-leaf-03:Ethernet52"}}]})
    inject(engine, sc)
    r = Copilot(lab_backends(engine)).answer("is the network ok?", "ov-down")
    cases = next(e for e in r["evidence"] if e["tool"] == "alarms")["facts"]["cases"]
    open_cases = [c for c in cases if c["state"] == "open"]
    assert open_cases
    line = _first_line(r)
    n = len(open_cases)
    assert line.startswith(f"Not OK: {n} open case{'s' if n > 1 else ''} in the last 24h")
    root = open_cases[0]
    assert f"{root['case']} {root['root_kind']} on {root['root_device']}" in line
    assert not line.startswith("OK")  # never the reverse of the rows


def test_an_overview_whose_alarms_failed_is_unknown_never_ok() -> None:
    from netopsai.copilot.evidence import Evidence
    from netopsai.copilot.verdict import verdict

    ev = [Evidence(id="E1", tool="alarms", args={"window": "24h"}, errors=["store unreachable"]),
          Evidence(id="E2", tool="changelog", facts={"changes": 0})]
    line = verdict(ev)
    assert line.startswith("Unknown: the open alarms could not be read") and "store unreachable" in line
