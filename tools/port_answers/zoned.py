"""Times shown in the zone the question was asked in, always with that zone's name: a bare
"17:41:20" read by an on-call in California is an hour that never happened to them."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

from netopsai.common.errors import NetopsError
from netopsai.common.zones import zone_of  # the one table of zone names and abbreviations


def zone(name: str | None) -> tzinfo:
    """A zone by IANA name ("America/Los_Angeles"), abbreviation ("PST") or UTC offset; a clear
    error for anything else."""
    tz = zone_of(name) if name else UTC
    if tz is None:
        raise NetopsError(f"zone {name!r} is not a time zone (e.g. America/Los_Angeles, PST, "
                          "Europe/Paris, UTC+2)")
    return tz


def stamp(utc_text: str, tz: tzinfo, with_date: bool = True) -> str:
    """'2026-11-20 17:41:20' (UTC, as backends write it) -> '2026-11-20 09:41:20 PST'."""
    at = datetime.fromisoformat(utc_text).replace(tzinfo=UTC).astimezone(tz)
    return f"{at:%Y-%m-%d %H:%M:%S %Z}" if with_date else f"{at:%H:%M:%S %Z}"


def transitions(events: str) -> list[tuple[str, str]]:
    """A row's events column, '2026-11-20 17:41:20 down; …', as (UTC time, new state) pairs."""
    out = []
    for item in (x.strip() for x in events.split(";")):
        when, _, state = item.rpartition(" ")
        if when and state and _is_time(when):  # a backend's note is not a transition
            out.append((when, state))
    return out


def _is_time(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def events_in(events: str, tz: tzinfo) -> str:
    """The events column in `tz`, each time with its zone."""
    return "; ".join(f"{stamp(t, tz)} {s}" for t, s in transitions(events))
