"""Times in prose (issue 25 item 5): what a person reads in an answer, a digest or a chat line is
in the network's zone, with that zone named, even when it is UTC. A bare "17:41" read by an
on-call in California is an hour that never happened to them.

Rows, CSV and JSON stay ISO UTC (they are parsed); only text meant for reading goes through
here. In UTC the text is what it always was ("2025-11-04 19:00–20:00 UTC"); elsewhere the
zone's own name follows the wall time ("2025-11-04 11:00–12:00 PST"), and a window carries its
UTC times beside it, as the answer's first line does (planner/window_text.py), so that it can
be matched with the evidence rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo
from typing import Any

from netopsai.common.timewin import as_utc, iso_ms


def tz_of(zone: str | None) -> tzinfo:
    """The network's zone (an IANA name, an abbreviation, UTC±H); UTC when unset or unknown (the
    config checks refuse an unknown one before any text is written)."""
    if not zone:
        return UTC
    from netopsai.common.zones import zone_of  # the one table of zone names

    return zone_of(zone) or UTC


def moment(value: Any) -> datetime | None:
    """An ISO time ('…Z', '+00:00', or naive: UTC as every row writes it), or telemetry's
    'YYYY-MM-DD HH:MM:SS'; None for anything else."""
    if isinstance(value, datetime):
        return as_utc(value)
    try:
        return as_utc(datetime.fromisoformat(str(value).strip().replace("Z", "+00:00")))
    except ValueError:
        return None


UTC_KEYS = ("UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Zulu", "Zulu", "Etc/GMT", "GMT")


def is_utc(tz: tzinfo) -> bool:
    return tz is UTC or getattr(tz, "key", None) in UTC_KEYS


def _name(t: datetime, tz: tzinfo) -> str:
    return "UTC" if is_utc(tz) else (t.astimezone(tz).tzname() or "UTC")


def _clock(t: datetime, seconds: bool) -> str:
    return f"{t:%H:%M:%S}" if seconds else f"{t:%H:%M}"


def at(value: Any, zone: str | None, *, seconds: bool = False, day: bool = True,
       beside: bool = False) -> str:
    """'2025-11-04 11:20 PST' ('2025-11-04 19:20 UTC' in UTC); `day` False: '11:20 PST';
    `beside`: the UTC time after it, '… PST (19:20 UTC)'. Not a time: as written."""
    t = moment(value)
    if t is None:
        return str(value or "")
    tz = tz_of(zone)
    here = t.astimezone(tz)
    text = f"{here:%Y-%m-%d} " if day else ""
    text += f"{_clock(here, seconds)} {_name(t, tz)}"
    if beside and here.utcoffset():
        text += f" ({_clock(t, seconds)} UTC)"
    return text


def span(start: Any, end: Any, zone: str | None, *, beside: bool = True,
         seconds: bool | None = None) -> str:
    """'2025-11-04 11:00–12:00 PST (19:00–20:00 UTC)'; over midnight both dates ('2025-11-04
    23:20 – 2025-11-05 00:20 CET (…)'); seconds when a bound has them (`seconds` None) or as
    told. `beside` False: the local part only. A bound not a time: 'start .. end' as written."""
    a, b = moment(start), moment(end)
    if a is None or b is None:
        return f"{start} .. {end}"
    tz = tz_of(zone)
    la, lb = a.astimezone(tz), b.astimezone(tz)
    secs = bool(a.second or b.second) if seconds is None else seconds
    text = f"{_range(la, lb, secs)} {_name(a, tz)}"
    if beside and (la.utcoffset() or lb.utcoffset()):
        text += f" ({_range(a, b, secs, la.date())} UTC)"
    return text


def _range(a: datetime, b: datetime, secs: bool, known: date | None = None) -> str:
    """'2025-11-04 11:00–12:00', or both dates; `known`: a date already written (the local
    one), which the UTC part does not repeat."""
    day = "" if a.date() == known else f"{a:%Y-%m-%d} "
    if a.date() == b.date():
        return f"{day}{_clock(a, secs)}–{_clock(b, secs)}"
    return f"{day}{_clock(a, secs)} – {b:%Y-%m-%d} {_clock(b, secs)}"


def stamp(value: Any, zone: str | None) -> str:
    """A start as a diagnosis' Since says it (as diagnosis/headline.shown): '2026-11-27 09:41:20
    PST' in the network's zone; ISO marked Z in UTC ('2026-11-27T17:41:20Z', as the rows are).
    Not a time: as written."""
    t = moment(value)
    if t is None:
        return str(value or "")
    if is_utc(tz_of(zone)):
        return iso_ms(t)  # as the rows write it (milliseconds kept when there are any)
    return at(t, zone, seconds=True)


def events(text: str, zone: str | None) -> str:
    """A port's state changes as telemetry writes them ('2026-11-27 17:41:20 down; …', UTC) with
    each time in the network's zone, named ('2026-11-27 09:41:20 PST down; …'); a note that is
    not a time is kept as written."""
    out = []
    for item in (x.strip() for x in str(text or "").split(";") if x.strip()):
        when, _, state = item.rpartition(" ")
        t = moment(when) if when else None
        out.append(f"{at(t, zone, seconds=True)} {state}" if t is not None and state else item)
    return "; ".join(out)


def when(start: Any, end: Any, zone: str | None) -> str:
    """A tool call's window as a person reads it: `span` (UTC beside), or one time for a moment
    (start = end: a trace's now), never '10:00–10:00'. Bounds not times: 'start .. end'."""
    a = moment(start)
    if a is not None and a == moment(end):
        return at(a, zone, beside=True, seconds=bool(a.second))
    return span(start, end, zone)
