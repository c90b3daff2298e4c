"""The coder agent (netopsai/copilot/coder.py): recipes over real tool evidence from an injected lab, and
the LLM path with a scripted chat model, including the one retry and a violation in generated
code. The sandbox's own containment is tested in test_sandbox.py."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.copilot.coder import extract_code, run_generated, run_recipe
from netopsai.copilot.doors import call_tool
from netopsai.copilot.evidence import Evidence
from netopsai.copilot.recipes import RECIPES
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.planner import Vocabulary, plan
from netopsai.planner.rules import PLANNED_RECIPES as PLANNED
from netopsai.sandbox import SandboxResult, run_code
from netopsai.tools.registry import run_tool
from tests.sandbox_helpers import (
    FLAPS,
    connects,
    listener_fixture,  # noqa: F401  (registers `listener`)
    settings,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
)

SRC, DST = "10.1.3.20", "10.2.1.40"
TICKET = "CHG-4242"
def call(b: Backends, tool: str, **args: Any) -> Evidence:
    ev = call_tool(b, tool, args)  # through the copilot's door: numbered E1 by its ledger
    assert not ev.errors, ev.errors
    return ev


# -- recipes over real tool evidence -------------------------------------------------------------

class Faulty:
    """A fresh lab with a flapping link on the SRC -> DST path, a change record on its near end
    just before, and CRC errors on the destination ToR's path port; noise elsewhere."""

    def __init__(self, engine: Engine) -> None:
        self.b = lab_backends(engine)
        hops = call(self.b, "traceroute", src=SRC, dst=DST).rows
        self.path = [h["device"] for h in hops]
        self.flap_dev, self.flap_port = hops[1]["device"], hops[1]["out_interface"]  # spine uplink
        self.flap_peer = hops[2]["device"]
        dst_tor = hops[-2]  # the last switch before the destination host: its ToR
        self.crc_dev, self.crc_port = dst_tor["device"], dst_tor["interface"]
        self.crc_pod = call(self.b, "metadata", query="device", name=self.crc_dev).rows[0]["pod"]
        self.clock = self.b.inventory.clock()
        inject(engine, Scenario.model_validate({
            "id": "coder", "now": self.clock, "question": f"{SRC} to {DST} not communicating",
            "faults": [
                {"kind": "change", "at": "-27m", "target": {"device": self.flap_dev},
                 "params": {"summary": "Upgrade optics firmware", "ticket": TICKET}},
                {"kind": "link_flap", "at": "-25m", "params": {"count": 5},
                 "target": {"link": f"{self.flap_dev}:{self.flap_port}"}},
                {"kind": "crc_errors", "at": "-25m",
                 "target": {"interface": f"{self.crc_dev}:{self.crc_port}"}}],
            "noise": {"alarms": 20, "changes": 8, "flaps": 2}}))

    def analyse(self, question: str, recipe: str) -> Evidence:
        """Plan the question offline, run the planned calls, then the planned recipe on them."""
        p = plan(question, Vocabulary.from_inventory(self.b.inventory), self.clock)
        assert p.recipe == recipe, (p.intent, p.recipe)
        inputs = [run_tool(c.tool, c.args, self.b, f"E{i}") for i, c in enumerate(p.calls, 1)]
        assert inputs and all(not e.errors for e in inputs)
        ev = run_recipe(recipe, inputs, question)
        assert ev.errors == [], ev.errors
        assert (ev.tool, ev.args["recipe"], ev.args["inputs"]) == ("coder", recipe, [e.id for e in inputs])
        assert ev.facts["code"] == RECIPES[recipe].source and ev.facts["violation"] is None
        assert ev.id == f"E{len(inputs) + 1}" and ev.rows and set(ev.rows[0]) == set(ev.columns)
        return ev


@pytest.fixture
def faulty(make_lab: Callable[..., Engine]) -> Faulty:
    return Faulty(make_lab())


def test_library_covers_every_planner_recipe() -> None:
    assert set(RECIPES) == set(PLANNED)


def test_flaps_vs_changes_finds_the_change_behind_the_flapping_link(faulty: Faulty) -> None:
    ev = faulty.analyse("did the flaps line up with changes in the last 6h?", "flaps_vs_changes")
    rows = {(r["device"], r["interface"]): r for r in ev.rows}
    near = rows[(faulty.flap_dev, faulty.flap_port)]
    assert near["lined_up"] and near["ticket"] == TICKET and near["flaps"] == 5
    assert 0 < near["minutes_from_change"] <= 30  # the flaps began after the change started
    assert not any(r["lined_up"] for r in ev.rows if r["device"] == faulty.flap_peer)  # no change there
    assert ev.rows[0] == near and TICKET in ev.summary and faulty.flap_dev in ev.summary


def test_alarms_vs_changes_pairs_the_flap_alarm_with_the_change(faulty: Faulty) -> None:
    ev = faulty.analyse("correlate alarms with changes in the last 6h", "alarms_vs_changes")
    lined = [(r["kind"], r["device"], r["ticket"]) for r in ev.rows if r["lined_up"]]
    assert ("LINK_FLAP", faulty.flap_dev, TICKET) in lined
    assert all(dev != faulty.flap_peer for _, dev, _ in lined)
    assert len(ev.rows) > len(lined)  # the noise alarms are listed, not lined up


def test_path_alarms_names_the_alarmed_hops_in_path_order(faulty: Faulty) -> None:
    ev = faulty.analyse(f"any alarms on the path from {SRC} to {DST} in the last 2h", "path_alarms")
    assert [r["device"] for r in ev.rows] == list(dict.fromkeys(faulty.path))
    alarmed = {r["device"] for r in ev.rows if r["alarms"]}
    assert alarmed == {faulty.flap_dev, faulty.flap_peer, faulty.crc_dev}  # noise stays off the path
    flap = next(r for r in ev.rows if r["device"] == faulty.flap_dev)
    assert flap["open"] == 1 and "LINK_FLAP" in flap["kinds"] and flap["hop"] == 2
    assert "3 of" in ev.summary and faulty.crc_dev in ev.summary


def test_path_changes_finds_the_change_on_the_path(faulty: Faulty) -> None:
    ev = faulty.analyse(f"changes on the path from {SRC} to {DST} in the last 6h", "path_changes")
    changed = {r["device"]: r for r in ev.rows if r["changes"]}
    assert list(changed) == [faulty.flap_dev] and TICKET in changed[faulty.flap_dev]["tickets"]
    assert len(ev.rows) == len(set(faulty.path))


def test_top_per_pod_ranks_the_crc_port_first_in_its_pod(faulty: Faulty) -> None:
    ev = faulty.analyse("top 3 error ports per PoD in the last 24 hours", "top_per_pod")
    first = next(r for r in ev.rows if r["pod"] == faulty.crc_pod and r["rank"] == 1)
    assert (first["device"], first["interface"]) == (faulty.crc_dev, faulty.crc_port)
    for pod in {r["pod"] for r in ev.rows}:
        ranked = [r for r in ev.rows if r["pod"] == pod]
        assert [r["rank"] for r in ranked] == list(range(1, len(ranked) + 1)) and len(ranked) <= 3
        assert [r["total"] for r in ranked] == sorted((r["total"] for r in ranked), reverse=True)
    assert ev.args["params"]["top"] == 3 and faulty.crc_dev in ev.summary


def test_a_recipe_over_quiet_evidence_says_so(backends: Backends) -> None:
    inputs = [run_tool("telemetry", {"metric": "flaps", "window": "10m"}, backends, "E1"),
              run_tool("changelog", {"window": "10m"}, backends, "E2")]
    assert inputs[0].rows == [] and not inputs[0].errors
    ev = run_recipe("flaps_vs_changes", inputs, "did the flaps line up with changes?")
    assert ev.errors == [] and ev.rows == [] and "flaps" in ev.columns
    assert "no flapping ports" in ev.summary


def test_recipe_refuses_missing_inputs_and_unknown_names_without_running() -> None:
    ev = run_recipe("path_alarms", [FLAPS], "alarms on the path")
    assert ev.errors and "traceroute and alarms" in ev.errors[0] and ev.facts["code"] == ""
    ev = run_recipe("nope", [FLAPS], "?")
    assert ev.errors and "top_per_pod" in ev.errors[0] and ev.tool == "coder"


# -- the LLM path --------------------------------------------------------------------------------

class ScriptedChat(GenericFakeChatModel):
    """Replies from a script and records every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, *args: Any, **kwargs: Any) -> ScriptedChat:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted(*replies: str) -> ScriptedChat:
    return ScriptedChat(messages=iter([AIMessage(content=r) for r in replies]))


def block(code: str) -> str:
    return f"Here you go:\n```python\n{code}\n```\n"


def test_generated_code_is_retried_once_with_the_error(backends: Backends) -> None:
    ev_in = call(backends, "telemetry", metric="errors", pod="dc1-pod1", top=30, window="24h")
    assert len(ev_in.rows) > 5
    wrong = "worst = E1.sort_values('total', ascending=False)"  # forgets `result`
    fixed = ("result = E1.sort_values('total', ascending=False, kind='stable')"
             ".head(3)[['device', 'interface', 'total']]")
    llm = scripted(block(wrong), block(fixed))
    ev = run_generated(llm, "which 3 ports had the most errors?", [ev_in])
    assert ev.errors == [] and ev.facts["code"] == fixed + "\n" and len(llm.seen) == 2
    assert ev.columns == ["device", "interface", "total"]
    assert ev.rows == [{k: r[k] for k in ev.columns} for r in ev_in.rows[:3]]
    assert [a["ok"] for a in ev.facts["attempts"]] == [False, True]
    assert "result" in ev.facts["attempts"][0]["error"] and "first attempt failed" in ev.summary
    retry = llm.seen[1][-1].text
    assert "NameError" in retry and "result" in retry
    prompt = llm.seen[0][0].text
    assert "which 3 ports had the most errors?" in prompt and "E1" in prompt and "telemetry" in prompt
    assert "device, interface, total, max_per_5min" in prompt  # the columns
    assert f"Rows: {len(ev_in.rows)}" in prompt
    assert ev.facts["tokens"]["prompt"] > 0 and ev.args["generated"].startswith("which 3")


def test_prompt_gets_a_five_row_preview_never_the_table() -> None:
    big = Evidence(id="E7", tool="metadata", columns=["name"],
                   rows=[{"name": f"row-{i:03d}"} for i in range(200)])
    llm = scripted("I would rather not write code.", "Still no code.")
    ev = run_generated(llm, "count them", [big])
    prompt = llm.seen[0][0].text
    assert "row-004" in prompt and "row-005" not in prompt and "Rows: 200" in prompt
    assert len(llm.seen) == 2 and ev.errors and "no ```python code block" in ev.errors[0]
    assert ev.facts["code"] == "" and ev.rows == []


def test_a_violation_in_generated_code_is_reported_after_the_retry(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    bad = f"import socket\nsocket.create_connection(('127.0.0.1', {port}))\nresult = 1"
    llm = scripted(block(bad), block(bad))
    ev = run_generated(llm, "is it up?", [FLAPS])
    assert ev.facts["violation"] == "network" and ev.errors[0].startswith("sandbox violation (network)")
    assert ev.facts["violations"] == ["network", "network"] and ev.facts["code"] == bad + "\n"
    assert "stopped by the sandbox (network)" in ev.summary and not connects(listener)


def test_a_failing_model_is_an_error_not_a_crash() -> None:
    llm = scripted()  # no replies scripted: the first call raises
    ev = run_generated(llm, "anything", [FLAPS])
    assert ev.errors and ev.errors[0].startswith("model error") and ev.facts["attempts"] == []


def test_extract_code_prefers_the_python_block() -> None:
    assert extract_code("```\nplain\n```\n```python\nresult = 1\n```") == "result = 1\n"
    assert extract_code("```\nresult = 2\n```") == "result = 2\n"
    assert extract_code("no code here") is None


def test_sandbox_result_never_raises_on_bad_input(tmp_path: Path) -> None:
    res = run_code("result = 1", {"not an id": {"columns": [], "rows": []}}, settings=settings(tmp_path))
    assert isinstance(res, SandboxResult) and not res.ok and "identifiers" in (res.error or "")
