"""The time zone a question's clock times are in: the one it names ("in PDT", "10:15 CET",
"Europe/Paris", "UTC+2"), else the configured default (`ingest.timezone`, UTC unless set).

Abbreviations are ambiguous (CST is US Central, China and Cuba; IST is India, Israel and
Ireland), so they are read from one explicit table, the one syslog stamps are read with
(`common/zones.ABBREVIATIONS`): each names a fixed offset, CST = UTC-6 (US Central),
IST = UTC+5:30 (India), BST = UTC+1 (British Summer Time). A daylight-specific name is taken as
written: "PST" in August is UTC-8, with a note that Pacific clocks then showed PDT. Generic
names (PT, MT, CT, ET) and IANA names (America/Los_Angeles) follow daylight saving. The names
themselves (`zone_of`) are common/zones.py's, so the rooms below the planner read them too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from netopsai.common.zones import ABBREVIATIONS, GENERIC, OFFSET, offset, zone_of

Span = tuple[int, int]

# where a standard/daylight pair is kept, to say when the name given is not the one in force
_REGION = {"PST": "America/Los_Angeles", "PDT": "America/Los_Angeles", "MST": "America/Denver",
           "MDT": "America/Denver", "CST": "America/Chicago", "CDT": "America/Chicago",
           "EST": "America/New_York", "EDT": "America/New_York", "CET": "Europe/Paris",
           "CEST": "Europe/Paris", "BST": "Europe/London", "AEST": "Australia/Sydney",
           "AEDT": "Australia/Sydney", "NZST": "Pacific/Auckland", "NZDT": "Pacific/Auckland"}
_IANA = re.compile(r"(?<![\w/-])([A-Z][A-Za-z]+(?:_[A-Za-z]+)*(?:/[A-Za-z][A-Za-z_+-]*){1,2})(?![\w/])")
_WORD = re.compile(r"(?<![\w/-])([A-Za-z]{2,5})(?![\w/-])")
_ZULU = re.compile(r"(?<=\d)Z\b")
_AFTER_TIME = re.compile(r"(?:\d\d?:\d\d|\d\s*[ap]m|\bin)\s*$", re.I)
_NOT_FROM_TEXT = {"WEST", "MET", "MEST", "UT"}  # more often a site or a word than a zone


@dataclass(frozen=True)
class Zone:
    name: str  # as the question wrote it (abbreviations upper-cased), or the default's name
    tz: tzinfo
    given: bool = False  # named by the question, not the configured default


@dataclass
class ZoneFound:
    zone: Zone
    spans: list[Span] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def find_zone(text: str, default: str = "UTC") -> ZoneFound:
    """The first zone the question names (later ones are noted), else the default."""
    hits = sorted(_candidates(text))
    if not hits:
        tz = zone_of(default)
        if tz is None:
            return ZoneFound(Zone("UTC", UTC), notes=[f"the default zone {default!r} is unknown; "
                                                       "times are read as UTC"])
        return ZoneFound(Zone(default, tz))
    _, _, name, tz = hits[0]
    found = ZoneFound(Zone(name, tz, given=True), spans=[(s, e) for s, e, _, _ in hits])
    others = sorted({n for _, _, n, _ in hits[1:] if n != name})
    if others:
        found.notes.append(f"several time zones named ({', '.join([name, *others])}); "
                           f"times are read in {name}")
    return found


def _candidates(text: str) -> list[tuple[int, int, str, tzinfo]]:
    out = []
    for m in OFFSET.finditer(text):
        tz = offset(m)
        if tz is not None:
            out.append((m.start(), m.end(), "UTC" + m.group(0)[3:].replace(" ", ""), tz))
    starts, ends = [s for s, _, _, _ in out], [e for _, e, _, _ in out]  # in order, apart
    for m in _IANA.finditer(text):
        tz = zone_of(m.group(1))
        if tz is not None and "/" in m.group(1):
            out.append((m.start(), m.end(), m.group(1), tz))
    for m in _WORD.finditer(text):
        i = bisect_right(starts, m.start()) - 1  # the offset before it, if it is inside one
        if not (i >= 0 and m.start() < ends[i]) and _is_zone_word(text, m):
            word = m.group(1).upper()
            out.append((m.start(), m.end(), word, zone_of(word) or UTC))
    out += [(m.start(), m.end(), "UTC", UTC) for m in _ZULU.finditer(text)]
    return out


def _is_zone_word(text: str, m: re.Match[str]) -> bool:
    """Upper case anywhere ("PDT"); lower case only after a time or "in" ("10:15 pdt", "in utc"),
    so English words that are also abbreviations ("wet", "met") stay words."""
    word = m.group(1)
    if word.upper() in _NOT_FROM_TEXT or (word.upper() not in ABBREVIATIONS
                                         and word.upper() not in GENERIC):
        return False
    if word.isupper():
        return True
    # the few characters before it, not the whole text before every word (quadratic)
    return word.upper() not in GENERIC and bool(_AFTER_TIME.search(text, max(0, m.start() - 24),
                                                                     m.start()))


def daylight_note(zone: Zone, at: datetime) -> str | None:
    """'PST' given for a moment when Pacific clocks showed PDT: say so (the offset stays as
    written; the on-call may have meant the local clock)."""
    region = _REGION.get(zone.name)
    if region is None:
        return None
    there = at.astimezone(ZoneInfo(region))
    shown = there.tzname()
    if shown == zone.name or shown not in ABBREVIATIONS:
        return None
    offset = there.utcoffset() or timedelta(0)
    return (f"{zone.name} is UTC{_hours(ABBREVIATIONS[zone.name])} as written, but on "
            f"{there:%Y-%m-%d} {region} clocks showed {shown} (UTC{_hours(offset / timedelta(hours=1))}); "
            f"say {shown} or {region} for the local clock")


def _hours(h: float) -> str:
    sign = "-" if h < 0 else "+"
    whole, frac = divmod(abs(h), 1)
    return f"{sign}{int(whole)}" + (f":{round(frac * 60):02d}" if frac else "")
