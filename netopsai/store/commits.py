"""A device's config commit seen on the ingest path (netopsai.store.apply): a change record,
unless a recorded change covers it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from sqlalchemy import Connection, Table, insert
from sqlmodel import or_, select

from netopsai.store import tables as m

_CHANGE: Table = m.Change.__table__  # type: ignore[attr-defined]
_TICKET = re.compile(r"\b(?:CHG|CR|CRQ|RFC|INC|TKT|CM)[-_ ]?\d{3,}\b", re.I)
TICKET_SLACK = timedelta(hours=1)  # a planned change's window, when its record gives no end


def record_change(conn: Connection, message: str, author: str | None, device: str, site: str,
                  at: datetime) -> None:
    """A config commit: a change record, unless a recorded change on the device covers its
    time; without a ticket of its own it is kept as an unrecorded change."""
    covered = conn.execute(
        select(_CHANGE.c.id).where(_CHANGE.c.device == device, _CHANGE.c.start <= at + TICKET_SLACK,
                                   or_(_CHANGE.c.end.is_(None) & (_CHANGE.c.start >= at - TICKET_SLACK),
                                       _CHANGE.c.end >= at))).first()
    if covered is not None:
        return
    ticket = _TICKET.search(message)
    conn.execute(insert(_CHANGE).values(
        ticket=ticket.group(0).upper() if ticket else "UNRECORDED", device=device, site=site,
        start=at, end=at, kind="config", summary=message[:500], author=author or "",
        status="completed" if ticket else "unrecorded"))
