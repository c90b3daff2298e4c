"""Time expressions in a question -> a tool window ("2h"-style, or {"start", "end"} in UTC with Z).

Relative to the caller's clock (the lab clock or now), so the same question always plans the
same window at the same clock. Each match also returns its text span, so the entity extractor
can mask it (the "2" of "last 2h" is not a device number).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from netopsai.timewin import as_utc, iso

Span = tuple[int, int]
WindowValue = str | dict[str, str]

_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15,
                 "twenty": 20, "thirty": 30, "forty-five": 45, "sixty": 60}
_N = r"(\d+(?:\.\d+)?|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_U = r"(minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w)"
_REL = re.compile(rf"\b(?:last|past|previous|prior|within)\s+(?:{_N}[\s-]*)?{_U}\b", re.I)
_AGO = re.compile(rf"\b(?:since\s+)?{_N}\s*{_U}\s+ago\b", re.I)
_T = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*(?:z|utc|gmt))?"
_BETWEEN = re.compile(rf"\b(?:between|from)\s+{_T}\s+(?:and|to|until|till|-)\s+{_T}", re.I)
_RANGE = re.compile(r"\b(\d{1,2}):(\d{2})()\s*(?:-|–|to)\s*(\d{1,2}):(\d{2})()", re.I)
_SINCE = re.compile(rf"\bsince\s+{_T}", re.I)
_AT = re.compile(rf"\b(?:at|as of)\s+{_T}", re.I)
_SINCE_YESTERDAY = re.compile(r"\bsince\s+yesterday\b", re.I)
_YESTERDAY = re.compile(r"\byesterday\b", re.I)
_TODAY = re.compile(r"\b(?:so far\s+)?today\b|\bsince\s+midnight\b|\bthis week\b", re.I)


@dataclass
class When:
    window: WindowValue | None = None
    at: str | None = None  # a point in time (for a traceroute "as of")
    spans: list[Span] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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


def _clock_time(h: str, m: str | None, ampm: str | None) -> tuple[int, int] | None:
    """'8', None, 'pm' -> (20, 0); a bare hour without am/pm or ':MM' is not a time."""
    hour, minute = int(h), int(m or 0)
    if m is None and not ampm:
        return None
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower() == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour, minute


def _on(day: datetime, hm: tuple[int, int]) -> datetime:
    return day.replace(hour=hm[0], minute=hm[1], second=0, microsecond=0)


def _between(m: re.Match[str], clock: datetime, yesterday: bool) -> WindowValue | None:
    a, b = _clock_time(*m.group(1, 2, 3)), _clock_time(*m.group(4, 5, 6))
    if a is None or b is None:
        return None
    day = clock - timedelta(days=1) if yesterday else clock
    start, end = _on(day, a), _on(day, b)
    if end <= start:
        end += timedelta(days=1)  # 23:00 to 01:00 crosses midnight
    if start >= clock:
        start, end = start - timedelta(days=1), end - timedelta(days=1)  # a time not yet reached today
    return {"start": iso(start), "end": iso(min(end, clock))}


def _since(m: re.Match[str], clock: datetime) -> WindowValue | None:
    hm = _clock_time(*m.group(1, 2, 3))
    if hm is None:
        return None
    start = _on(clock, hm)
    if start >= clock:
        start -= timedelta(days=1)  # "since 22:00" asked at 20:00 means yesterday's 22:00
    return {"start": iso(start), "end": iso(clock)}


def _day_window(m: re.Match[str], clock: datetime) -> WindowValue:
    midnight = clock.replace(hour=0, minute=0, second=0, microsecond=0)
    word = m.group(0).lower()
    if "yesterday" in word and word.startswith("since"):
        return {"start": iso(midnight - timedelta(days=1)), "end": iso(clock)}
    if "yesterday" in word:
        return {"start": iso(midnight - timedelta(days=1)), "end": iso(midnight)}
    if "week" in word:  # since Monday 00:00
        return {"start": iso(midnight - timedelta(days=clock.weekday())), "end": iso(clock)}
    return {"start": iso(midnight), "end": iso(clock)}


def parse_when(text: str, clock: datetime) -> When:
    """The first window expression wins; every time expression is masked."""
    clock = as_utc(clock)
    out = When()
    said_yesterday = bool(_YESTERDAY.search(text))
    for rx in (_BETWEEN, _RANGE):
        for m in rx.finditer(text):
            w = _between(m, clock, said_yesterday)
            if w is not None:
                _take(out, w, m)
    for m in _SINCE_YESTERDAY.finditer(text):
        _take(out, _day_window(m, clock), m)
    for m in _SINCE.finditer(text):
        w = _since(m, clock)
        if w is not None:
            _take(out, w, m)
    for rx in (_REL, _AGO):
        for m in rx.finditer(text):
            d = _duration(m.group(1), m.group(2))
            if d is not None:
                _take(out, d, m)
    for rx in (_YESTERDAY, _TODAY):
        for m in rx.finditer(text):
            if out.window is None:
                _take(out, _day_window(m, clock), m)
            else:  # "between 19:00 and 20:00 yesterday": the day only qualifies the times
                out.spans.append(m.span())
    _point(text, clock, out)
    return out


def _take(out: When, window: WindowValue, m: re.Match[str]) -> None:
    if any(s <= m.start() < e for s, e in out.spans):
        return  # already part of a longer expression ("since yesterday")
    out.spans.append(m.span())
    if out.window is None:
        out.window = window
    elif out.window != window:
        out.notes.append(f"several time windows given; using the first ({_show(out.window)})")


def _point(text: str, clock: datetime, out: When) -> None:
    """'at 19:30' / 'as of 7pm': a point in time, today or (if not reached yet) yesterday."""
    for m in _AT.finditer(text):
        hm = _clock_time(*m.group(1, 2, 3))
        if hm is None:
            continue
        at = _on(clock, hm)
        out.at = iso(at - timedelta(days=1) if at > clock else at)
        out.spans.append(m.span())
        return


def _show(window: WindowValue) -> str:
    return window if isinstance(window, str) else f"{window['start']} to {window['end']}"
