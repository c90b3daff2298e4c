"""Calendar dates read the way the planner reads them in a question ("Nov 24", "2025-11-04",
"24/11/2025", "last Monday"), for a front end's own time boxes: the web app's time picker
takes a typed "Nov 24" with this reader, so a box and a question never read a date apart.
A door (issue 27 item 2: front ends reach the planner only through the copilot room), not a
second reader: it returns the planner's own hits."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netopsai.planner.dates import DateHit


def find_dates(text: str, local: datetime) -> list[DateHit]:
    """Every date-like expression in `text`, read relative to `local` (the clock in the asker's
    zone, naive): each hit's text, span and day (None for a date that is none, Feb 30)."""
    from netopsai.planner.dates import find_dates as read

    return read(text, local)
