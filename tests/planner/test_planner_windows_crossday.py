"""Ranges whose two ends each name their day (netopsai/planner/crossday.py): each end is placed
on its own day. Before, the clock-time range read both times on the first date: "from Nov 1
10:00 to Nov 2 12:00" was Nov 1 10:00-12:00, and "from 23:00 yesterday to 01:00 today" was the
whole of yesterday. Windows worked out by hand.

Clock: Tuesday 2025-11-04 20:00 UTC, 12:00 in Los Angeles (PST, UTC-8: daylight time ended Nov 2).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from netopsai.planner.windows import parse_when

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
LA = "America/Los_Angeles"


def w(start: str, end: str) -> dict[str, str]:
    return {"start": start, "end": end}


@pytest.mark.parametrize("question, window", [
    ("errors on leaf1 from Nov 1 10:00 to Nov 2 12:00", w("2025-11-01T10:00:00Z", "2025-11-02T12:00:00Z")),
    ("from 23:00 yesterday to 01:00 today", w("2025-11-03T23:00:00Z", "2025-11-04T01:00:00Z")),
    ("from yesterday 23:00 to today 01:00", w("2025-11-03T23:00:00Z", "2025-11-04T01:00:00Z")),
    ("Nov 1 22:00 - Nov 2 02:00", w("2025-11-01T22:00:00Z", "2025-11-02T02:00:00Z")),
    ("between Nov 1 10:00 and Nov 2 12:00", w("2025-11-01T10:00:00Z", "2025-11-02T12:00:00Z")),
    ("flaps from 10:00 on Nov 1 to 12:00 on Nov 2", w("2025-11-01T10:00:00Z", "2025-11-02T12:00:00Z")),
    ("from 2025-11-01 10:00 to 2025-11-03 09:30", w("2025-11-01T10:00:00Z", "2025-11-03T09:30:00Z")),
    ("from Nov 1 10pm to Nov 2 2am", w("2025-11-01T22:00:00Z", "2025-11-02T02:00:00Z")),
])
def test_each_end_falls_on_its_own_day(question: str, window: dict[str, str]) -> None:
    got = parse_when(question, CLOCK)
    assert got.window == window
    assert not any("several time windows" in n for n in got.notes)


def test_the_days_are_the_questions_zones() -> None:
    # 22:00 PST on Nov 3 is 06:00 UTC on Nov 4
    got = parse_when("drops from Nov 3 22:00 to Nov 4 02:00", CLOCK, zone=LA)
    assert got.window == w("2025-11-04T06:00:00Z", "2025-11-04T10:00:00Z")


def test_ends_given_the_other_way_round_are_read_in_order_and_said() -> None:
    got = parse_when("from Nov 2 12:00 to Nov 1 10:00", CLOCK)
    assert got.window == w("2025-11-01T10:00:00Z", "2025-11-02T12:00:00Z")
    assert [n for n in got.notes if "before the start" in n] == [
        "the end 2025-11-01 10:00 UTC is before the start 2025-11-02 12:00 UTC; read the other way round"]


def test_the_same_moment_twice_is_no_window() -> None:
    got = parse_when("from Nov 1 10:00 to Nov 1 10:00", CLOCK)
    assert got.window is None
    assert got.notes == ["from 2025-11-01 10:00 UTC to the same time is an empty window, so it was not used"]


def test_an_end_on_a_date_that_is_none_gives_no_window() -> None:
    got = parse_when("from Feb 30 10:00 to Mar 2 12:00", CLOCK)
    assert got.window is None and any("'Feb 30' is not a date" in n for n in got.notes)


@pytest.mark.parametrize("question, window", [
    # one day for both ends: the times' own reading, unchanged
    ("Nov 1 10:00 to 12:00", w("2025-11-01T10:00:00Z", "2025-11-01T12:00:00Z")),
    ("from 22:00 to 02:00 yesterday", w("2025-11-03T22:00:00Z", "2025-11-04T02:00:00Z")),
    ("from Nov 1 to Nov 2", w("2025-11-01T00:00:00Z", "2025-11-03T00:00:00Z")),
])
def test_ranges_with_one_day_read_as_before(question: str, window: dict[str, str]) -> None:
    assert parse_when(question, CLOCK).window == window


def test_the_whole_range_is_masked() -> None:
    text = "leaf1 down from Nov 1 22:00 to Nov 2 02:00"
    got = parse_when(text, CLOCK)
    masked = [i for s, e in got.spans for i in range(s, e)]
    assert set(range(text.index("from"), len(text))) <= set(masked)
    assert not set(range(0, len("leaf1 down"))) & set(masked)
