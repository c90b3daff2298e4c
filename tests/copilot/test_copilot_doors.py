"""The copilot as the one door (issue 27, items 2 and 4): thread ids from one owner that still
reads every format threads were stored under, evidence ids only from a ledger (one start rule,
one ledger per turn carried in the state), one tool call through the door, typed turns."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from netopsai.copilot import threads
from netopsai.copilot.evidence import Evidence, Ledger
from netopsai.copilot.service import Copilot
from netopsai.copilot.steps import Step, describe

STORED = ["web:alice:0123456789abcdef", "web:anonymous:t-resume", "slack:C123:1712345678.000100",
          "api:ops-bot:42", "mcp:claude:abc", "mcp:abc", "triage:fp-9:1712345678",
          "cli-1a2b3c4d", "cli-my_own-thread", "arena-dc1-leaf-down-123456789", "default"]


@pytest.mark.parametrize("stored", STORED)
def test_every_stored_thread_id_reads_back_to_the_same_key(stored: str) -> None:
    tid = threads.parse(stored)
    assert tid.key == stored
    assert threads.key(tid.front, tid.owner, tid.id) == stored


def test_thread_ids_name_their_front_end_and_owner() -> None:
    assert threads.parse("web:alice:0123") == threads.ThreadId("web", "alice", "0123")
    assert threads.parse("mcp:abc") == threads.ThreadId("mcp", "", "abc")
    assert threads.parse("arena-dc1-leaf-down-99") == threads.ThreadId("arena", "dc1-leaf-down", "99")
    assert threads.parse("default") == threads.ThreadId("", "", "default")
    assert threads.belongs("slack:C1:171.2", "slack", "C1")
    assert not threads.belongs("slack:C12:171.2", "slack", "C1")  # another channel's
    assert len(threads.new_id("web")) == 16 and len(threads.new_id("cli")) == 8
    assert threads.new_id("web") != threads.new_id("web")


def test_evidence_has_no_id_until_a_ledger_mints_one() -> None:
    assert Evidence(tool="alarms").id == ""
    assert Ledger().mint() == "E1"
    held: list[Any] = [{"id": "E2"}, Evidence(id="E5", tool="x"), {"id": ""}, {"id": "coder"}]
    ledger = Ledger.following(held)  # the one start rule: after the highest id held
    assert ledger.reserve(2) == ["E6", "E7"] and ledger.last == 7
    assert Ledger.carried(ledger.last).mint() == "E8"


def test_one_tool_call_through_the_door_is_e1(backends: Any) -> None:
    copilot = Copilot(backends)
    ev = copilot.tool("metadata", {"query": "devices"})
    assert ev.id == "E1" and ev.rows and not ev.errors
    assert copilot.tool("metadata", {"query": "devices"}).id == "E1"  # each call a turn of its own
    bad = copilot.tool("nope", {})
    assert bad.id == "E1" and bad.errors and "nope" in bad.errors[0]
    assert "alarms" in copilot.tools()


def test_a_turns_ledger_is_carried_in_the_state_and_typed_turns_read_it(backends: Any) -> None:
    copilot = Copilot(backends)
    first = copilot.answer("who owns 10.1.3.20?", "t-doors")
    second = copilot.answer("10.1.3.20 to 10.2.1.40 not communicating", "t-doors")
    thread = copilot.thread("t-doors", steps=True)
    ids = [e["id"] for e in thread.evidence]
    assert ids == [f"E{i}" for i in range(1, len(ids) + 1)]  # continued, never restarted
    assert thread.state["ledger"] == len(ids)  # the last number the turn's ledger minted
    assert [e["id"] for e in second["evidence"]][0] == f"E{len(first['evidence']) + 1}"
    turns = thread.turns
    assert [t.question for t in turns] == ["who owns 10.1.3.20?",
                                           "10.1.3.20 to 10.2.1.40 not communicating"]
    assert [t.answer for t in turns] == [first["answer"], second["answer"]]
    assert turns[1].evidence == second["citations"]
    assert any(s.node == "diagnose" for s in turns[1].steps)
    assert not copilot.thread("t-doors").turns[0].steps  # steps only when asked for


def test_step_descriptions_live_with_the_steps() -> None:
    step = Step("tools", {"evidence": [{"id": "E3", "tool": "alarms", "summary": "2 open"}]})
    assert describe(step) == "[E3] alarms: 2 open"
    assert describe(Step("planner", {"intent": "alarms", "calls": []})) == "planner: alarms -> no tool calls"


def test_batch_checks_through_the_door_match_the_batch_runner(make_lab: Callable[..., Any]) -> None:
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.batch import BatchChecker, parse_pairs
    from netopsai.lab.inject import inject
    from netopsai.lab.scenario import Scenario

    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "door", "faults": [
        {"kind": "device_down", "target": {"device": "dc2-leaf-05"}}]}))
    b = lab_backends(engine)
    # a pair whose destination's ToR is dead, then a healthy one (hosts of the small lab)
    pairs, errors = parse_pairs("10.1.1.20,10.2.5.20\n10.1.1.20,10.2.1.40\n", None)
    assert errors == []
    through_door = Copilot(b).check_pairs(pairs)
    assert [r.status for r in through_door] == ["unreachable", "reachable"]
    assert through_door[0].evidence[0] == "traceroute E1" and through_door[0].cause
    assert through_door == BatchChecker(b, concurrency=2).run(pairs)


def test_alarms_acks_and_silences_go_through_the_door(make_lab: Callable[..., Any]) -> None:
    from netopsai.backends.lab import lab_backends
    from netopsai.common.errors import NetopsError

    copilot = Copilot(lab_backends(make_lab()))
    read = copilot.alarms("7d")
    assert read.id == "E1" and read.tool == "alarms" and read.args.get("correlate") is True
    assert read.rows and "cases" in read.facts
    first, second = (int(r["id"]) for r in read.rows[:2])
    assert copilot.ack_states([first, second]) == {}
    copilot.ack(first, "alice", "on it")
    copilot.silence(second, "bob", "maintenance", "2h")
    states = copilot.ack_states([first, second])
    assert (states[first].state, states[first].by, states[first].why) == ("acked", "alice", "on it")
    assert states[second].state == "silenced" and states[second].until is not None
    with pytest.raises(NetopsError):  # checked by the store: an alarm that does not exist
        copilot.ack(10**12, "alice", "")


def test_the_arenas_traceroute_baseline_takes_its_ids_from_the_runners_ledger(backends: Any) -> None:
    from netopsai.arena.baselines import traceroute_only
    from netopsai.copilot.toolbox import Toolbox

    question = "10.1.3.20 to 10.2.1.40 not communicating"
    reply = traceroute_only(question, Toolbox(backends).runner(Ledger()))
    assert [e["id"] for e in reply.evidence] == ["E1", "E2"]  # the trace, then the jumbo probe
    assert re.search(r"\[E[12]\]", reply.answer)
    later = traceroute_only(question, Toolbox(backends).runner(Ledger.carried(4)))
    assert [e["id"] for e in later.evidence] == ["E5", "E6"]  # the ledger's, never fixed ones
