"""Time expressions in a question -> a tool window ("2h"-style, or {"start", "end"} in UTC with Z).

Relative to the caller's clock (the lab clock or now), so the same question always plans the
same window at the same clock. Clock times and days are local to the zone the question names
("10:15 PDT", "in Europe/Paris"; zones.py), else to the configured default zone; the window is
converted to UTC. Dates ("on 2017-08-04", "Sep 1", "last Friday") are read by dateparser
(dates.py) and place the clock times on that day; a date alone is that whole day. Each match
also returns its text span, so the entity extractor can mask it (the "2" of "last 2h" or the
"2017" of a date is not a device number).

"since the maintenance window" / "since the change" cannot be placed from the text: When says
so (`since_change`) and the planner finds the start in the change records.

Bad input never raises: a date that is none (Feb 30), an empty or reversed range, a window in
the future (dropped, or cut at the clock) each leave a note saying what was done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from netopsai.common.timewin import as_utc, iso
from netopsai.planner.crossday import cross_day_ranges
from netopsai.planner.dates import DateHit, find_dates
from netopsai.planner.dayparts import DAY_PART, day_part
from netopsai.planner.timescan import Scan, Span, bare_point, clock_times, dated, point, take
from netopsai.planner.window_text import WindowValue, label, span_text
from netopsai.planner.zones import Zone, daylight_note, find_zone

__all__ = ["Span", "When", "WindowValue", "parse_when"]

_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15,
                 "twenty": 20, "thirty": 30, "forty-five": 45, "sixty": 60}
_N = r"(\d+(?:\.\d+)?|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_U = r"(minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w)"
_REL = re.compile(rf"\b(?:last|past|previous|prior|within)\s+(?:{_N}[\s-]*)?{_U}\b", re.I)
_AGO = re.compile(rf"\b(?:since\s+)?{_N}\s*{_U}\s+ago\b", re.I)
_SINCE_YESTERDAY = re.compile(r"\bsince\s+yesterday\b", re.I)
_YESTERDAY = re.compile(r"\byesterday\b", re.I)
_TODAY = re.compile(r"\b(?:so far\s+)?today\b|\bsince\s+midnight\b|\bthis week\b", re.I)
_SINCE_CHANGE = re.compile(r"\b(?:since|after)\s+(?:the\s+|our\s+|that\s+|last\s+)?(?:maintenance"
                           r"(?:\s+window)?|change(?:\s+window)?|mw|cutover|upgrade|deploy(?:ment)?|"
                           r"rollout|migration)\b|\bsince\s+(?=chg[-\s#]?\d)", re.I)


@dataclass
class When:
    window: WindowValue | None = None
    at: str | None = None  # a point in time (for a traceroute "as of")
    spans: list[Span] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    zone: str = "UTC"  # the zone the times were read in: the question's, else the default
    zone_given: bool = False  # the question named the zone
    since_change: bool = False  # "since the maintenance window": its start is a change record's


def parse_when(text: str, clock: datetime, zone: str = "UTC") -> When:
    """The first window expression wins; every time expression is masked. `zone` is the zone
    of times the question gives without one (the network config's `ingest.timezone`)."""
    clock = as_utc(clock)
    found = find_zone(text, zone)
    out = When(spans=list(found.spans), notes=list(found.notes), zone=found.zone.name,
               zone_given=found.zone.given)
    local = clock.astimezone(found.zone.tz)
    dates = find_dates(text, local)
    out.spans += [d.span for d in dates]
    out.notes += [d.note for d in dates if d.note]
    scan = Scan(_blank(text, out.spans), local, out, _qualifying_day(text, dates, local),
                any(d.day is None for d in dates))
    cross_day_ranges(scan, dates)  # each end on its own day, before the times fall on the first
    clock_times(scan)
    for m in _SINCE_YESTERDAY.finditer(scan.text):
        take(scan, _day_window(m, local), m)
    point(scan)
    dated(scan, [d for d in dates if d.day is not None])
    bare_point(scan)
    _durations(scan)
    _day_words(scan)
    _since_change(text, out)
    _finish(out, clock, found.zone)
    return out


def _blank(text: str, spans: list[Span]) -> str:
    """`text` with the spans blanked, in one pass (a copy of the text per span was quadratic)."""
    chars = list(text)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


def _qualifying_day(text: str, dates: list[DateHit], local: datetime) -> date | None:
    """The day clock times fall on: the first date given, else yesterday or today if said."""
    for d in dates:
        if d.day is not None:
            return d.day
    if _YESTERDAY.search(text):
        return local.date() - timedelta(days=1)
    return local.date() if re.search(r"\btoday\b", text, re.I) else None


def _duration(num: str | None, unit: str) -> str | None:
    """'2', 'hours' -> '2h'; weeks become days; fractions become minutes ('1.5h' -> '90m')."""
    u = unit.lower()
    if num is None and len(u) == 1:
        return None  # "last m" is not a time expression; "last hour" is
    n = float(_NUMBER_WORDS.get((num or "1").lower(), num or 1))
    letter, factor = {"m": ("m", 1), "h": ("h", 1), "d": ("d", 1), "w": ("d", 7)}[u[0]]
    n *= factor
    if n <= 0:
        return None
    if n != int(n):
        minutes = n * {"m": 1, "h": 60, "d": 1440}[letter]
        return f"{round(minutes)}m"
    return f"{int(n)}{letter}"


def _durations(scan: Scan) -> None:
    for rx in (_REL, _AGO):
        for m in rx.finditer(scan.text):
            d = _duration(m.group(1), m.group(2))
            if d is not None:
                take(scan, d, m)


def _day_words(scan: Scan) -> None:
    """"last night", "this morning" ...; then "yesterday", "today", "this week", which only
    qualify the times when a window was already found ("between 19:00 and 20:00 yesterday")."""
    for m in DAY_PART.finditer(scan.text):
        window, note = day_part(m, scan.local)
        if scan.out.window is None:
            scan.out.notes.append(note)
        take(scan, window, m)
    for rx in (_YESTERDAY, _TODAY):
        for m in rx.finditer(scan.text):
            take(scan, _day_window(m, scan.local) if scan.out.window is None else None, m)


def _day_window(m: re.Match[str], local: datetime) -> tuple[datetime, datetime]:
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    word = m.group(0).lower()
    if "yesterday" in word and word.startswith("since"):
        return midnight - timedelta(days=1), local
    if "yesterday" in word:
        return midnight - timedelta(days=1), midnight
    if "week" in word:  # since Monday 00:00
        return midnight - timedelta(days=local.weekday()), local
    return midnight, local


def _since_change(text: str, out: When) -> None:
    """Marked, not placed: the planner takes the start from the change records. Its words stay
    unmasked, since "maintenance"/"change" are what tell the planner to read those records."""
    m = _SINCE_CHANGE.search(text)
    if m:
        out.since_change = True
        said = m.group(0).strip() + (" <ticket>" if m.group(0).strip().lower() == "since" else "")
        out.notes.append(f"{said!r} starts at a change record, not at a time in the question: "
                         "the change records place it")


def _finish(out: When, clock: datetime, zone: Zone) -> None:
    """A window that has not begun is dropped, one that runs past the clock is cut there: both
    said. A daylight abbreviation given out of season is said too."""
    if isinstance(out.window, dict):
        start, end = (_utc(out.window[k]) for k in ("start", "end"))
        shown = span_text(start, end, zone.name, zone.tz)
        local = clock.astimezone(zone.tz)
        now = f"{local:%Y-%m-%d %H:%M} {label(local, zone.name)}"
        if start >= clock:
            out.notes.append(f"the window {shown} is in the future (now is {now}), so it was not used")
            out.window = None
        elif end > clock:
            out.notes.append(f"the window {shown} ends in the future; it was cut at now ({now})")
            out.window = {"start": out.window["start"], "end": iso(clock)}
        note = daylight_note(zone, start) if zone.given else None
        out.notes += [note] if note else []
    if out.at is not None and _utc(out.at) > clock:
        out.notes.append(f"{out.at} is in the future, so it was not used")
        out.at = None


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
