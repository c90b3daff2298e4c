"""The LLM planner is never worse than the offline planner for what the offline planner learned
(issue 24/25): full host names, a device's address, a device known only from its logs, one-way
words, "is the network ok?". A scripted OpenAI-compatible model over real HTTP proposes a
partial or wrong plan; the calls run are still every call the offline path makes (or more), and
a name like core-rtr.example.net in the model's own call is read, not refused."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.registry import configured_backends
from netopsai.config.load import load_netconfig
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.planner.llm import LLMPlanner
from netopsai.store.engine import engine_for
from netopsai.tools.registry import REGISTRY, run_tool
from netopsai_testkit.fake_openai import FakeOpenAI, call, calls, fake_openai_fixture, text  # noqa: F401
from tests.diagnosis.test_answers_headline import lab_copilot
from tests.diagnosis.test_answers_return import BACK_ACL
from tests.planner.test_logs_questions import AFTER_FQDN, AFTER_UNKNOWN, _At, home  # noqa: F401
from tests.planner.test_logs_questions_names import LEAF9, NOW, vocab

A, B = "10.2.27.20", "10.1.13.20"  # tests/planner/test_planner_oneway.py: the way back is blocked
ANSWER = [text("Done [E1].")] * 6  # whatever the model writes once it has evidence


def ran(r: dict[str, Any]) -> set[tuple[str, str]]:
    """The tool calls an answer ran (the coder's analysis aside: it reads the calls' evidence)."""
    return {(e["tool"], json.dumps(e["args"], sort_keys=True)) for e in r["evidence"]
            if e["tool"] != "coder"}


def real_copilot(where: Path, now: datetime, llm: Any = None) -> Copilot:
    os.environ["NETOPSAI_HOME"] = str(where)
    engine = engine_for(f"sqlite:///{where / 'netopsai.db'}")
    return Copilot(replace(configured_backends(engine, load_netconfig(where)),
                           inventory=_At(engine, now)), llm=llm)


def both(copilot: Any, question: str, server: FakeOpenAI, *script: Any) -> tuple[dict[str, Any], ...]:
    """The offline answer and the scripted model's answer to `question`."""
    offline = copilot(None).answer(question, "offline")
    server.script(*script, *ANSWER)
    r = copilot(server.chat_model(timeout=5)).answer(question, "llm")
    assert r["llm_calls"] >= 1
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    return offline, r


def test_a_full_name_in_the_models_call_is_read_as_the_inventorys_device(
        fake_openai: FakeOpenAI) -> None:
    v = vocab({"leaf9.example.net": LEAF9}, {"192.0.2.11": "core-rtr"})
    fake_openai.script(calls(call("telemetry", {"metric": "flaps", "devices": [
        "CORE-RTR.example.net", "192.0.2.11", "leaf9", "nexus-33"]}),
        call("metadata", {"query": "device", "name": "nexus-33.example.net"})))
    d = LLMPlanner(fake_openai.chat_model(timeout=5), REGISTRY).plan("flaps?", NOW, vocab=v)
    assert d.fallback_reason is None
    assert d.calls[0].args["devices"] == ["core-rtr", "core-rtr", "leaf9.example.net", "nexus-33"]
    assert d.calls[1].args["name"] == "nexus-33"
    assert d.read_as == {"CORE-RTR.example.net": "core-rtr", "192.0.2.11": "core-rtr",
                         "leaf9": "leaf9.example.net", "nexus-33.example.net": "nexus-33"}
    assert d.notes == [LEAF9.note()]  # said once, as the offline planner says it
    fake_openai.script(calls(call("telemetry", {"metric": "flaps", "devices": ["dc1-spine-*"]})))
    d = LLMPlanner(fake_openai.chat_model(timeout=5), REGISTRY).plan("flaps?", NOW, vocab=v)
    assert d.calls[0].args["devices"] == ["dc1-spine-*"] and d.read_as == {}  # unknown: as given


def test_a_traceroute_end_named_by_full_name_becomes_its_address(fake_openai: FakeOpenAI,
                                                                backends: Any) -> None:
    from netopsai.planner import Vocabulary

    v = replace(Vocabulary.from_inventory(backends.inventory), domains=("example.net",))
    fake_openai.script(calls(call("traceroute", {"src": "dc2-host-27-1.example.net",
                                                 "dst": "dc1-host-13-1"})))
    d = LLMPlanner(fake_openai.chat_model(timeout=5), REGISTRY).plan("trace", NOW, vocab=v)
    assert d.fallback_reason is None, d.fallback_reason  # without a name read it is refused
    assert (d.calls[0].args["src"], d.calls[0].args["dst"]) == (A, B)


def test_an_fqdn_question_runs_the_offline_calls_and_says_how_it_read_the_name(
        home: Path, fake_openai: FakeOpenAI) -> None:  # noqa: F811 - the fixture, imported
    question = "what happened to core-rtr.example.net Gi0/1 on 22 August?"
    refused = run_tool("alarms", {"devices": ["core-rtr.example.net"], "state": "any"},
                       real_copilot(home, AFTER_FQDN).backends)
    assert refused.errors  # what the model's own call met before its names were read
    offline, r = both(lambda llm: real_copilot(home, AFTER_FQDN, llm), question, fake_openai,
                      calls(call("alarms", {"devices": ["core-rtr.example.net"], "state": "any",
                                            "window": "24h"})))
    assert ran(offline) <= ran(r)
    mine = [e for e in r["evidence"] if e["tool"] == "alarms" and e["args"].get("window") == "24h"]
    assert mine and mine[0]["args"]["devices"] == ["core-rtr"] and not mine[0]["errors"]
    assert "Read 'core-rtr.example.net' as core-rtr" in r["answer"]


def test_a_provisional_device_question_runs_its_lines_and_alarms(
        home: Path, fake_openai: FakeOpenAI) -> None:  # noqa: F811 - the fixture, imported
    question = "which ports flapped on host.site yesterday?"
    offline, r = both(lambda llm: real_copilot(home, AFTER_UNKNOWN, llm), question, fake_openai,
                      calls(call("alarms", {"devices": ["HOST.SITE"], "state": "any"})))
    assert {t for t, _ in ran(offline)} >= {"events", "alarms"}
    assert ran(offline) <= ran(r)  # its log lines too, though the model asked for alarms only
    mine = [e for e in r["evidence"] if e["tool"] == "alarms" and "category" not in e["args"]]
    assert mine and mine[0]["args"]["devices"] == ["host.site"]  # as stored, not as typed
    assert "host.site is not in the inventory" in r["answer"]


@pytest.fixture
def one_way_lab(make_lab: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    engine = make_lab()
    lab_copilot(engine, [BACK_ACL])
    return engine


def test_one_way_words_trace_the_requester_first_whatever_the_model_traced(
        one_way_lab: Engine, fake_openai: FakeOpenAI) -> None:
    from netopsai.backends.lab import lab_backends

    question = f"replies from {B} never come back to {A}"
    offline, r = both(lambda llm: Copilot(lab_backends(one_way_lab), llm=llm), question,
                      fake_openai, calls(call("traceroute", {"src": B, "dst": A})))
    assert ran(offline) <= ran(r)  # the forward trace (and its jumbo probe), the way back
    first = next(e for e in r["evidence"] if e["tool"] == "traceroute")
    assert (first["args"]["src"], first["args"]["dst"]) == (A, B)  # the flow as asked
    assert r["root_cause"]["device"] == offline["root_cause"]["device"] == "dc2-leaf-27"
    prompt = fake_openai.requests[0]["messages"][0]["content"]
    assert "One-way" in prompt and "B -> A" in prompt


def test_is_the_network_ok_runs_the_whole_overview(backends: Any, fake_openai: FakeOpenAI,
                                                   tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    offline, r = both(lambda llm: Copilot(backends, llm=llm), "is the network ok?", fake_openai,
                      calls(call("alarms", {"state": "open"})))
    assert {t for t, _ in ran(offline)} == {"alarms", "telemetry", "changelog"}
    assert ran(offline) <= ran(r)
    assert "Is the network ok?" in fake_openai.requests[0]["messages"][0]["content"]



def test_what_went_down_network_wide_reads_every_ports_state(backends: Any, fake_openai: FakeOpenAI,
                                                              tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    offline, r = both(lambda llm: Copilot(backends, llm=llm), "what went down between 19:40 and "
                      "19:45?", fake_openai, calls(call("telemetry", {"metric": "flaps",
                                                                      "window": "1h"})))
    assert [json.loads(a)["metric"] for t, a in ran(offline)] == ["oper_status"]
    assert ran(offline) <= ran(r)


def test_a_name_only_the_model_wrote_is_said_as_read(home: Path, fake_openai: FakeOpenAI) -> None:  # noqa: F811
    question = "any alarms on core-rtr on 22 August?"
    offline, r = both(lambda llm: real_copilot(home, AFTER_FQDN, llm), question, fake_openai,
                      calls(call("alarms", {"devices": ["Core-Rtr.example.net"], "state": "any"})))
    assert "Read " not in offline["answer"]  # the question said the inventory's name
    assert "Read 'Core-Rtr.example.net' as core-rtr" in r["answer"]
    assert not [e for e in r["evidence"] if e["tool"] == "alarms" and e["errors"]]
