"""The window a job diagnosis reads (issue 15 §2), and why, said in the answer.

"job 4711 hit an NCCL timeout at 14:02": 30 minutes before to 10 minutes after 14:02, clamped
to the job's run; a time outside the run is said plainly and the default window used.
"since the restart": from the job's start. Otherwise the window the question gave, else the
job's last 6 hours (from its start when it started later).

Hosts without a job ("NCCL timeouts on gpu-[009-012] at 14:02", "... since 13:30") follow the
question's time the same way, with no run to clamp to: the time's 40 minutes (cut at now when
a job on the hosts says what now is), the window it gave, else the last hour. A time the
question gives that could not be used (unreadable, or in the future: the planner drops those)
is said plainly with the window read instead."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from netopsai.backends.rows import JobInfo
from netopsai.common.localtime import at as local_at
from netopsai.common.localtime import span as local_span
from netopsai.common.timewin import iso

LOOKBACK = timedelta(hours=6)  # a long-running job without a window: its last 6h
BEFORE, AFTER = timedelta(minutes=30), timedelta(minutes=10)  # around the question's time
RESTART = re.compile(r"\bsince\s+(?:the\s+|its\s+|the\s+last\s+|last\s+)?(?:re)?start\b"
                     r"|\bsince\s+(?:it|the\s+job)\s+(?:re)?started\b", re.I)


TIME_SAID = re.compile(r"\b(?:at|as of|since|around)\s+(\d[\w:./-]*(?:[ T]\d{1,2}:\d{2}\w*)?"
                       r"(?:\s*[ap]m\b)?)", re.I)
FAR = datetime(2999, 1, 1).astimezone()  # a clock no readable time is after


@dataclass
class JobWindow:
    window: Any  # what the tools read: {"start", "end"} or the question's own ("2h")
    why: str  # the window and why, as the answer says it


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _span(start: datetime, end: datetime) -> dict[str, str]:
    return {"start": iso(start), "end": iso(end)}


def _hm(t: datetime, zone: str) -> str:
    """'19:40 UTC', '11:40 PST': the network's wall time, its zone named (common/localtime)."""
    return local_at(t, zone, day=False)


def job_window(row: JobInfo, name: str, window: Any, at: str | None,
               question: str, zone: str = "UTC") -> JobWindow:
    """The window for the job of `row` (the job table's) and why; `window` and `at` are what
    the planner read from the question; `zone` the network's, the times said are in it."""
    until = _time(row["until"]) or datetime.now().astimezone()
    start = _time(row.get("start"))
    began = _hm(start, zone) if start else "an unknown start"
    run = (f"{name} has run since {began}, still running at {_hm(until, zone)}" if not row.get("end")
           else f"{name} ran from {began} to {_hm(until, zone)}")
    if window is not None:
        return JobWindow(window, f"the window the question gave ({_said(window, zone)})")
    default = _default(start, until, name, unread_time(question) or "the question gives no time",
                       zone)
    if at is not None and (t := _time(at)) is not None:
        if (start and t < start) or t > until:
            return JobWindow(default.window, f"{local_at(t, zone)}, the time the question "
                             f"gives, is outside {name}'s run ({run}); read instead: "
                             + _default(start, until, name, "", zone).why)
        lo, hi = max(t - BEFORE, start or t - BEFORE), min(t + AFTER, until)
        return JobWindow(_span(lo, hi), f"30 minutes before to 10 minutes after {_hm(t, zone)} "
                         f"(the time the question gives), clamped to the job's run ({run})")
    if RESTART.search(question):
        if start is None:
            return JobWindow(default.window, f"the job table has no start for {name}, so "
                             f"'since the restart' could not be placed; read instead: "
                             + _default(start, until, name, "", zone).why)
        return JobWindow(_span(start, until), f"since {name} (re)started at {_hm(start, zone)} (the "
                         "question asks since the restart) up to " + _hm(until, zone))
    return default


def hosts_window(window: Any, at: str | None, question: str, clock: str | None,
                 zone: str = "UTC") -> JobWindow:
    """The window for hosts named without a job, and why. `clock`: now, when known; `zone`: the
    network's, the times said are in it."""
    if window is not None:
        return JobWindow(window, f"the window the question gave ({_said(window, zone)})")
    now = _time(clock)
    if at is not None and (t := _time(at)) is not None:
        hi = t + AFTER if now is None else min(t + AFTER, now)
        cut = f", cut at now ({_hm(now, zone)})" if now is not None and hi < t + AFTER else ""
        return JobWindow(_span(t - BEFORE, hi), f"30 minutes before to 10 minutes after {_hm(t, zone)} "
                         f"(the time the question gives; no job is named, so no run to clamp "
                         f"it to){cut}")
    last = "the last hour"
    if RESTART.search(question):
        return JobWindow("1h", f"{last} ('since the restart' with no job named has no start to "
                         "place it at; name the job, e.g. \"job 4711 ...\", to read from its start)")
    said = unread_time(question)
    return JobWindow("1h", f"{last} ({said})" if said else
                     f"{last} (no time given and no job named, so no run to place the window in)")


def unread_time(question: str) -> str | None:
    """What is wrong with the time a question gives that the planner could not use ("at 25:99",
    a time still to come), said plainly; None when the question gives none."""
    from netopsai.planner.windows import parse_when

    m = TIME_SAID.search(question)
    if m is None:
        return None
    said = m.group(0).strip()
    when = parse_when(said, FAR)
    if when.at is None and when.window is None:
        return f"{said!r} in the question is not a time that can be read, so it was not used"
    return f"{said!r} in the question is in the future, so it was not used"


def _default(start: datetime | None, until: datetime, name: str, because: str,
             zone: str) -> JobWindow:
    lo, why = until - LOOKBACK, f" ({because})" if because else ""
    if start and start >= lo:
        return JobWindow(_span(start, until), f"{name}'s whole run, from its start at "
                         f"{_hm(start, zone)} to {_hm(until, zone)}{why}")
    return JobWindow(_span(lo, until), f"{name}'s last 6 hours, up to {_hm(until, zone)}{why}")


def _said(window: Any, zone: str) -> str:
    if isinstance(window, dict):
        return local_span(window.get("start"), window.get("end"), zone)
    return str(window)


def trace_time(window: Any) -> datetime | None:
    """When to trace the rails: the window's end when it has one (None: now)."""
    return _time(window.get("end")) if isinstance(window, dict) else None
