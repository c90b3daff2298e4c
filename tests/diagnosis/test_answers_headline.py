"""An answer never contradicts its evidence (issue 25 item 6), end to end on the embedded lab:
the first line answers the question asked (reachable or not, still happening or not), a break
the flow routes around is found nearby and never headlined as its cause, Since comes from the
history even when the question's window is shorter than the fault, and every diagnosis names
the windows it read. Each answer also passes the consistency check (diagnosis/consistency.py);
the old headline over the same evidence does not."""

from __future__ import annotations

import re
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import Evidence, validate_citations
from netopsai.copilot.service import Copilot
from netopsai.copilot.summarizer import render
from netopsai.diagnosis.base import Diagnosis
from netopsai.diagnosis.consistency import contradictions
from netopsai_testkit.answers import lab_copilot
from tests.copilot.test_copilot_diagnosis import QUESTION, SRC_TOR

ACL = [{"kind": "acl_block", "at": "-25m", "target": {"device": SRC_TOR},
        "params": {"dst": "10.2.1.0/24"}},
       {"kind": "change", "at": "-27m", "target": {"device": SRC_TOR},
        "params": {"summary": "Apply new ACL set", "ticket": "CHG-1042"}}]
ROUTED = "cannot connect from 10.2.3.40 to 10.1.12.50"  # dc2 -> dc1 over the DCI routers


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def ask(c: Copilot, question: str, thread: str = "t") -> dict[str, Any]:
    r = c.answer(question, thread)
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert contradictions(r["answer"], r["evidence"], r["root_cause"], question) == []
    return r


def first_line(r: dict[str, Any]) -> str:
    return next(p for p in r["answer"].split("\n\n") if not p.startswith("_")).split("\n")[0]


def line(r: dict[str, Any], name: str) -> str:
    return next((x for x in r["answer"].splitlines() if x.startswith(f"- **{name}:**")), "")


def trace_facts(r: dict[str, Any]) -> dict[str, Any]:
    return next(e for e in r["evidence"] if e["tool"] == "traceroute")["facts"]


def test_a_flow_that_delivers_is_reachable_and_the_break_is_nearby(make_lab: Any) -> None:
    c = lab_copilot(make_lab(), [{"kind": "dci_link_down",
                                  "target": {"link": "dc2-border-02:et-0/0/101"}}])
    r = ask(c, ROUTED)
    f, head = trace_facts(r), first_line(r)
    assert f["reached"] and f["good_paths"] == f["ecmp_paths"]
    assert r["root_cause"]["label"] == "dci.link_down"  # still found, and still scored
    assert head.startswith(f"**Reachable: yes** — {f['ecmp_paths']} of {f['ecmp_paths']} "
                           "equal-cost paths deliver")
    assert "**Nearby, and routed around: a DCI or backbone link is down at dc2-border-02" in head
    assert "Likely root cause" not in r["answer"]
    # the same evidence under the old headline is caught
    d = Diagnosis.from_dict(c.thread("t").diagnosis or {})
    d.relation, d.answer = "cause", None
    old = render([Evidence.model_validate(e) for e in r["evidence"]], d)
    assert any("headlined over a flow delivering on all" in p
               for p in contradictions(old, r["evidence"], r["root_cause"], ROUTED))


def test_a_blocked_flow_is_not_reachable_and_names_its_windows(make_lab: Any) -> None:
    r = ask(lab_copilot(make_lab(), ACL), QUESTION)
    head = first_line(r)
    assert head.startswith(f"**Reachable: no** — the trace stops at {SRC_TOR}")
    assert "**Likely root cause: an ACL blocks the traffic at" in head
    windows = line(r, "Windows read")
    cited = {e["tool"]: e for e in r["evidence"] if e["id"] in re.findall(r"E\d+", windows)}
    assert {"traceroute", "alarms", "changelog"} <= set(cited)
    start = cited["alarms"]["window"]["start"]  # the hour read, as the evidence has it
    assert f"alarms {start[:10]} {start[11:16]}–" in windows or \
        f"changes and alarms {start[:10]} {start[11:16]}–" in windows
    assert "traces at " in windows and "UTC" in windows


def test_still_happening_is_answered_yes_and_keeps_the_first_onset(make_lab: Any) -> None:
    c = lab_copilot(make_lab(), ACL)
    first = ask(c, QUESTION, "still")
    again = ask(c, "is it still happening?", "still")
    head = first_line(again)
    assert head.startswith("**Still happening: yes** — the trace at ")
    assert "first onset: " in head and "CHG-1042" in head
    assert line(first, "Since") and line(first, "Since").split(" [")[0] in line(again, "Since")


def test_still_happening_is_answered_no_on_a_healthy_flow(make_lab: Any) -> None:
    c = lab_copilot(make_lab(), [])
    ask(c, QUESTION, "calm")
    r = ask(c, "is it still happening?", "calm")
    assert first_line(r).startswith("**Still happening: no** — the flow delivers now")


def test_since_comes_from_the_history_when_the_window_is_shorter_than_the_fault(
        make_lab: Any) -> None:
    c = lab_copilot(make_lab(), ACL)
    r = ask(c, f"what's wrong with {SRC_TOR} in the last 10 minutes?")
    assert r["root_cause"]["label"] == "config.acl_block"
    since = line(r, "Since")
    assert "not shown" not in since and "CHG-1042" in since
    ids = re.findall(r"E\d+", since)
    change = next(e for e in r["evidence"] if e["id"] in ids)
    assert change["tool"] == "changelog" and change["args"]["window"] == "24h"
    assert any(row["ticket"] == "CHG-1042" for row in change["rows"])


def test_a_delivering_path_is_not_called_healthy_over_an_unverified_open_alarm(
        make_lab: Any, backends: Any) -> None:
    """The history strategy runs no check: an open errors alarm on a traced link stays a lead
    to verify, never 'no fault found' (it was, before: the bench's history baseline)."""
    from netopsai.diagnosis.engine import diagnose
    from netopsai.tools.registry import run_tool

    owner = run_tool("metadata", {"query": "ip", "ip": "10.2.1.40"}, backends).rows[0]
    leaf, ifname = owner["tor"], owner["tor_interface"]  # the destination host's ToR port
    engine = make_lab()
    lab_copilot(engine, [{"kind": "crc_errors", "target": {"interface": f"{leaf}:{ifname}"},
                          "params": {"rate": 1294}}])
    out = diagnose(lab_backends(engine), src="10.1.3.20", dst="10.2.1.40", strategy="history")
    d = out.diagnosis
    assert (d.label, d.device) == ("inconclusive", leaf)
    assert "was not verified as a cause or ruled out" in d.because[0].text
    answer = render(out.evidence, d)
    evidence = [e.model_dump(mode="json") for e in out.evidence]
    assert contradictions(answer, evidence, d.root_cause(), QUESTION) == []
    d.label, d.device = "none", None  # what it said before
    healthy = render(out.evidence, d).replace("**No fault confirmed on", "**No fault found on")
    assert any(f"open INTERFACE_ERRORS on {leaf} {ifname}" in p
               for p in contradictions(healthy, evidence, d.root_cause(), QUESTION))
