"""A window as the answer's first line states it: in the zone the question used, with UTC beside.

"Window: 2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)"; a window over midnight shows both
dates; a zone named by its IANA name ("America/Los_Angeles", the configured default) is said by
the abbreviation its clocks showed (PST, PDT), as every other time in the answer says it
(common/localtime), each bound's own when daylight saving starts or ends inside the window; a
duration ("2h") is shown with the absolute times it meant at the clock. Rendering never
raises: a value it cannot read is shown as given.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from netopsai.common.errors import NetopsError
from netopsai.common.timewin import as_utc, parse_duration, parse_time
from netopsai.planner.zones import zone_of

WindowValue = str | dict[str, str]


def window_line(window: WindowValue | None, zone: str = "UTC", clock: datetime | None = None) -> str:
    """The answer's first line for `window` (what the tools were called with), shown in `zone`
    (When.zone: the zone the question named, else the configured default). `clock` turns a
    duration into the times it covered."""
    tz = zone_of(zone)
    name = zone if tz is not None else "UTC"
    tz = tz or UTC
    if window is None:
        return "Window: none given (each tool's default)"
    if isinstance(window, str):
        return _duration_line(window, name, tz, clock)
    try:
        now = as_utc(clock) if clock else datetime.now(UTC)
        start, end = parse_time(window["start"], now), parse_time(window.get("end") or "-0m", now)
    except (NetopsError, KeyError, TypeError, AttributeError):
        return f"Window: {window}"
    return f"Window: {span_text(start, end, name, tz)}"


def _duration_line(window: str, name: str, tz: tzinfo, clock: datetime | None) -> str:
    try:
        length = parse_duration(window)
    except NetopsError:
        return f"Window: {window}"
    if clock is None:
        return f"Window: last {window} (to now)"
    end = as_utc(clock)
    return f"Window: last {window}, {span_text(end - length, end, name, tz)}"


def span_text(start: datetime, end: datetime, name: str, tz: tzinfo) -> str:
    """'2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)': local first; UTC's date only where it
    differs from the local one. Across a change of daylight saving each bound names its own:
    '2025-11-01 18:00 PDT – 2025-11-02 06:00 PST (…)'."""
    a, b = start.astimezone(tz), end.astimezone(tz)
    first, last = label(a, name), label(b, name)
    if first == last:
        local = f"{_range(a, b)} {first}"
    else:
        local = f"{a:%Y-%m-%d} {_hm(a)} {first} – {'' if b.date() == a.date() else f'{b:%Y-%m-%d} '}"
        local += f"{_hm(b)} {last}"
    if not (a.utcoffset() or b.utcoffset()):
        return local  # UTC (or a zone at UTC+0 then): no second copy of the same times
    return f"{local} ({_range(start.astimezone(UTC), end.astimezone(UTC), a.date())} UTC)"


def label(t: datetime, name: str) -> str:
    """The zone's name at `t` (which is in that zone): an IANA zone's abbreviation then ('PST',
    'PDT', 'CET'); a name as given otherwise (PDT, IST, UTC+2), and the IANA name where the
    zone has no letters for itself (some write '-03')."""
    said = t.tzname() or ""
    return said if isinstance(t.tzinfo, ZoneInfo) and said.isalpha() else name


def _range(a: datetime, b: datetime, known: date | None = None) -> str:
    """'2017-08-04 10:15–10:25', '2017-08-04 00:00–24:00', or both dates; `known` is a date
    already written (the local one), which the UTC part does not repeat."""
    day = "" if a.date() == known else f"{a:%Y-%m-%d} "
    if b.date() == a.date():
        return f"{day}{_hm(a)}–{_hm(b)}"
    if b == _midnight_after(a):
        return f"{day}{_hm(a)}–24:00"
    return f"{day}{_hm(a)} – {b:%Y-%m-%d} {_hm(b)}"


def _midnight_after(t: datetime) -> datetime:
    return (t + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


def _hm(t: datetime) -> str:
    return f"{t:%H:%M:%S}" if t.second else f"{t:%H:%M}"
