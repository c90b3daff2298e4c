"""The copilot's doors typed to the answer (issue 27 item 5): what a front end reads from a thread
(`Thread.evidence`, `turn_evidence`, `cited`) is EvidenceDump records, their args EvidenceArgs,
and `Copilot.result` an Answer (copilot/payload.py), and alarm correlation's cases hold the
alarms tool's rows as AlarmRow (tools/alarm_cases), so mypy rejects a misspelled key read
through any of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from netopsai.copilot.payload import EvidenceArgs
from netopsai.tools.base import REGISTRY
from tests.typing_kit import mypy_snippet, package_view

SNIPPET = """
from netopsai.backends.rows import AlarmRow
from netopsai.copilot.service import Copilot, Thread
from netopsai.tools.alarm_cases.correlate import correlate
from netopsai.tools.alarm_cases.topology import Topology

def cited(thread: Thread) -> list[object]:
    return [e[{evidence_key!r}] for e in thread.cited(["E1"]) + thread.evidence]

def asked(thread: Thread) -> list[object]:
    return [e["args"][{args_key!r}] for e in thread.turn_evidence]

def verdict(copilot: Copilot) -> object:
    return copilot.result("t")[{answer_key!r}]

def roots(rows: list[AlarmRow], topo: Topology) -> list[object]:
    return [c.root[{alarm_key!r}] for c in correlate(rows, topo)]
"""


def _mypy(tmp_path: Path, view: Path, **keys: str) -> subprocess.CompletedProcess[str]:
    return mypy_snippet(SNIPPET.format(**keys), tmp_path, view)


def test_mypy_rejects_a_misspelled_key_read_through_the_doors(tmp_path: Path) -> None:
    view = package_view(tmp_path)
    good = _mypy(tmp_path, view, evidence_key="summary", answer_key="root_cause",
                 alarm_key="kind", args_key="port_role")
    assert good.returncode == 0, good.stdout
    bad = _mypy(tmp_path, view, evidence_key="sumary", answer_key="root_cuase", alarm_key="knd",
                args_key="portrole")
    assert bad.returncode == 1
    for typed, key in (("EvidenceDump", "sumary"), ("Answer", "root_cuase"), ("AlarmRow", "knd"),
                       ("EvidenceArgs", "portrole")):
        assert f'TypedDict "{typed}" has no key "{key}"' in bad.stdout, bad.stdout


def test_evidence_args_name_every_field_of_the_tools_args_models() -> None:
    """EvidenceArgs is written by hand: a field added to a tool's args model, or one renamed,
    must be named there too, or a front end's read of it would be refused (or a gone one let
    through)."""
    fields = {f for tool in REGISTRY.values() for f in tool.args_model.model_fields}
    assert set(EvidenceArgs.__annotations__) == fields
