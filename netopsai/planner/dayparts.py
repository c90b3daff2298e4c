"""Parts of a day in the on-call's words, as hours in the question's zone.

"last night" / "overnight" is 18:00 yesterday to 06:00 today; "this morning" 06:00-12:00,
"this afternoon" 12:00-18:00, "this evening" / "tonight" 18:00-24:00; "yesterday morning" and
the like are the same hours a day earlier. A part still under way ends at the clock; one not
begun yet gives no window. The note says which hours were read.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

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
        return None, (f"{said!r} ({start:%H:%M}-{_hour(last)}) has not begun yet (now "
                      f"{local:%H:%M}), so no window was taken from it")
    if end > local:
        return (start, local), f"{said!r} read as {_when(start, local)} to now ({local:%H:%M})"
    return (start, end), f"{said!r} read as {_when(start, local)} to {_when(end, local)}"


def _when(t: datetime, local: datetime) -> str:
    days = (local.date() - t.date()).days
    return f"{t:%H:%M} " + {0: "today", 1: "yesterday"}.get(days, f"{t:%Y-%m-%d}")


def _hour(h: int) -> str:
    return "24:00" if h == 24 else f"{h % 24:02d}:00"
