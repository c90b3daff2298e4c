"""Clock times and dates of a question placed on the calendar, in the question's zone.

windows.parse_when reads a question through a Scan: the text with dates and zone names blanked
(so the clock-time patterns never read their digits), the clock in the question's zone, and the
day clock times fall on (a date the question gives, "yesterday", "today"; with none, today, or
yesterday when the time is not reached yet). Every expression found is masked; the first window
found is the one used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from netopsai.common.timewin import iso
from netopsai.planner.dates import DateHit, Span
from netopsai.planner.dayparts import hm as named

if TYPE_CHECKING:
    from netopsai.planner.windows import When

Found = str | tuple[datetime, datetime] | None

_T = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*(?:z|utc|gmt))?"
_BETWEEN = re.compile(rf"\b(?:between|from)\s+{_T}\s+(?:and|to|until|till|-)\s+{_T}", re.I)
_RANGE = re.compile(r"\b(\d{1,2}):(\d{2})()\s*(?:-|–|to)\s*(\d{1,2}):(\d{2})()", re.I)
# "after 19:45" as "since 19:45"; only a clock time ("after 10 seconds" is no window)
_SINCE = re.compile(rf"\b(?:since|after(?=\s+\d{{1,2}}(?::\d{{2}}|\s*[ap]m\b)))\s+{_T}", re.I)
_AROUND = re.compile(rf"(?:\b(?:around|about|approx(?:imately|\.)?|circa|near)|~)\s*{_T}", re.I)
_AT = re.compile(rf"\b(?:at|as of)\s+{_T}", re.I)
# a clock time with no word before it ("A B 12:12?", "yesterday 18:05"): not a piece of an
# address, a MAC, a port name or a longer time ("18:05:33" is a log stamp's, read with its date)
_BARE = re.compile(r"(?<![\w:./-])(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*(?:z|utc|gmt))?(?![\w:/-]|\.\d)",
                   re.I)
# words that make a clock time a bound, not a moment ("until 10:20"): never read as a point
_BOUND_BEFORE = re.compile(
    r"\b(?:until|till|before|by|to|and|from|between|since|after|for|every|each|in)\s*$", re.I)
# bounded: `\s*,?\s*` read the whole blank run after every date (dates already masked): quadratic
_AFTER_DATE = re.compile(r"\s{0,8}+(?:,\s{0,8}+)?(\d{1,2}):(\d{2})()\s*(am|pm)?")  # "Sep 1 10:20"
_BEFORE_DATE = re.compile(r"(\d{1,2}):(\d{2})()\s*(am|pm)?\s*(?:on\s+)?$", re.I)  # "10:20 on Sep 1"
_SINCE_BEFORE = re.compile(r"\b(?:since|after)\s*$", re.I)
_BETWEEN_BEFORE = re.compile(r"\bbetween\s*$", re.I)
_TO = re.compile(r"\s*(?:and|to|until|till|through|thru|-|–)\s*$", re.I)
AROUND = timedelta(minutes=10)  # "around 10:20" is 10:10-10:30
_MIDNIGHT_CROSSING = timedelta(hours=12)  # "23:00 to 01:00" crosses midnight; "10:25 to 10:15" is reversed
LOOKBACK = 48  # the words that qualify a date ("since", "between", "10:20 on") are this close before it


@dataclass
class Scan:
    text: str  # the question, dates and zone names blanked
    local: datetime  # the clock, in the question's zone
    out: When
    day: date | None = None  # the day clock times fall on
    blocked: bool = False  # an unreadable date: clock times are masked but placed on no day
    timed: bool = False  # a clock time was read: a date only qualifies it, even if it gave no window
    # out.spans (append-only) marked on a map of the text as they come: "is this place taken?"
    # asked of every expression was a walk over every span before it (quadratic)
    cover: bytearray = field(init=False)
    listed: set[Span] = field(default_factory=set)
    marked: int = 0

    def __post_init__(self) -> None:
        self.cover = bytearray(len(self.text))

    def covered(self, at: int) -> bool:
        """Whether `at` is inside an expression already taken."""
        self._sync()
        return 0 <= at < len(self.cover) and bool(self.cover[at])

    def has(self, span: Span) -> bool:
        self._sync()
        return span in self.listed

    def _sync(self) -> None:
        spans = self.out.spans
        for s, e in spans[self.marked:]:
            self.cover[s:e] = b"\x01" * (e - s)
            self.listed.add((s, e))
        self.marked = len(spans)


def before(rx: re.Pattern[str], text: str, at: int) -> re.Match[str] | None:
    """`rx` (anchored with `$`) ending at `at`, read in the few characters before it: searched
    over the whole text before every date, a pasted log of dates was quadratic."""
    return rx.search(text, max(0, at - LOOKBACK), at)


def take(scan: Scan, window: Found, where: re.Match[str] | Span | None,
         clock_time: bool = False) -> None:
    """Mask the expression; its window is used if it is the first (clock times on an unreadable
    date are masked only)."""
    out = scan.out
    if isinstance(where, re.Match):
        if scan.covered(where.start()):
            return  # already part of a longer expression ("since yesterday")
        out.spans.append(where.span())
    elif where is not None and not scan.has(where):
        out.spans.append(where)
    scan.timed = scan.timed or clock_time
    if window is None or (clock_time and scan.blocked):
        return
    value = window if isinstance(window, str) else {"start": iso(window[0]), "end": iso(window[1])}
    if out.window is None:
        out.window = value
    elif out.window != value:
        shown = out.window if isinstance(out.window, str) else f"{out.window['start']} to {out.window['end']}"
        out.notes.append(f"several time windows given; using the first ({shown})")


def clock_time(h: str, m: str | None, ampm: str | None) -> tuple[int, int] | None:
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


def _hm(m: re.Match[str], first: int) -> tuple[int, int] | None:
    return clock_time(*m.group(first, first + 1, first + 2))


def _on(scan: Scan, hm: tuple[int, int], day: date | None = None) -> datetime:
    """The clock time on `day` (default: the scan's day, else today) in the question's zone."""
    d = day or scan.day or scan.local.date()
    return datetime(d.year, d.month, d.day, hm[0], hm[1], tzinfo=scan.local.tzinfo)


def _not_reached(scan: Scan, start: datetime, *more: datetime) -> tuple[datetime, ...]:
    """A clock time with no day that is not reached yet today means yesterday's."""
    if scan.day is None and start >= scan.local:
        return tuple(t - timedelta(days=1) for t in (start, *more))
    return (start, *more)


def _between(scan: Scan, m: re.Match[str], a_hm: tuple[int, int],
             b_hm: tuple[int, int]) -> tuple[datetime, datetime] | None:
    a, b = _on(scan, a_hm), _on(scan, b_hm)
    if a == b:
        scan.out.notes.append(f"{m.group(0).strip()!r} is an empty window, so it was not used")
        return None
    if b < a and b + timedelta(days=1) - a <= _MIDNIGHT_CROSSING:
        b += timedelta(days=1)  # 23:00 to 01:00 crosses midnight
    elif b < a:
        scan.out.notes.append(f"the end {named(b)} is before the start {named(a)}; "
                              f"read as {b:%H:%M}–{named(a)}")
        a, b = b, a
    start, end = _not_reached(scan, a, b)
    return start, end


def clock_times(scan: Scan) -> None:
    """Ranges ("between 10:15 and 10:25", "14:00–15:00"), "around 10:20" and "since 08:00"."""
    for rx in (_BETWEEN, _RANGE):
        for m in rx.finditer(scan.text):
            a, b = _hm(m, 1), _hm(m, 4)
            if scan.covered(m.start()):
                continue  # read already (a range whose ends name their days): no second note
            if a is not None and b is not None:
                take(scan, _between(scan, m, a, b), m, clock_time=True)
    for m in _AROUND.finditer(scan.text):
        hm = _hm(m, 1)
        if hm is not None:
            (t,) = _not_reached(scan, _on(scan, hm))
            scan.out.notes.append(f"{m.group(0).strip()!r} read as ±{AROUND.seconds // 60} min: "
                                  f"{t - AROUND:%H:%M}–{named(t + AROUND)}")
            take(scan, (t - AROUND, t + AROUND), m, clock_time=True)
    for m in _SINCE.finditer(scan.text):
        hm = _hm(m, 1)
        if hm is not None:
            (start,) = _not_reached(scan, _on(scan, hm))
            take(scan, (start, scan.local), m, clock_time=True)


def point(scan: Scan) -> None:
    """'at 19:30' / 'as of 7pm': a point in time, today or (if not reached yet) yesterday."""
    for m in _AT.finditer(scan.text):
        hm = _hm(m, 1)
        if hm is not None and not scan.covered(m.start(1)):
            _place_point(scan, _not_reached(scan, _on(scan, hm))[0], m.span())
            return


def bare_point(scan: Scan) -> None:
    """A clock time nothing else read, with no "at" before it ("yesterday 18:05", "A B
    12:12?"): the same point as "at 18:05" (on a named day, with its ±window), not the whole
    day and not no time at all. Read after the dates, so "Sep 1 10:20" stays the date's."""
    if scan.out.at is not None or scan.out.window is not None:
        return
    for m in _BARE.finditer(scan.text):
        hm = _hm(m, 1)
        if hm is None or scan.covered(m.start(1)) or before(_BOUND_BEFORE, scan.text, m.start()):
            continue
        _place_point(scan, _not_reached(scan, _on(scan, hm))[0], m.span())
        return


def _place_point(scan: Scan, at: datetime, span: Span) -> None:
    """On a named day the point also gives a window around it: the tools' default window (the
    last hour) would miss it."""
    scan.out.spans.append(span)
    scan.timed = True
    if scan.blocked or scan.out.at is not None:
        return
    scan.out.at = iso(at)
    if scan.day is not None:
        scan.out.notes.append(f"a window of ±{AROUND.seconds // 60} min around {at:%Y-%m-%d} {named(at)}")
        take(scan, (at - AROUND, at + AROUND), None)


def dated(scan: Scan, dates: list[DateHit]) -> None:
    """Dates not already qualifying a clock time: a range of dates, "since <date>", a date with
    its time ("Sep 1 10:20", an ISO stamp), else the whole day."""
    used = scan.timed or scan.out.window is not None
    i = 0
    while i < len(dates):
        d, nxt = dates[i], dates[i + 1] if i + 1 < len(dates) else None
        start, span = _start_of(scan, d)
        if nxt is not None and _date_range(scan, d, span[1], nxt):
            _dates_window(scan, d, nxt)
            i += 2
            continue
        if before(_SINCE_BEFORE, scan.text, span[0]):
            take(scan, (start, scan.local), span)
        elif span != d.span or d.moment is not None:
            _place_point(scan, start, span)
        elif not used:
            take(scan, (start, start + timedelta(days=1)), span)
        i += 1


def _dates_window(scan: Scan, d: DateHit, nxt: DateHit) -> None:
    """From the first date (its time, else its midnight) to the second (its time, else the end
    of that day); dates given the other way round are read in order, and said."""
    (start, span), (end, end_span) = _start_of(scan, d), _start_of(scan, nxt, end_of_day=True)
    if end < start:
        scan.out.notes.append(f"{nxt.text!r} is before {d.text!r}; read as from {nxt.text} to {d.text}")
        start, end = _start_of(scan, nxt)[0], _start_of(scan, d, end_of_day=True)[0]
    if end <= start:
        scan.out.notes.append(f"from {d.text} to {nxt.text} is an empty window, so it was not used")
        take(scan, None, (span[0], end_span[1]))
        return
    take(scan, (start, end), (span[0], end_span[1]))


def _start_of(scan: Scan, d: DateHit, end_of_day: bool = False) -> tuple[datetime, Span]:
    """Where a date starts a window (or ends one): its ISO time, a clock time written beside it
    ("Sep 1 10:20", "10:20 on Sep 1"), else its midnight (the next one for an end); and the
    span covering the date and that time."""
    assert d.day is not None
    if d.moment is not None:
        return d.moment if d.moment.tzinfo else d.moment.replace(tzinfo=scan.local.tzinfo), d.span
    after = _AFTER_DATE.match(scan.text, d.span[1])
    ahead = before(_BEFORE_DATE, scan.text, d.span[0])
    for m, span in ((after, (d.span[0], after.end() if after else 0)),
                    (ahead, (ahead.start() if ahead else 0, d.span[1]))):
        hm = _hm(m, 1) if m else None
        if m and hm and not scan.covered(m.start(1)):
            return _on(scan, hm, d.day), span
    midnight = datetime(d.day.year, d.day.month, d.day.day, tzinfo=scan.local.tzinfo)
    return midnight + timedelta(days=1 if end_of_day else 0), d.span


def _date_range(scan: Scan, d: DateHit, after: int, nxt: DateHit) -> bool:
    """"from Aug 4 to Aug 6", "between 2017-08-04 and 2017-08-06" (an "and" needs "between")."""
    m = _TO.match(scan.text[after:nxt.span[0]])
    if m is None:
        return False
    return m.group(0).strip().lower() != "and" or bool(before(_BETWEEN_BEFORE, scan.text, d.span[0]))
