"""A range whose two ends each name their day: "from Nov 1 10:00 to Nov 2 12:00", "from 23:00
yesterday to 01:00 today", "Nov 1 22:00 - Nov 2 02:00", "between 10:00 on Nov 1 and 12:00 on Nov 2".

The clock-time ranges (timescan.clock_times) read their digits with the dates blanked, so both
times fell on the first date: the first example was read as Nov 1 10:00-12:00. Here each end is
placed on its own day before those run, and the whole expression is masked so they skip it. A
range where only one end names a day ("Nov 1 10:00 to 12:00", "from 22:00 to 02:00 yesterday")
is theirs, as before.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from netopsai.planner.dates import DateHit
from netopsai.planner.dayparts import hm as named
from netopsai.planner.timescan import Scan, clock_time, take

_MARK = "\x01"  # stands in for a date's characters: a day, and never a digit the times could read
_DAY = rf"(?:{_MARK}+|\byesterday\b|\btoday\b)"


def _end(n: int) -> str:
    """One end: a clock time with its day before it ("Nov 1 10:00", "yesterday, 23:00") or after
    it ("10:00 on Nov 1", "23:00 yesterday")."""
    return (rf"(?:(?P<pre{n}>{_DAY})\s*,?\s*(?:at\s+)?)?"
            rf"(?<![\w:.])(?P<h{n}>\d{{1,2}})(?::(?P<m{n}>\d{{2}}))?\s*(?P<ap{n}>am|pm)?"
            rf"(?:\s*(?:z|utc|gmt))?(?![\w:])"
            rf"(?:\s*,?\s*(?:on\s+)?(?P<post{n}>{_DAY}))?")


_RANGE = re.compile(rf"(?:\b(?P<lead>from|between)\s+)?{_end(1)}\s*(?P<to>to|until|till|through|thru|and|-|–)"
                    rf"\s*{_end(2)}", re.I)


def cross_day_ranges(scan: Scan, dates: list[DateHit]) -> None:
    """Take the first range whose two ends each carry a day; mask every such range."""
    chars = list(scan.text)
    for d in dates:
        chars[d.span[0]:d.span[1]] = _MARK * (d.span[1] - d.span[0])
    marked = "".join(chars)
    by_start = {d.span[0]: d for d in dates}
    for m in _RANGE.finditer(marked):
        if m["to"].lower() == "and" and not m["lead"]:
            continue  # "10:00 yesterday and 11:00 today" is two moments, not a range
        days = [_day(m, n, marked, by_start, scan.local) for n in (1, 2)]
        times = [clock_time(m[f"h{n}"], m[f"m{n}"], m[f"ap{n}"]) for n in (1, 2)]
        if None in days or None in times or scan.covered(m.start()):
            continue
        start, end = (_at(day, hm, scan) for day, hm in zip(days, times, strict=True))  # type: ignore[arg-type]
        if end == start:
            scan.out.notes.append(f"from {start:%Y-%m-%d} {named(start)} to the same time is an empty "
                                  "window, so it was not used")
            take(scan, None, m, clock_time=True)
            continue
        if end < start:
            scan.out.notes.append(f"the end {end:%Y-%m-%d} {named(end)} is before the start "
                                  f"{start:%Y-%m-%d} {named(start)}; read the other way round")
            start, end = end, start
        take(scan, (start, end), m, clock_time=True)


def _day(m: re.Match[str], n: int, marked: str, by_start: dict[int, DateHit],
         local: datetime) -> date | None:
    """The day one end names (before or after its time), or None: no day, or a date that is none."""
    for key in (f"pre{n}", f"post{n}"):
        word = m[key]
        if not word:
            continue
        if word.lower() == "yesterday":
            return local.date() - timedelta(days=1)
        if word.lower() == "today":
            return local.date()
        start = m.start(key)
        while start > 0 and marked[start - 1] == _MARK:  # a date's mark read from its middle
            start -= 1
        hit = by_start.get(start)
        return hit.day if hit is not None else None
    return None


def _at(day: date, hm: tuple[int, int], scan: Scan) -> datetime:
    return datetime(day.year, day.month, day.day, hm[0], hm[1], tzinfo=scan.local.tzinfo)
