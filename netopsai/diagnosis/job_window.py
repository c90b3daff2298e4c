"""The window a job diagnosis reads (issue 15 §2), and why, said in the answer.

"job 4711 hit an NCCL timeout at 14:02": 30 minutes before to 10 minutes after 14:02, clamped
to the job's run; a time outside the run is said plainly and the default window used.
"since the restart": from the job's start. Otherwise the window the question gave, else the
job's last 6 hours (from its start when it started later)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from netopsai.timewin import iso

LOOKBACK = timedelta(hours=6)  # a long-running job without a window: its last 6h
BEFORE, AFTER = timedelta(minutes=30), timedelta(minutes=10)  # around the question's time
RESTART = re.compile(r"\bsince\s+(?:the\s+|its\s+|the\s+last\s+|last\s+)?(?:re)?start\b"
                     r"|\bsince\s+(?:it|the\s+job)\s+(?:re)?started\b", re.I)


@dataclass
class JobWindow:
    window: Any  # what the tools read: {"start", "end"} or the question's own ("2h")
    why: str  # the window and why, as the answer says it


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _span(start: datetime, end: datetime) -> dict[str, str]:
    return {"start": iso(start), "end": iso(end)}


def _hm(t: datetime) -> str:
    return f"{t:%H:%M} UTC"


def job_window(row: dict[str, Any], name: str, window: Any, at: str | None,
               question: str) -> JobWindow:
    """The window for the job of `row` (the job table's) and why; `window` and `at` are what
    the planner read from the question."""
    until = _time(row["until"]) or datetime.now().astimezone()
    start = _time(row.get("start"))
    began = _hm(start) if start else "an unknown start"
    run = (f"{name} has run since {began}, still running at {_hm(until)}" if not row.get("end")
           else f"{name} ran from {began} to {_hm(until)}")
    if window is not None:
        return JobWindow(window, f"the window the question gave ({_said(window)})")
    default = _default(start, until, name, "the question gives no time")
    if at is not None and (t := _time(at)) is not None:
        if (start and t < start) or t > until:
            return JobWindow(default.window, f"{t:%Y-%m-%d %H:%M} UTC, the time the question "
                             f"gives, is outside {name}'s run ({run}); read instead: "
                             + _default(start, until, name, "").why)
        lo, hi = max(t - BEFORE, start or t - BEFORE), min(t + AFTER, until)
        return JobWindow(_span(lo, hi), f"30 minutes before to 10 minutes after {_hm(t)} "
                         f"(the time the question gives), clamped to the job's run ({run})")
    if RESTART.search(question):
        if start is None:
            return JobWindow(default.window, f"the job table has no start for {name}, so "
                             f"'since the restart' could not be placed; read instead: "
                             + _default(start, until, name, "").why)
        return JobWindow(_span(start, until), f"since {name} (re)started at {_hm(start)} (the "
                         "question asks since the restart) up to " + _hm(until))
    return default


def _default(start: datetime | None, until: datetime, name: str, because: str) -> JobWindow:
    lo, why = until - LOOKBACK, f" ({because})" if because else ""
    if start and start >= lo:
        return JobWindow(_span(start, until), f"{name}'s whole run, from its start at "
                         f"{_hm(start)} to {_hm(until)}{why}")
    return JobWindow(_span(lo, until), f"{name}'s last 6 hours, up to {_hm(until)}{why}")


def _said(window: Any) -> str:
    if isinstance(window, dict):
        return f"{window.get('start')} .. {window.get('end')}"
    return str(window)


def trace_time(window: Any) -> datetime | None:
    """When to trace the rails: the window's end when it has one (None: now)."""
    return _time(window.get("end")) if isinstance(window, dict) else None
