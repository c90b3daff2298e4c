"""The ingest writer's batched inserts (netopsai.store.bulk) write each time as its UTC instant
— text to the microsecond for SQLite, naive UTC for PostgreSQL's COPY — however often the same
instant comes back (its UTC answers are kept) and in whichever zone it is written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from netopsai.store.bulk import _plain, _sqlite_time

NEW_YORK = ZoneInfo("America/New_York")


def _times() -> list[datetime]:
    """UTC instants, each again: in UTC, in a fixed offset, in a zone on its ambiguous hour
    (both folds: two instants an hour apart that compare equal in their zone), and naive."""
    out = []
    for minute in range(0, 120, 7):
        utc = datetime(2026, 11, 1, 5, 0, 1, 250, tzinfo=UTC) + timedelta(minutes=minute)
        out += [utc, utc.astimezone(timezone(timedelta(hours=2))), utc.astimezone(NEW_YORK),
                utc.replace(tzinfo=None), utc]
    out += [datetime(2026, 11, 1, 1, 30, fold=fold, tzinfo=NEW_YORK) for fold in (0, 1, 0, 1)]
    return out * 2  # the second pass finds every UTC answer kept


def test_sqlite_text_is_the_utc_wall_time_to_the_microsecond() -> None:
    for t in _times():
        utc = t.astimezone(UTC) if t.tzinfo is not None else t
        assert _sqlite_time(t) == utc.strftime("%Y-%m-%d %H:%M:%S.%f"), t


def test_postgresql_times_are_naive_utc() -> None:
    for t in _times():
        want = t.astimezone(UTC).replace(tzinfo=None) if t.tzinfo is not None else t
        got = _plain(t)
        assert got == want and got.tzinfo is None, t


def test_the_ambiguous_hour_keeps_its_two_instants() -> None:
    first, second = (datetime(2026, 11, 1, 1, 30, fold=f, tzinfo=NEW_YORK) for f in (0, 1))
    assert _sqlite_time(first) == "2026-11-01 05:30:00.000000"
    assert _sqlite_time(second) == "2026-11-01 06:30:00.000000"
    assert _plain(second) - _plain(first) == timedelta(hours=1)
