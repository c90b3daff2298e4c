"""Facts typed to the answer (issue 27 item 5): an Evidence's facts read through `facts_of` are
the tool's TypedDict (tools/facts.py), so mypy rejects a misspelled key; at run time they are
the Evidence's own dict, so a writer's key lands in it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from netopsai.copilot.evidence import Evidence, facts_of
from netopsai.tools.facts import RailFacts, TraceFacts
from tests.typing_kit import mypy_snippet, package_view

SNIPPET = """
from netopsai.copilot.evidence import Evidence, facts_of
from netopsai.tools.facts import AlarmFacts, TraceFacts

def stop(ev: Evidence) -> str | None:
    return facts_of(ev, TraceFacts)[{trace_key!r}]

def roots(ev: Evidence) -> list[str | None]:
    return [c[{case_key!r}] for c in facts_of(ev, AlarmFacts).get("cases", [])]
"""


def _mypy(tmp_path: Path, view: Path, trace_key: str, case_key: str) -> subprocess.CompletedProcess[str]:
    return mypy_snippet(SNIPPET.format(trace_key=trace_key, case_key=case_key), tmp_path, view)


def test_facts_of_hands_back_the_evidence_own_dict() -> None:
    ev = Evidence(tool="traceroute", facts={"reached": False, "stopped_at": "dc1-leaf-03"})
    facts = facts_of(ev, TraceFacts)
    assert facts is ev.facts and facts["stopped_at"] == "dc1-leaf-03"
    facts_of(ev, RailFacts)["placement"] = {}  # a writer's late key is the Evidence's
    assert ev.facts["placement"] == {}
    back = Evidence.model_validate_json(ev.to_json())  # a thread's JSON round trip
    assert facts_of(back, TraceFacts)["reached"] is False


def test_mypy_rejects_a_misspelled_facts_key(tmp_path: Path) -> None:
    view = package_view(tmp_path)
    good = _mypy(tmp_path, view, "stopped_at", "root_device")
    assert good.returncode == 0, good.stdout
    bad = _mypy(tmp_path, view, "stoped_at", "root_devic")
    assert bad.returncode == 1
    assert 'TypedDict "TraceFacts" has no key "stoped_at"' in bad.stdout
    assert 'TypedDict "AlarmCase" has no key "root_devic"' in bad.stdout
