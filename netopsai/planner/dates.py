"""Calendar dates in a question, read by dateparser.

A pattern only finds where a date may be (ISO 2017-08-04, with or without a time; Aug 4 2017,
4 Aug, Sep 1st; 08/04/2017 with a four-digit year; Friday): dateparser decides what it is,
relative to the question's local clock and preferring the past, so a year-less date later than
today is last year's. Numbers alone never make a date (a numeric date needs its year), so
"leaf 4" or an interface "1/1/1" is not read as one. A bare numeric date follows dateparser's
default order (month first, unless the first number cannot be a month), and a note says which
was read; ISO and month names are never ambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

Span = tuple[int, int]

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+\d{4})"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_SHORT_WEEKDAY = rf"(?:{_WEEKDAY}|(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?),?\s+"
_DATE = re.compile(
    r"(?<![\w./:-])(?:"
    r"(?P<iso>(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)"
    r"|(?P<ymd>\d{4}/\d{1,2}/\d{1,2})"
    r"|(?P<num>(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-]\d{4})"
    rf"|(?P<named>(?:{_SHORT_WEEKDAY})?(?:{_MONTH}\s+{_DAY}|{_DAY}\s+(?:of\s+)?{_MONTH}){_YEAR}?)"
    rf"|(?P<weekday>(?:last\s+)?{_WEEKDAY})"
    r")(?![\w/:-])(?!\.\d)", re.I)


@dataclass
class DateHit:
    text: str
    span: Span
    day: date | None  # None: it looks like a date but is none (Feb 30)
    moment: datetime | None = None  # an ISO stamp with a time; aware when it names an offset
    note: str | None = None


_MODAL_MAY = re.compile(r"\d{1,2}\s+may", re.I)  # "the top 10 may flap" is no date; "10 May" is
_YEARS = range(1970, 9000)  # outside, no log has it (and the arithmetic of a window may overflow)


def find_dates(text: str, local: datetime) -> list[DateHit]:
    """Every date-like expression, read relative to `local` (the clock in the question's zone)."""
    return [_read(m, local) for m in _DATE.finditer(text)
            if not (_MODAL_MAY.fullmatch(m.group(0)) and "May" not in m.group(0))]


def _read(m: re.Match[str], local: datetime) -> DateHit:
    cand = m.group(0)
    hit = DateHit(cand, m.span(), None)
    got = _parse(cand, local)
    if got is None or (m["iso"] and (got.year, got.month, got.day) != _ints(m, "y", "m", "d")):
        hit.note = f"{cand!r} is not a date, so no time window was taken from it"
        return hit
    if got.year not in _YEARS:
        hit.note = f"{cand!r} is outside the years any log covers, so no time window was taken from it"
        return hit
    hit.day = got.date()
    if m["iso"] and "T" in cand.upper():
        hit.moment = got
    hit.note = _reading_note(m, hit.day, local)
    return hit


@lru_cache(maxsize=512)  # a pasted log repeats its dates: dateparser takes a millisecond or two each
def _parse(cand: str, local: datetime) -> datetime | None:
    # imported here, not at start-up: dateparser (and its regex, pytz, tzlocal) costs a cold
    # `ask` ~40 ms, and only a question with a calendar date in it reaches this line
    import dateparser

    settings = {"RELATIVE_BASE": local.replace(tzinfo=None), "PREFER_DATES_FROM": "past"}
    try:
        return dateparser.parse(cand, languages=["en"], settings=settings)
    except Exception:  # a third-party parser's surprise must not fail the question
        return None


def _ints(m: re.Match[str], *names: str) -> tuple[int, ...]:
    return tuple(int(m[n]) for n in names)


def _reading_note(m: re.Match[str], day: date, local: datetime) -> str | None:
    """Say how a date was read where the text left a choice: which number is the month, which
    year, which week."""
    cand = m.group(0)
    if m["num"]:
        a, b = _ints(m, "a", "b")
        if a <= 12 and b <= 12 and a != b:
            order = "month/day" if day.month == a else "day/month"
            return (f"{cand} read as {order} ({day:%Y-%m-%d}); write the date as {day:%Y-%m-%d} or "
                    f"with the month's name to be sure")
    elif m["weekday"]:
        return f"{cand!r} read as {day:%A %Y-%m-%d}"
    elif m["named"] and not re.search(r"\d{4}", cand) and day.year != local.year:
        return f"{cand!r} has no year and is later than today, so it is last year's: {day:%Y-%m-%d}"
    return None
