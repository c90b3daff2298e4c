"""Parts of a day in the on-call's words, as hours in the question's zone.

"last night" / "overnight" is 18:00 yesterday to 06:00 today; "this morning" 06:00-12:00,
"this afternoon" 12:00-18:00, "this evening" / "tonight" 18:00-24:00; "yesterday morning" and
the like are the same hours a day earlier. A part still under way ends at the clock; one not
begun yet gives no window. The note says which hours were read, each with its zone named (the
question's: a night may start in PDT and end in PST).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from netopsai.common.localtime import is_utc

DAY_PART = re.compile(r"\b(?:(?P<which>this|yesterday)\s+(?P<part>morning|afternoon|evening)|"
                      r"(?P<night>last\s+night|overnight)|(?P<tonight>tonight))\b", re.I)
_HOURS = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (-6, 6)}


def day_part(m: re.Match[str], local: datetime) -> tuple[tuple[datetime, datetime] | None, str]:
    """The hours a DAY_PART match names, relative to `local` (the clock in the question's zone),
    and a note saying how it was read."""
    part = (m["part"] or ("night" if m["night"] else "evening")).lower()
    back = 1 if (m["which"] or "").lower() == "yesterday" else 0
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=back)
    first, last = _HOURS[part]
    start, end = midnight + timedelta(hours=first), midnight + timedelta(hours=last)
    said = m.group(0).lower()
    if start >= local:
        return None, (f"{said!r} ({start:%H:%M}-{_hour(last)} {zone_name(start)}) has not begun "
                      f"yet (now {hm(local)}), so no window was taken from it")
    if end > local:
        return (start, local), f"{said!r} read as {_when(start, local)} to now ({hm(local)})"
    return (start, end), f"{said!r} read as {_when(start, local)} to {_when(end, local)}"


def _when(t: datetime, local: datetime) -> str:
    days = (local.date() - t.date()).days
    return f"{hm(t)} " + {0: "today", 1: "yesterday"}.get(days, f"{t:%Y-%m-%d}")


def zone_name(t: datetime) -> str:
    """The name of the zone `t` is in at that moment ('PST', 'PDT', 'UTC'), as the answer's
    other times name it (common/localtime)."""
    tz = t.tzinfo
    return "UTC" if tz is None or is_utc(tz) else (t.tzname() or "UTC")


def hm(t: datetime) -> str:
    """A clock time in a note, its zone named: '09:41 PST'."""
    return f"{t:%H:%M} {zone_name(t)}"


def _hour(h: int) -> str:
    return "24:00" if h == 24 else f"{h % 24:02d}:00"
