"""Times the ingest's batches stored with an offset (rawevent, interfaceevent, alarm) in the ORM's form

Before cb91ec5 the batched insert (store/bulk.py) did not see sqlmodel's UTCDateTime as a time,
so on SQLite the driver's own adapter wrote each time as `datetime.isoformat(" ")`:
`2026-11-27 10:00:00+00:00`, or a device's local wall time with its offset (`12:00:00+02:00`).
The ORM writes the UTC wall time, `2026-11-27 10:00:00.000000`, and SQLite compares the text:
`+` sorts before `.`, so a window starting at an event's exact second missed it, and an offset
other than +00:00 put it hours away from its instant. Each such value is rewritten here as the
same instant in the ORM's form; no row is added or dropped and no other value changes.

PostgreSQL: no-op. These columns are `timestamp with time zone` there (UTCDateTime asks for
DateTime(timezone=True), 0001 and create_all made them so) and the batched COPY gave the server
aware times, which it stored as their instants; there is no text to sort wrong.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from alembic import op
from sqlalchemy import inspect, text

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# the tables the batched insert wrote (store/apply.py: rawevent, interfaceevent; store/alarmbook.py:
# alarm) and their time columns
TABLES: dict[str, tuple[str, ...]] = {"rawevent": ("received_at", "at", "device_time"),
                                      "interfaceevent": ("at",),
                                      "alarm": ("raised_at", "cleared_at")}
_D2 = "[0-9][0-9]"
_SECOND = f"{_D2}{_D2}-{_D2}-{_D2} {_D2}:{_D2}:{_D2}"  # YYYY-MM-DD HH:MM:SS
_OFFSET = f"[+-]{_D2}:{_D2}"
_ORM = f"{_SECOND}.{_D2}{_D2}{_D2}"  # what the ORM writes: the second and 6 digits of it
# the adapter's two forms: whole seconds, or with microseconds (isoformat omits zero ones)
_OLD = (f"{_SECOND}{_OFFSET}", f"{_SECOND}.{_D2}{_D2}{_D2}{_OFFSET}")


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":  # PostgreSQL: see the module's docstring
        rewrite(bind)


def downgrade() -> None:
    """Nothing to undo: 0007's code reads and writes the ORM's form (the old one was the bug),
    and the offsets a device's clock was given in were never kept by the store anyway."""


def rewrite(conn: Any) -> int:
    """Rewrite every time of TABLES not in the ORM's form that names an instant; how many
    values changed (0 on a second run). A value that names no time is left as it is."""
    have = set(inspect(conn).get_table_names())
    changed = 0
    for table, columns in TABLES.items():
        if table not in have:
            continue
        for c in columns:
            changed += _in_sql(conn, table, c) + _in_python(conn, table, c)
    return changed


def _in_sql(conn: Any, table: str, c: str) -> int:
    """The adapter's forms, one UPDATE: SQLite's datetime() moves the whole second by the
    offset into UTC (the fraction is kept aside: datetime() would drop it, and its
    milliseconds could round it), then the fraction goes back on, `.000000` when there was none.
    An offset datetime() does not take (beyond ±14:00) is left to the Python pass."""
    utc_second = f'datetime(substr("{c}", 1, 19) || substr("{c}", -6))'
    return int(conn.execute(text(
        f'UPDATE "{table}" SET "{c}" = {utc_second} || '
        f'CASE WHEN substr("{c}", 20, 1) = \'.\' THEN substr("{c}", 20, 7) ELSE \'.000000\' END '
        f'WHERE ("{c}" GLOB :whole OR "{c}" GLOB :micro) AND {utc_second} IS NOT NULL'),
        {"whole": _OLD[0], "micro": _OLD[1]}).rowcount)


def _in_python(conn: Any, table: str, c: str) -> int:
    """Whatever text is left not in the ORM's form (an offset with seconds, a naive time
    without microseconds): parsed by Python, rewritten when it names a time."""
    rows = conn.execute(text(f'SELECT rowid, "{c}" FROM "{table}" '
                             f'WHERE typeof("{c}") = \'text\' AND NOT "{c}" GLOB :orm'),
                        {"orm": _ORM}).all()
    fixed = [{"r": rowid, "v": v} for rowid, old in rows if (v := orm_form(old)) is not None]
    if fixed:
        conn.execute(text(f'UPDATE "{table}" SET "{c}" = :v WHERE rowid = :r'), fixed)
    return len(fixed)


def orm_form(value: str) -> str | None:
    """`value` as the ORM stores its instant (UTC wall time, `YYYY-MM-DD HH:MM:SS.ffffff`);
    None when it names no time or is in that form already."""
    try:
        t = datetime.fromisoformat(value)
        if t.utcoffset() is not None:
            t = t.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return None
    new = t.isoformat(" ", "microseconds")
    return new if new != value else None
