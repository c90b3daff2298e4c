"""When correlation itself fails (a reader error, a row it cannot read): every alarm listed as
a case of its own, with the note saying why, so the views that show cases still show every
alarm — never an error with no rows."""

from __future__ import annotations

from collections.abc import Sequence

from netopsai.backends.rows import AlarmRow
from netopsai.tools.alarm_cases.correlate import Case
from netopsai.tools.facts import CaseImpact


def uncorrelated(rows: Sequence[AlarmRow], note: str) -> list[Case[AlarmRow]]:
    """One case per alarm, in the rows' order (rule "none"), its reason the note."""
    cases: list[Case[AlarmRow]] = []
    for i, a in enumerate(rows, 1):
        impact: CaseImpact = {
            "dcs": [], "pods": [], "segments": [], "devices": 1, "root_device": a.get("device"),
            "traffic_lost": bool(a.get("traffic_lost")), "summary": "not correlated"}
        cases.append(Case(f"C{i}", a, [a], "none", note, impact))
    return cases
