"""The copilot offline, end to end on the healthy lab: each everyday query class gets an
answer whose facts come from the right tool and whose citations all resolve; threads carry
follow-ups and survive a restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.sandbox import worker


@pytest.fixture(scope="module")
def copilot(backends: Any) -> Iterator[Copilot]:
    yield Copilot(backends)
    worker.shutdown()  # the sandbox worker the analysis questions started


def ask(c: Copilot, q: str, thread: str = "t") -> dict[str, Any]:
    r = c.answer(q, thread)
    ids = {e["id"] for e in r["evidence"]}
    assert validate_citations(r["answer"], ids) == [], r["answer"]
    assert set(r["citations"]) <= ids
    return r


def tools_of(r: dict[str, Any]) -> list[str]:
    return [e["tool"] for e in r["evidence"]]


CLASSES = [  # (question, intent, the tool whose evidence answers it, a fact it must state)
    ("list the PoDs of dc1 and their segments", "inventory.pods", "metadata", "dc1-pod2"),
    ("who owns 10.1.3.20?", "inventory.ip", "metadata", "dc1-host-03-1"),
    ("what is the upstream switch of 10.2.1.40", "inventory.upstream", "metadata", "dc2-leaf-01"),
    ("any DCI link alarms in the last 2 hours?", "alarms", "alarms", "dci alarms"),
    ("port link status across all switches since 08:00", "telemetry.status", "telemetry",
     "ports on all switches"),
    ("top error ports in dc2 over the last 24h", "telemetry.errors", "telemetry", "ports"),
    ("what changed on dc1-spine-02 today", "changes", "changelog", "change records"),
    ("trace 10.1.3.20 to 10.2.1.40", "trace", "traceroute", "reached the destination"),
]


@pytest.mark.parametrize(("question", "intent", "tool", "fact"), CLASSES)
def test_query_classes(copilot: Copilot, question: str, intent: str, tool: str, fact: str) -> None:
    r = ask(copilot, question, thread=question)
    assert r["intent"] == intent
    assert tool in tools_of(r)
    assert fact in r["answer"]
    assert r["root_cause"] is None  # not a diagnosis
    assert [s["node"] for s in r["steps"]][:2] == ["planner", "tools"]
    assert r["steps"][-1]["node"] == "summarizer"


def test_connectivity_answer_has_root_cause_steps_and_evidence_list(copilot: Copilot) -> None:
    r = ask(copilot, "10.1.3.20 to 10.2.1.40 not communicating", thread="diag")
    assert r["root_cause"]["label"] == "none"
    nodes = [s["node"] for s in r["steps"]]
    assert nodes == ["planner", "tools", "planner", "tools", "diagnose", "summarizer"]
    # the question's own answer first (issue 25 item 6), then the diagnosis
    paths = next(e for e in r["evidence"] if e["tool"] == "traceroute")["facts"]["ecmp_paths"]
    assert r["answer"].startswith(f"**Reachable: yes** — {paths} of {paths} equal-cost paths deliver")
    assert "**No fault found on this path.**" in r["answer"].split("\n", 1)[0]
    assert "### Evidence" in r["answer"]
    assert {"traceroute", "changelog", "alarms"} <= set(tools_of(r))


def test_follow_ups_in_a_thread(copilot: Copilot) -> None:
    first = ask(copilot, "who owns 10.1.3.20", thread="fu")
    second = ask(copilot, "and its upstream switch?", thread="fu")
    assert second["intent"] == "inventory.upstream"
    assert "dc1-leaf-03" in second["answer"]
    # evidence ids are per conversation: the second turn's continue after the first's
    assert int(second["citations"][0][1:]) > int(first["citations"][-1][1:])
    ask(copilot, "list the PoDs of dc1", thread="fu-site")
    third = ask(copilot, "what about dc2?", thread="fu-site")
    assert third["intent"] == "inventory.pods"
    assert third["evidence"][0]["args"]["site"] == "dc2" and "dc2-pod1" in third["answer"]


def test_unplaceable_question_gets_honest_help(copilot: Copilot) -> None:
    r = copilot.answer("what is the meaning of life", "help")
    assert r["intent"] == "unknown"
    assert r["evidence"] == [] and r["citations"] == []
    assert "I could not place this" in r["answer"]


def test_step_stream_is_typed_and_ordered(copilot: Copilot) -> None:
    steps = list(copilot.ask("trace 10.1.3.20 to 10.2.1.40", "stream"))
    assert [s.node for s in steps] == ["planner", "tools", "summarizer", "done"]
    assert steps[1].data["evidence"][0]["tool"] == "traceroute"
    assert "rows" not in steps[1].data["evidence"][0]  # front ends get summaries, not tables
    assert steps[-1].data["elapsed_ms"] >= 0


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETOPSAI_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], env=env, text=True,
                          capture_output=True, timeout=120)


def test_thread_resumes_in_a_new_process(tmp_path: Path) -> None:
    assert run_cli(tmp_path, "lab", "init", "--now", "2025-11-04T20:00:00Z").returncode == 0
    one = run_cli(tmp_path, "ask", "who owns 10.1.3.20?", "--json", "--thread", "ops-1")
    assert one.returncode == 0, one.stderr
    two = run_cli(tmp_path, "ask", "and its upstream switch?", "--json", "--thread", "ops-1")
    assert two.returncode == 0, two.stderr
    r1, r2 = json.loads(one.stdout), json.loads(two.stdout)
    assert r2["intent"] == "inventory.upstream" and "dc1-leaf-03" in r2["answer"]
    assert r2["citations"] == ["E2"] and r1["citations"] == ["E1"]
    other = run_cli(tmp_path, "ask", "and its upstream switch?", "--json", "--thread", "ops-2")
    fresh = json.loads(other.stdout)  # a new thread has no past to refer back to
    assert fresh["evidence"] == [] and "dc1-leaf-03" not in fresh["answer"]
    assert "needs a device name or an IP" in fresh["answer"]


def test_ask_json_has_the_contract_keys(tmp_path: Path) -> None:
    assert run_cli(tmp_path, "lab", "init", "--now", "2025-11-04T20:00:00Z").returncode == 0
    out = run_cli(tmp_path, "ask", "10.1.3.20 to 10.2.1.40 not communicating", "--json")
    r = json.loads(out.stdout)
    for key in ("answer", "root_cause", "citations", "evidence", "steps", "tokens", "elapsed_ms"):
        assert key in r
    assert r["tokens"] == {"prompt": 0, "completion": 0}
    assert set(r["root_cause"]) >= {"label", "device", "interface", "confidence"}


def test_ask_bad_input_is_one_line(tmp_path: Path) -> None:
    out = run_cli(tmp_path, "ask", "   ")
    assert out.returncode != 0 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = run_cli(tmp_path, "ask", "who owns 10.1.3.20?")
    assert out.returncode != 0 and "lab init" in out.stderr  # no lab yet


def test_chat_streams_steps_and_answers(tmp_path: Path) -> None:
    assert run_cli(tmp_path, "lab", "init", "--now", "2025-11-04T20:00:00Z").returncode == 0
    env = {**os.environ, "NETOPSAI_HOME": str(tmp_path), "COLUMNS": "200"}
    out = subprocess.run([sys.executable, "-m", "netopsai.cli", "chat", "--thread", "c1"],
                         input="who owns 10.1.3.20?\nand its upstream switch?\nexit\n", env=env,
                         text=True, capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "planner: inventory.ip -> metadata" in out.stdout
    assert "planner: inventory.upstream -> metadata" in out.stdout
    assert "dc1-host-03-1" in out.stdout and "dc1-leaf-03" in out.stdout
