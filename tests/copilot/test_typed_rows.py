"""Rows typed to the answer (issue 27 item 5): evidence rows read through `rows_of` are the
backend's TypedDicts, so mypy rejects a misspelled key; at run time they are the same dicts."""

from __future__ import annotations

import subprocess
from pathlib import Path

from netopsai.backends.rows import AlarmRecord
from netopsai.copilot.evidence import Evidence, rows_of
from tests.paths import REPO
from tests.typing_kit import mypy_snippet

ROOT = REPO

SNIPPET = """
from netopsai.backends.rows import AlarmRecord, PortCounters
from netopsai.copilot.evidence import Evidence, rows_of

def kinds(ev: Evidence) -> list[str]:
    return [r[{alarm_key!r}] for r in rows_of(ev, AlarmRecord)]

def pauses(ev: Evidence) -> float:
    return sum(r[{counter_key!r}] for r in rows_of(ev, PortCounters))
"""


def _mypy(tmp_path: Path, alarm_key: str, counter_key: str) -> subprocess.CompletedProcess[str]:
    return mypy_snippet(SNIPPET.format(alarm_key=alarm_key, counter_key=counter_key), tmp_path, ROOT)


def test_rows_of_hands_back_the_evidence_own_dicts() -> None:
    row = {"id": 7, "raised_at": "2025-11-04T18:00:00Z", "state": "open", "kind": "LINK_DOWN"}
    ev = Evidence(tool="alarms", rows=[row])
    typed: list[AlarmRecord] = rows_of(ev, AlarmRecord)
    assert typed is ev.rows and typed[0]["kind"] == "LINK_DOWN"
    # a thread's JSON round trip keeps them plain dicts, read the same way
    back = Evidence.model_validate_json(ev.to_json())
    assert rows_of(back, AlarmRecord)[0] == row


def test_mypy_rejects_a_misspelled_row_key(tmp_path: Path) -> None:
    good = _mypy(tmp_path, "kind", "pfc_tx")
    assert good.returncode == 0, good.stdout
    bad = _mypy(tmp_path, "knd", "pfc_txx")
    assert bad.returncode == 1
    assert 'TypedDict "AlarmRecord" has no key "knd"' in bad.stdout
    assert 'TypedDict "PortCounters" has no key "pfc_txx"' in bad.stdout
