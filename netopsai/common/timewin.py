"""Time windows ("1h" or {start, end}) and relative times ("-25m") used by tools and scenarios."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from pydantic import BaseModel

from netopsai.common.errors import NetopsError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d|day|w)s?\s*$", re.I)
_UNIT_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400,
                 "day": 86400, "w": 604800}


class Window(BaseModel):
    start: datetime
    end: datetime

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    def as_json(self) -> dict[str, str]:
        return {"start": iso(self.start), "end": iso(self.end)}


def iso(t: datetime) -> str:
    t = as_utc(t)
    return f"{t.year:04d}-{t:%m-%dT%H:%M:%SZ}"  # %Y is not zero-padded for years < 1000


def iso_ms(t: datetime) -> str:
    """iso(), with milliseconds when there are any: events of a storm are apart by less than a second."""
    t = as_utc(t)
    return iso(t) if not t.microsecond else iso(t)[:-1] + f".{t.microsecond // 1000:03d}Z"


def as_utc(t: datetime) -> datetime:
    """Naive datetimes are taken as UTC."""
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def parse_duration(text: str) -> timedelta:
    m = _DURATION.match(text)
    if not m:
        raise NetopsError(f"bad duration {text!r}; use a number and a unit, e.g. 30m, 2h, 7d")
    try:
        return timedelta(seconds=float(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()])
    except OverflowError:
        raise NetopsError(f"duration {text!r} is too long") from None


def _shift(now: datetime, text: str, sign: int) -> datetime:
    """now - duration (sign -1) or now + duration (sign +1), as a one-line error when out of range."""
    delta = parse_duration(text)
    try:
        return now + delta if sign > 0 else now - delta
    except OverflowError:
        raise NetopsError(f"duration {text!r} is too long") from None


def parse_time(text: str, now: datetime, zone: str = "UTC") -> datetime:
    """An ISO time (without a zone: in `zone`, the network's default), or a time relative to
    `now` such as "-25m"."""
    s = str(text).strip()
    if s.startswith(("-", "+")):
        return _shift(now, s[1:], 1 if s[0] == "+" else -1)
    try:
        t = datetime.fromisoformat(s.replace("Z", "+00:00"))
        return as_utc(t if t.tzinfo is not None else t.replace(tzinfo=_tz(zone)))
    except ValueError:
        raise NetopsError(f"bad time {s!r}; use ISO 8601 (2025-11-04T20:02:26Z) or -25m") from None


def _tz(zone: str) -> tzinfo:
    from netopsai.common.zones import zone_of  # the one table of zone names

    return zone_of(zone) or UTC


def parse_window(value: Any, now: datetime, default: str = "1h", zone: str = "UTC") -> Window:
    """'1h' (ending now), 'START..END' or {'start', 'end'} (ISO; without a zone read in `zone`;
    no end: now), or None (the default)."""
    now = as_utc(now)
    if value is None or value == "":
        value = default
    if isinstance(value, str) and ".." in value:
        start_text, _, end_text = value.partition("..")
        value = {"start": start_text.strip(), "end": end_text.strip()}
    if isinstance(value, str):
        w = Window(start=_shift(now, value, -1), end=now)
    elif isinstance(value, dict):
        extra = set(value) - {"start", "end"}
        if extra:
            raise NetopsError(f"bad window key {sorted(extra)[0]!r}; a window has start and end")
        start = parse_time(value["start"], now, zone) if value.get("start") else None
        end = parse_time(value["end"], now, zone) if value.get("end") else now
        if start is None:
            raise NetopsError("window needs a start (ISO time), e.g. {\"start\": \"2025-11-04T08:00:00Z\"}")
        w = Window(start=start, end=end)
    else:
        raise NetopsError(f"bad window {value!r}; use \"1h\", \"START..END\" or "
                          "{\"start\": ISO, \"end\": ISO}")
    if w.end < w.start:
        raise NetopsError(f"window end {iso(w.end)} precedes its start {iso(w.start)}")
    if w.end == w.start:
        raise NetopsError(f"window is empty: start and end are both {iso(w.start)}")
    return w
