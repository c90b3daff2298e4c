"""Facts typed to the answer (issue 27 item 5): each tool's `Evidence.facts` is the TypedDict of
tools/facts.py that its readers take through `facts_of`. mypy checks the writers' literal keys;
this checks what the tools really hand back on a faulted lab — every required key there, no key
the type does not name (nested cases and rails too) — so a key added or renamed on one side only
fails here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import Evidence, facts_of
from netopsai.lab.inject import inject
from netopsai.tools import facts as F
from netopsai.tools.registry import run_tool
from tests.conftest import CLOCK
from tests.fault_helpers import scenario

LEAF = "dc1-leaf-03"


def keys_fit(got: Mapping[str, Any], typed: Any) -> None:
    assert typed.__required_keys__ <= set(got), (typed.__name__, set(got))
    assert set(got) <= typed.__required_keys__ | typed.__optional_keys__, (typed.__name__, set(got))


def ran(b: Any, tool: str, args: dict[str, Any]) -> Evidence:
    ev = run_tool(tool, args, b)
    assert ev.errors == [], ev.errors
    return ev


def test_each_tool_hands_back_its_typed_facts(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    inject(engine, scenario(CLOCK, {"kind": "device_down", "target": {"device": LEAF}},
                            noise={"alarms": 20, "flaps": 2}))
    b = lab_backends(engine)
    alarms = ran(b, "alarms", {"window": "2h", "correlate": True})
    keys_fit(alarms.facts, F.AlarmFacts)
    cases = facts_of(alarms, F.AlarmFacts)["cases"]
    assert cases and any(c["root_device"] == LEAF for c in cases)
    for case in cases:
        keys_fit(case, F.AlarmCase)
        keys_fit(case["impact"], F.CaseImpact)
    hosts = ran(b, "metadata", {"query": "hosts"}).rows
    src, dst = hosts[0]["ip"], hosts[-1]["ip"]
    trace = ran(b, "traceroute", {"src": src, "dst": dst})
    keys_fit(trace.facts, F.TraceFacts)
    keys_fit(ran(b, "telemetry", {"metric": "oper_status", "window": "2h"}).facts, F.PortStateFacts)
    keys_fit(ran(b, "telemetry", {"metric": "errors", "window": "2h"}).facts, F.CounterFacts)
    keys_fit(ran(b, "metadata", {"query": "sites"}).facts, F.MetadataFacts)
    keys_fit(ran(b, "changelog", {"window": "7d"}).facts, F.ChangeFacts)
    keys_fit(ran(b, "events", {"window": "2h"}).facts, F.EventFacts)


def test_a_stopped_trace_names_where_in_its_facts(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    inject(engine, scenario(CLOCK, {"kind": "device_down", "target": {"device": LEAF}}))
    b = lab_backends(engine)
    behind = [h for h in ran(b, "metadata", {"query": "hosts"}).rows if h.get("tor") == LEAF]
    other = next(h for h in ran(b, "metadata", {"query": "hosts"}).rows if h.get("tor") != LEAF)
    ev = ran(b, "traceroute", {"src": other["ip"], "dst": behind[0]["ip"]})
    facts = facts_of(ev, F.TraceFacts)
    keys_fit(facts, F.TraceFacts)
    assert facts["reached"] is False and facts["stopped_at"]
    assert facts is ev.facts  # the very dict: nothing copied
