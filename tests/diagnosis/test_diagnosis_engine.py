"""The diagnosis engine through its API (netopsai.diagnosis.engine.diagnose) on real labs:
strategies, shared tool results, the inconclusive path with its ticket, LLM ranking with a
scripted chat model, and how a primary cause is chosen among confirmed faults."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.copilot.summarizer import render
from netopsai.diagnosis.base import Verdict
from netopsai.diagnosis.engine import diagnose
from netopsai.diagnosis.report import explains, primary
from netopsai.diagnosis.taxonomy import Taxonomy, load_taxonomy
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai_testkit.fake_openai import FakeOpenAI, call, calls, fake_openai_fixture, text  # noqa: F401

SRC, DST, SRC_TOR = "10.1.3.20", "10.2.1.40", "dc1-leaf-03"
ACL = {"kind": "acl_block", "target": {"device": SRC_TOR}, "params": {"dst": "10.2.1.0/24"}}


@pytest.fixture
def acl_lab(make_lab: Any) -> Any:
    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "acl", "now": lab_info(engine).clock,
                                            "question": f"{SRC} to {DST} not communicating",
                                            "faults": [{"at": "-25m", **ACL}],
                                            "noise": {"alarms": 10, "changes": 4}}))
    return lab_backends(engine)


def cited_ids_resolve(outcome: Any) -> None:
    ids = {e.id for e in outcome.evidence}
    assert set(outcome.diagnosis.citations) <= ids
    for r in outcome.diagnosis.ruled_out:
        assert r["cites"] and set(r["cites"]) <= ids


def test_full_strategy_names_the_acl_and_counts_its_work(acl_lab: Any) -> None:
    out = diagnose(acl_lab, src=SRC, dst=DST, question="why can't they talk")
    d = out.diagnosis
    assert (d.label, d.device) == ("config.acl_block", SRC_TOR)
    assert d.tier == "search" and d.checks_run >= 1
    assert d.tool_calls == len(out.evidence) == len(out.new)  # the API ran every call itself
    cited_ids_resolve(out)
    # checks share tool results: no tool was asked the same thing twice
    keys = [(e.tool, json.dumps(e.args, sort_keys=True)) for e in out.evidence]
    assert len(keys) == len(set(keys))
    actions = [s["action"] for s in d.steps]
    assert actions[0] == "rank" and "check" in actions


def test_cvd_runs_every_check_and_agrees(acl_lab: Any) -> None:
    full = diagnose(acl_lab, src=SRC, dst=DST).diagnosis
    cvd = diagnose(acl_lab, src=SRC, dst=DST, strategy="cvd").diagnosis
    every = {c for leaf in load_taxonomy().leaves() for c in leaf.checks}
    assert cvd.checks_run == len(every) > full.checks_run
    assert (cvd.label, cvd.device) == (full.label, full.device)


def test_history_strategy_without_memory_is_inconclusive(acl_lab: Any) -> None:
    d = diagnose(acl_lab, src=SRC, dst=DST, strategy="history").diagnosis
    assert d.label == "inconclusive" and d.checks_run == 0
    with pytest.raises(ValueError, match="strategy"):
        diagnose(acl_lab, src=SRC, dst=DST, strategy="guess")


def test_nothing_confirmed_gives_inconclusive_with_a_ticket(acl_lab: Any) -> None:
    # a taxonomy without config hypotheses cannot explain an ACL: the engine must say so
    tax = load_taxonomy()
    tax = Taxonomy({k: n for k, n in tax.nodes.items() if not k.startswith("config")})
    out = diagnose(acl_lab, src=SRC, dst=DST, taxonomy=tax)
    d = out.diagnosis
    assert d.label == "inconclusive" and d.device == SRC_TOR
    assert d.ticket is not None and d.ruled_out
    ticket = json.loads(d.ticket["json"])
    assert {r["hypothesis"] for r in ticket["ruled_out"]} == {r["label"] for r in d.ruled_out}
    assert "Ruled out:" in d.ticket["markdown"] and d.next_steps
    cited_ids_resolve(out)
    answer = render(out.evidence, d)  # the ticket draft rides in the answer, citations intact
    assert "Escalation ticket" in answer and d.ruled_out[0]["label"] in answer
    assert validate_citations(answer, {e.id for e in out.evidence}) == []


class ScriptedChat(GenericFakeChatModel):
    """A scripted chat model (the engine's model is injected): replies in order."""

    def bind_tools(self, *args: Any, **kwargs: Any) -> ScriptedChat:
        return self


def test_llm_ranks_the_candidates_and_tokens_are_counted(acl_lab: Any) -> None:
    llm = ScriptedChat(messages=iter([AIMessage('["routing", "config", "link"]'),
                                      AIMessage("I think config first: [\"config.acl_block\"]"),
                                      AIMessage("not json at all")] * 3))
    d = diagnose(acl_lab, src=SRC, dst=DST, llm=llm, llm_rank="always").diagnosis
    assert (d.label, d.device) == ("config.acl_block", SRC_TOR)  # ranking never decides alone
    assert d.llm_calls >= 1 and 0 < d.tokens["prompt"] <= 6000
    root = next(s for s in d.steps if s["action"] == "rank" and s["node"] == "root")
    assert "the model's ranking" in root["text"]
    assert root["text"].index("routing") < root["text"].index("config")


def test_unusable_llm_ranking_falls_back_to_symptom_scores(acl_lab: Any) -> None:
    llm = ScriptedChat(messages=iter([AIMessage("no idea")] * 20))
    d = diagnose(acl_lab, src=SRC, dst=DST, llm=llm, llm_rank="always").diagnosis
    assert d.label == "config.acl_block"
    assert any("not usable" in s["text"] for s in d.steps if s["action"] == "rank")


def v(label: str, device: str, peer: str | None = None, position: int = 3) -> Verdict:
    return Verdict("confirmed", label, ["E1"], device, None, peer, 0.9, position, label)


def test_a_dead_device_explains_its_links_and_position_ranks_the_rest() -> None:
    down, link = v("device.down", "spine-1", position=1), v("link.down", "leaf-3", "spine-1")
    assert explains(down, link) and not explains(link, down)
    top, effects, others = primary([link, down])
    assert top is down and effects == [link] and others == []
    stop, path = v("config.acl_block", "leaf-9", position=4), v("link.errors", "leaf-3")
    top, _, others = primary([path, stop])
    assert top is stop and others == [path]  # where the trace stops, not the alarm type


def test_an_unknown_address_is_inconclusive_and_says_why(backends: Any) -> None:
    out = diagnose(backends, src=SRC, dst="10.99.1.1")
    d = out.diagnosis
    assert d.label == "inconclusive" and d.ticket is None
    assert "10.99.1.1" in d.because[0].text and d.because[0].cites == [out.evidence[0].id]


def test_tool_budget_is_kept_and_shared_results_are_free(backends: Any) -> None:
    from netopsai.diagnosis.context import MAX_TOOL_CALLS, Context
    from netopsai.tools.registry import run_tool

    ctx = Context([], lambda tool, args: run_tool(tool, args, backends, "E9"))
    first = ctx.call("metadata", {"query": "ip", "ip": SRC})
    again = ctx.call("metadata", {"ip": SRC, "query": "ip"})  # same question, other spelling
    assert again is first and ctx.tool_calls == 1 and ctx.budget == MAX_TOOL_CALLS - 1
    ctx.budget = 0
    refused = ctx.call("metadata", {"query": "ip", "ip": DST})
    assert refused.errors and "tool calls" in refused.errors[0] and refused.id == ""
    assert ctx.tool_calls == 1 and refused not in ctx.evidence


def test_copilot_asks_its_model_to_rank_a_real_tie(make_lab: Any, fake_openai: FakeOpenAI) -> None:
    # two faults: an uplink down (alarms) and an ACL where the trace stops. Both categories
    # are strong leads, so the copilot's model (over HTTP) orders them; checks still decide
    engine = make_lab()
    inject(engine, Scenario.model_validate({
        "id": "tie", "now": lab_info(engine).clock, "question": f"{SRC} to {DST} not communicating",
        "faults": [{"at": "-25m", "kind": "link_down", "target": {"link": f"{SRC_TOR}:Ethernet49"}},
                   {"at": "-25m", **ACL}]}))
    fake_openai.script(calls(call("traceroute", {"src": SRC, "dst": DST})),
                       text('["config", "link", "routing"]'),
                       text("The ACL on dc1-leaf-03 drops the flow [E1]."))
    r = Copilot(lab_backends(engine), llm=fake_openai.chat_model(timeout=5)).answer(
        f"{SRC} to {DST} not communicating", "tie")
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("config.acl_block", SRC_TOR)
    assert r["llm_calls"] == 3 and fake_openai.unscripted == 0
    ranking = fake_openai.requests[1]["messages"][-1]["content"]
    assert "config.acl_block" not in ranking.split("Hypotheses under")[1]  # categories first
    assert "- link:" in ranking and "- config:" in ranking and "tools" not in fake_openai.requests[1]
    steps = next(s for s in r["steps"] if s["node"] == "diagnose")["steps"]
    root = next(s for s in steps if s["action"] == "rank" and s["node"] == "root")
    assert "the model's ranking" in root["text"]
    assert root["text"].index("config") < root["text"].index("link")
    # the model's prose, under the diagnosis' answer to the question (issue 25 item 6)
    assert r["answer"].startswith("**Reachable: no** — the trace stops at dc1-leaf-03")
    assert "[E1]. The ACL on dc1-leaf-03 drops the flow [E1]." in r["answer"].split("\n", 1)[0]
