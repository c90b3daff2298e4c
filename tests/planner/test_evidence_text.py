"""One evidence formatter for both LLM prompts (netopsai/planner/evidence_text.py): the planner's
block and the summarizer's view are the same text but for their row policies. Each caller's text
is pinned whole here, so a change to the shared formatter shows in both prompts' tests."""

from __future__ import annotations

from netopsai.copilot.evidence import DATA_NOTE, Evidence
from netopsai.copilot.prompt_evidence import SUMMARIZER_ROWS, evidence_view
from netopsai.planner.evidence_text import RowPolicy, evidence_text
from netopsai.planner.llm import PLANNER_ROWS, evidence_block

DEVICES = [f"leaf{i}" for i in range(6)]
EVIDENCE = [
    Evidence(id="E1", tool="alarms", args={"devices": DEVICES, "window": "1h"},
             window={"start": "2025-11-04T19:00:00Z", "end": "2025-11-04T20:00:00Z"},
             summary='2 alarms, one "quoted"', errors=["leaf9: unknown device"], partial=True,
             rows=[{"id": 1, "interface": None}, {"id": 2, "interface": "Eth1"}]),
    Evidence(id="E2", tool="alarms", args={}, summary="again",
             rows=[{"id": 3, "events": ["t"], "changes": ["10:00 PST down"]}, {"id": 4, "tags": []}]),
]
HEAD = f"Evidence gathered so far (cite as [E#]). {DATA_NOTE}"
WINDOW = ' window "2025-11-04T19:00:00Z" .. "2025-11-04T20:00:00Z"'
SUMMARY = 'summary: "2 alarms, one \\"quoted\\""\nerrors: ["leaf9: unknown device"]'


def test_the_planner_block_shows_whole_arguments_and_every_field() -> None:
    assert evidence_block(EVIDENCE) == "\n\n".join([
        HEAD,
        '[E1] alarms {"devices": ["leaf0", "leaf1", "leaf2", "leaf3", "leaf4", "leaf5"], "window": "1h"}'
        f'{WINDOW}\n{SUMMARY}\nrows: 2 (first 2, partial)\n{{"id":1,"interface":null}}\n'
        '{"id":2,"interface":"Eth1"}',
        '[E2] alarms {}\nsummary: "again"\nrows: 2 (first 2)\n{"id":3,"changes":["10:00 PST down"]}\n'
        '{"id":4,"tags":[]}',
    ])


def test_the_summarizer_view_cuts_lists_repeats_and_empty_fields() -> None:
    assert evidence_view(EVIDENCE) == "\n\n".join([
        HEAD,
        '[E1] alarms {"devices": ["leaf0", "leaf1", "leaf2", "+3 more"], "window": "1h"}'
        f'{WINDOW}\n{SUMMARY}\nrows: 2 (first 2, partial)\n{{"id":1}}\n{{"id":2,"interface":"Eth1"}}',
        '[E2] alarms {}\nsummary: "again"\nrows: 2 (first 1)\n{"id":3,"changes":["10:00 PST down"]}',
    ])


def test_both_callers_are_the_one_formatter() -> None:
    assert evidence_block(EVIDENCE) == evidence_text(EVIDENCE, PLANNER_ROWS)
    assert evidence_view(EVIDENCE) == evidence_text(EVIDENCE, SUMMARIZER_ROWS)
    assert evidence_text([], PLANNER_ROWS) == evidence_text([], SUMMARIZER_ROWS) == \
        "Evidence gathered so far: none."


def test_a_list_one_longer_than_shown_is_kept_whole() -> None:
    # "+1 more" would be no shorter than the item it hides
    ev = Evidence(id="E1", tool="t", args={"d": DEVICES[:4]})
    text = evidence_text([ev], RowPolicy(1, 1, list_shown=3))
    assert '"leaf3"' in text and "more" not in text
