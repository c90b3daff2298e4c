"""The model's API key never leaves through an error: a server that answers 401 and echoes the
key (as some OpenAI-compatible servers and proxies do) on every path that calls the model —
planner, coder, summarizer, ranker — over real HTTP. The key must appear nowhere in what
`answer` returns (answer, evidence, steps) nor in the thread the checkpointer keeps, and the
scrubbed text must still say what failed."""

from __future__ import annotations

import json
from typing import Any

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai_testkit.fake_openai import FakeOpenAI, call, calls, fake_openai_fixture, status, text  # noqa: F401

KEY = "sk-live-Kq81-S3CRET-echo-7743"
ECHO = f"Incorrect API key provided: {KEY}. You can find your API key at your dashboard."
SRC, DST = "10.1.3.20", "10.2.1.40"


def _copilot(backends: Any, fake: FakeOpenAI) -> Copilot:
    return Copilot(backends, llm=fake.chat_model(timeout=5, api_key=KEY))


def _nowhere(copilot: Copilot, thread: str, reply: dict[str, Any]) -> str:
    """Everything the user or the store can see of the turn, as text; the key is in none of it."""
    seen = json.dumps(reply, default=str) + json.dumps(copilot.thread(thread).state, default=str)
    assert KEY not in seen
    return seen


def test_planner_failure_is_scrubbed(backends: Any, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(status(401, ECHO))
    copilot = _copilot(backends, fake_openai)
    r = copilot.answer("who owns 10.1.3.20?", "key-planner")
    _nowhere(copilot, "key-planner", r)
    assert "AuthenticationError" in r["answer"] and "Incorrect API key provided: ***" in r["answer"]
    assert "dc1-host-03-1" in r["answer"]  # the offline planner still answered


def test_coder_failure_is_scrubbed(backends: Any, fake_openai: FakeOpenAI) -> None:
    # the model plans the telemetry, says it is done; the coder's own call then fails
    fake_openai.script(calls(call("telemetry", {"metric": "errors", "site": "dc1", "top": 50})),
                       text("Here are the error counters [E1]."),
                       status(401, ECHO),
                       text("Counters listed [E1]; the analysis failed [E2]."))
    copilot = _copilot(backends, fake_openai)
    r = copilot.answer("top error ports per pod in dc1 over the last day", "key-coder")
    seen = _nowhere(copilot, "key-coder", r)
    coder = next(e for e in r["evidence"] if e["tool"] == "coder")
    assert coder["errors"] and "Incorrect API key provided: ***" in coder["errors"][0]
    assert "***" in seen


def test_summarizer_failure_is_scrubbed(backends: Any, fake_openai: FakeOpenAI) -> None:
    # the model's own answer cites nothing, so the summarizer asks again: that call fails
    fake_openai.script(calls(call("metadata", {"query": "ip", "ip": SRC})),
                       text("It is a host somewhere."),
                       status(401, ECHO))
    copilot = _copilot(backends, fake_openai)
    r = copilot.answer("who owns 10.1.3.20?", "key-summarizer")
    _nowhere(copilot, "key-summarizer", r)
    assert "The LLM summarizer failed (" in r["answer"] and "AuthenticationError" in r["answer"]
    assert fake_openai.unscripted == 0


def test_ranker_failure_is_scrubbed(make_lab: Any, fake_openai: FakeOpenAI) -> None:
    # two strong leads (an uplink down, an ACL where the trace stops) make the engine ask the
    # model to rank them; that call fails and the symptom scores stand
    engine = make_lab()
    inject(engine, Scenario.model_validate({
        "id": "tie-key", "now": lab_info(engine).clock, "question": f"{SRC} to {DST} not communicating",
        "faults": [{"at": "-25m", "kind": "link_down", "target": {"link": "dc1-leaf-03:Ethernet49"}},
                   {"at": "-25m", "kind": "acl_block", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    fake_openai.script(calls(call("traceroute", {"src": SRC, "dst": DST})),
                       status(401, ECHO),
                       text("The ACL on dc1-leaf-03 drops the flow [E1]."))
    copilot = _copilot(lab_backends(engine), fake_openai)
    r = copilot.answer(f"{SRC} to {DST} not communicating", "key-ranker")
    _nowhere(copilot, "key-ranker", r)
    steps = next(s for s in r["steps"] if s["node"] == "diagnose")["steps"]
    assert any("the model's ranking was not usable" in s["text"] for s in steps if s["action"] == "rank")
    assert r["root_cause"]["label"] == "config.acl_block" and fake_openai.unscripted == 0
