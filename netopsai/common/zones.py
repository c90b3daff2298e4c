"""Time-zone names, one table for every room (issue 27 item 6: below the planner, the config and
the syslog reader, which all read zone names): the abbreviations devices print and people
write, with the ambiguous ones decided (CST is US Central, IST India, BST British Summer Time),
and `zone_of` (any name a person may give: abbreviation, generic PT/MT/CT/ET, IANA,
UTC±H[:MM]).

The planner finds zones in a question with these (planner/zones.py), the syslog reader reads
stamps' zone names with them (backends/syslog/clock.py), and times in prose and tool windows
are read in the network's zone through them (common/localtime.py, common/timewin.py)."""

from __future__ import annotations

import re
from datetime import UTC, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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
