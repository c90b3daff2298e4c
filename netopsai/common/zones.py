"""Time-zone names, one table for every room (issue 27 item 6: below the planner, the config and
the syslog reader, which all read zone names): the abbreviations devices print and people
write, with the ambiguous ones decided (CST is US Central, IST India, BST British Summer Time),
`zone_of` (any name a person may give: abbreviation, generic PT/MT/CT/ET, IANA, UTC±H[:MM]) and
`Zones` (a device's clock zone by name or address glob, config `ingest.timezone(s)`).

The planner finds zones in a question with these (planner/zones.py), the syslog reader reads
stamps' zone names with them (backends/syslog/clock.py), and times in prose and tool windows
are read in the network's zone through them (common/localtime.py, common/timewin.py); the
config refuses an unknown zone through `Zones.from_names` before anything is read."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from netopsai.common.errors import NetopsError

# Zone names devices print (`clock timezone PDT -7`, `show clock`): hours east of UTC. A name
# that is also the configured zone's own abbreviation at that moment takes the configured zone
# (IST and CST mean different places); otherwise this table.
ABBREVIATIONS = {
    "UTC": 0, "GMT": 0, "UT": 0, "Z": 0, "WET": 0, "WEST": 1, "BST": 1, "CET": 1, "CEST": 2,
    "MET": 1, "MEST": 2, "EET": 2, "EEST": 3, "MSK": 3, "IST": 5.5, "SGT": 8, "HKT": 8,
    "AWST": 8, "CST": -6, "CDT": -5, "JST": 9, "KST": 9, "AEST": 10, "AEDT": 11, "NZST": 12,
    "NZDT": 13, "HST": -10, "AKST": -9, "AKDT": -8, "PST": -8, "PDT": -7, "MST": -7,
    "MDT": -6, "EST": -5, "EDT": -4, "AST": -4, "ADT": -3, "NST": -3.5, "NDT": -2.5,
}
# names that follow daylight saving, unlike the fixed abbreviations above
GENERIC = {"PT": "America/Los_Angeles", "MT": "America/Denver", "CT": "America/Chicago",
           "ET": "America/New_York"}
OFFSET = re.compile(r"(?<![\w/-])(?:UTC|GMT)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?(?![\w:])", re.I)


def zone_of(name: str) -> tzinfo | None:
    """A zone name as a tzinfo: an abbreviation, a generic name, an IANA name or UTC±H[:MM]."""
    key = name.strip()
    if key.upper() in ("UTC", "Z", "GMT", "UT"):
        return UTC
    if key.upper() in ABBREVIATIONS:
        return timezone(timedelta(hours=ABBREVIATIONS[key.upper()]), key.upper())
    if key.upper() in GENERIC:
        return ZoneInfo(GENERIC[key.upper()])
    m = OFFSET.fullmatch(key)
    if m:
        return offset(m)
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def offset(m: re.Match[str]) -> tzinfo | None:
    """An OFFSET match as a fixed zone; None past UTC±14 or a minute past 59."""
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes > 59:
        return None
    sign = -1 if m.group(1) == "-" else 1
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


@dataclass
class Zones:
    """The zone of a device's clock: the first glob that matches its name or address, else the
    default. Globs match case-insensitively."""

    default: tzinfo = UTC
    rules: list[tuple[str, tzinfo]] = field(default_factory=list)

    @classmethod
    def from_names(cls, default: str = "UTC", by_device: Mapping[str, str] | None = None,
                   what: str = "the default timezone") -> Zones:
        return cls(_zone(default, what),
                   [(glob.lower(), _zone(name, f"the timezone for {glob!r}"))
                    for glob, name in (by_device or {}).items()])

    def of(self, *names: str | None) -> tzinfo:
        for glob, zone in self.rules:
            if any(n and fnmatch.fnmatchcase(n.lower(), glob) for n in names):
                return zone
        return self.default


def _zone(name: str, what: str) -> tzinfo:
    if name.upper() in ("UTC", "Z", "GMT"):
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise NetopsError(f"{what} {name!r} is not a time zone; use an IANA name such as "
                          "America/Los_Angeles or Europe/Berlin") from None
