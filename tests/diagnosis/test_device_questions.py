"""Device questions ("what is wrong with X?", "why is X dropping traffic?", "is X healthy?") run
a device diagnosis: the device's alarms, changes, ports, the rules its configuration drops
traffic with, and probes traced through it, through the diagnosis taxonomy. Embedded lab, real
tools, real engine (issue 12, section 6)."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.copilot.service import Copilot
from netopsai.copilot.toolbox import Toolbox
from netopsai.planner import plan
from tests.copilot.test_copilot_diagnosis import ask_after

SPINE = "dc1-spine-04"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _ask(engine: Any, faults: list[dict[str, Any]], question: str) -> dict[str, Any]:
    return ask_after(engine, faults, question)  # inject with noise, ask, check the citations


@pytest.mark.parametrize("question, intent", [
    (f"what is wrong with {SPINE}?", "diagnose.device"),
    (f"why is {SPINE} dropping traffic?", "diagnose.device"),
    ("is dc1-leaf-03 healthy?", "diagnose.device"),
    (f"any problems with {SPINE} today?", "diagnose.device"),
    ("is dc1-leaf-03 up?", "inventory.device"),
    (f"top error ports on {SPINE}", "telemetry.errors"),
    ("why is 10.1.3.20 not reaching 10.2.1.40?", "diagnose.connectivity"),
    (f"neighbours of {SPINE}", "inventory.neighbors"),
])
def test_device_health_words_plan_a_device_diagnosis(backends: Any, question: str,
                                                     intent: str) -> None:
    tb = Toolbox(backends)
    assert plan(question, tb.vocab(), tb.clock()).intent == intent


def test_acl_change_on_a_spine_is_found_and_verified_by_a_probe(make_lab: Any) -> None:
    faults = [{"kind": "acl_block", "at": "-20m", "target": {"device": SPINE},
               "params": {"dst": "10.1.20.0/24"}},
              {"kind": "change", "at": "-22m", "target": {"device": SPINE},
               "params": {"summary": "Apply new ACL set", "ticket": "CHG-1042"}}]
    for question in (f"what is wrong with {SPINE}?", f"why is {SPINE} dropping traffic?"):
        r = _ask(make_lab(), faults, question)
        assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("config.acl_block", SPINE)
        first = r["answer"].split("\n", 1)[0]
        assert "config.acl_block" in first and SPINE in first  # the finding leads
        assert "CHG-1042" in r["answer"]  # the change that caused it, cited
        probes = [e for e in r["evidence"] if e["tool"] == "traceroute"]
        assert any(e["args"]["dst"].startswith("10.1.20.") for e in probes)
        filters = [e for e in r["evidence"] if e["args"].get("query") == "filters"]
        assert filters and filters[0]["rows"][0]["dst"] == "10.1.20.0/24"


def test_a_down_port_of_the_device_is_its_fault(make_lab: Any, backends: Any) -> None:
    from netopsai.tools.registry import run_tool

    nbr = next(r for r in run_tool("metadata", {"query": "neighbors", "name": SPINE},
                                   backends).rows if r["neighbor"].startswith("dc1-leaf"))
    r = _ask(make_lab(), [{"kind": "link_down", "at": "-15m",
                           "target": {"link": f"{SPINE}:{nbr['interface']}"}}],
             f"what is wrong with {SPINE}?")
    rc = r["root_cause"]
    assert rc["label"] == "link.down" and rc["device"] in (SPINE, nbr["neighbor"])


def test_a_dead_device_is_down(make_lab: Any) -> None:
    r = _ask(make_lab(), [{"kind": "device_down", "at": "-15m", "target": {"device": SPINE}}],
             f"is {SPINE} healthy?")
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("device.down", SPINE)


def test_a_change_with_no_fault_is_the_lead_not_a_cause(make_lab: Any) -> None:
    r = _ask(make_lab(), [{"kind": "change", "at": "-20m", "target": {"device": SPINE},
                           "params": {"summary": "Update NTP servers", "ticket": "CHG-2001"}}],
             f"what is wrong with {SPINE}?")
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("inconclusive", SPINE)
    first = r["answer"].split("\n", 1)[0]
    assert f"No fault confirmed on {SPINE}" in first and "CHG-2001" in first


def test_a_healthy_device_says_so_and_a_fault_elsewhere_is_not_blamed_on_it(
        make_lab: Any, backends: Any) -> None:
    from netopsai.tools.registry import run_tool

    # an ACL on another spine of the same PoD: probes through SPINE still deliver
    other = next(r["name"] for r in run_tool("metadata", {"query": "devices", "role": "spine",
                                                          "pod": "dc1-pod1"}, backends).rows
                 if r["name"] != SPINE)
    r = _ask(make_lab(), [{"kind": "acl_block", "at": "-20m", "target": {"device": other},
                           "params": {"dst": "10.1.20.0/24"}}], f"is {SPINE} healthy?")
    assert r["root_cause"]["label"] == "none" and r["root_cause"]["device"] == SPINE
    assert r["answer"].startswith(f"**No fault found on {SPINE}.**")


def test_a_new_question_in_a_thread_starts_a_new_topic(backends: Any) -> None:
    c = Copilot(backends)
    first = c.answer(f"what is wrong with {SPINE}?", "topic")
    assert first["root_cause"]["device"] == SPINE
    flow = c.answer("10.1.3.20 to 10.2.1.40 not communicating", "topic")
    traces = [e["args"] for e in flow["evidence"] if e["tool"] == "traceroute"]
    assert traces[0]["src"] == "10.1.3.20" and traces[0]["dst"] == "10.2.1.40"
    assert not any(e["args"].get("query") == "filters" for e in flow["evidence"])  # no device
    other = c.answer("is dc1-border-01 healthy?", "topic")  # diagnosis carried over
    assert other["root_cause"]["device"] == "dc1-border-01"
    assert {e["args"].get("name") for e in other["evidence"] if e["tool"] == "metadata"
            and e["args"].get("query") == "device"} == {"dc1-border-01"}
