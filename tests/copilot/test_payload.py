"""The answer as front ends receive it, typed (issue 27 item 5): copilot/payload.py reads evidence
dicts and the answer dict as TypedDicts, so mypy rejects a key a front end misspells; at run time
the readers hand back the very dicts a thread holds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from netopsai.backends.rows import Hop
from netopsai.copilot.evidence import Evidence
from netopsai.copilot.payload import answer_of, dump_facts, dump_rows, dumps_of
from netopsai.tools.facts import TraceFacts
from tests.paths import REPO
from tests.typing_kit import mypy_snippet

# the facts type is the snippet's own: tools/ installs under netopsai through package_dir, which a
# bare mypy run cannot follow (scripts/package_view.py), so TraceFacts would read as Any here
SNIPPET = """
from typing import Any, TypedDict
from netopsai.backends.rows import Hop
from netopsai.copilot.payload import answer_of, dump_facts, dump_rows, dumps_of

class TraceFacts(TypedDict):
    reached: bool
    stopped_at: str | None

def stop(result: dict[str, Any]) -> list[object]:
    out: list[object] = []
    for ev in dumps_of(answer_of(result)[{answer_key!r}]):
        out.append(ev[{evidence_key!r}])
        out += [h[{hop_key!r}] for h in dump_rows(ev, Hop)]
        out.append(dump_facts(ev, TraceFacts)[{facts_key!r}])
    return out
"""


def _mypy(tmp_path: Path, **keys: str) -> subprocess.CompletedProcess[str]:
    return mypy_snippet(SNIPPET.format(**keys), tmp_path, REPO)


def test_the_readers_hand_back_the_thread_own_dicts() -> None:
    ev = Evidence(id="E1", tool="traceroute", rows=[{"hop": 1, "device": "leaf1", "status": "!X"}],
                  facts={"reached": False, "stopped_at": "leaf1"})
    evidence = [json.loads(ev.to_json())]  # as a thread's state and `ask --json` hold it
    result = {"answer": "x [E1]", "evidence": evidence}
    typed = dumps_of(answer_of(result)["evidence"])
    assert answer_of(result) is result and typed is evidence
    assert dump_rows(typed[0], Hop) is evidence[0]["rows"]
    assert dump_facts(typed[0], TraceFacts) is evidence[0]["facts"]
    assert dump_facts(typed[0], TraceFacts)["stopped_at"] == "leaf1"
    assert dumps_of(iter(evidence)) == evidence  # any iterable: a list of the same dicts
    assert dump_rows({"tool": "alarms"}, Hop) == []  # a record without rows reads as none


def test_mypy_rejects_a_misspelled_key_of_the_answer_its_evidence_rows_and_facts(
        tmp_path: Path) -> None:
    good = _mypy(tmp_path, answer_key="evidence", evidence_key="summary", hop_key="device",
                 facts_key="stopped_at")
    assert good.returncode == 0, good.stdout
    bad = _mypy(tmp_path, answer_key="evidnce", evidence_key="sumary", hop_key="devce",
                facts_key="stoped_at")
    assert bad.returncode == 1
    for typed, key in (("Answer", "evidnce"), ("EvidenceDump", "sumary"), ("Hop", "devce"),
                       ("TraceFacts", "stoped_at")):
        assert f'TypedDict "{typed}" has no key "{key}"' in bad.stdout, bad.stdout
