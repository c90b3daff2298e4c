"""The evidence as the LLM summarizer reads it: each item's id, tool, arguments, window and
summary, and a preview of its rows, kept small. The summary already says what the rows hold
(the path, the counts, the open alarms), so the preview is an example to quote, not the table:
raw rows never go whole into a prompt, and a diagnosis that reads more evidence (the way back,
the last hours' alarms) must not grow the prompt row by row (issue 25: p50 over the 6k target).

The text is the planner's formatter (planner/evidence_text.py) with the summarizer's smaller
row policy: one formatter, two budgets."""

from __future__ import annotations

from collections.abc import Sequence

from netopsai.copilot.evidence import Evidence
from netopsai.planner.evidence_text import RowPolicy, evidence_text

FIRST_ROWS = 3  # rows shown of the first evidence of a tool
AGAIN_ROWS = 1  # of a second read of the same tool (the jumbo probe, the way back): its summary says the rest
LIST_SHOWN = 3  # items of a long list argument (a path's twenty devices) named; the rest counted
SUMMARIZER_ROWS = RowPolicy(FIRST_ROWS, AGAIN_ROWS, list_shown=LIST_SHOWN, drop_empty=True)


def evidence_view(evidence: Sequence[Evidence]) -> str:
    return evidence_text(evidence, SUMMARIZER_ROWS)
