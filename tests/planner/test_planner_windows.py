"""Time windows in the on-call's words (netopsai/planner/windows.py): dates, parts of the day,
time zones, and bad input, each against start/end values worked out by hand.

Clocks: C1 is Saturday 2017-09-02 12:00 UTC (05:00 PDT); C2 is Wednesday 2026-11-25 03:00 UTC,
which is Tuesday 2026-11-24 19:00 in Los Angeles (PST, UTC-8: daylight time ended Nov 1).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from netopsai.common.timewin import parse_window
from netopsai.planner.windows import parse_when

C1 = datetime(2017, 9, 2, 12, 0, tzinfo=UTC)
C2 = datetime(2026, 11, 25, 3, 0, tzinfo=UTC)
LA = "America/Los_Angeles"


def w(start: str, end: str) -> dict[str, str]:
    return {"start": start, "end": end}


AUG4 = w("2017-08-04T00:00:00Z", "2017-08-05T00:00:00Z")


# --- the phrases, and dates with times -------------------------------------------------

@pytest.mark.parametrize("question, window", [
    ("which BGP sessions went down on leaf1 between 10:15 and 10:25 on 2017-08-04",
     w("2017-08-04T10:15:00Z", "2017-08-04T10:25:00Z")),
    ("flaps on 2017-08-04 from 10:15 to 10:25", w("2017-08-04T10:15:00Z", "2017-08-04T10:25:00Z")),
    ("alarms yesterday 14:00–15:00", w("2017-09-01T14:00:00Z", "2017-09-01T15:00:00Z")),
    ("errors on Sep 1 around 10:20", w("2017-09-01T10:10:00Z", "2017-09-01T10:30:00Z")),
    ("what changed on 2017-08-04", AUG4),
    ("what happened last night", w("2017-09-01T18:00:00Z", "2017-09-02T06:00:00Z")),
    ("alarms this morning", w("2017-09-02T06:00:00Z", "2017-09-02T12:00:00Z")),
    # PDT is UTC-7; at C1 it is 05:00 on Sep 2 in PDT, so yesterday is Sep 1
    ("in PDT, alarms yesterday 14:00–15:00", w("2017-09-01T21:00:00Z", "2017-09-01T22:00:00Z")),
    ("between 10:15 and 10:25 PDT on 2017-08-04", w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z")),
    ("on 2017-08-04 from 10pm to 11pm", w("2017-08-04T22:00:00Z", "2017-08-04T23:00:00Z")),
    ("between 23:00 and 01:00 on 2017-08-04", w("2017-08-04T23:00:00Z", "2017-08-05T01:00:00Z")),
    ("since 08:00 on Sep 1", w("2017-09-01T08:00:00Z", "2017-09-02T12:00:00Z")),
    ("since Aug 30", w("2017-08-30T00:00:00Z", "2017-09-02T12:00:00Z")),
    ("from Aug 4 to Aug 6", w("2017-08-04T00:00:00Z", "2017-08-07T00:00:00Z")),
    ("between 2017-08-04 and 2017-08-06", w("2017-08-04T00:00:00Z", "2017-08-07T00:00:00Z")),
    # 22:00 PDT is 05:00 UTC the next day
    ("between Aug 4 22:00 and Aug 5 02:00 PDT", w("2017-08-05T05:00:00Z", "2017-08-05T09:00:00Z")),
    ("since 2017-08-04T10:15:00Z", w("2017-08-04T10:15:00Z", "2017-09-02T12:00:00Z")),
    ("since 2017-08-04T10:15:00+02:00", w("2017-08-04T08:15:00Z", "2017-09-02T12:00:00Z")),
    ("drops last friday", w("2017-09-01T00:00:00Z", "2017-09-02T00:00:00Z")),
    ("drops on Monday", w("2017-08-28T00:00:00Z", "2017-08-29T00:00:00Z")),
])
def test_dated_windows(question: str, window: dict[str, str]) -> None:
    assert parse_when(question, C1).window == window


@pytest.mark.parametrize("date", [
    "2017-08-04", "Aug 4 2017", "August 4th, 2017", "4 Aug", "4 August 2017", "Fri, Aug 4",
    "08/04/2017", "2017/08/04", "the 4th of August", "Aug. 4",
])
def test_a_date_alone_is_that_whole_day(date: str) -> None:
    when = parse_when(f"any alarms on leaf1 on {date}?", C1)
    assert when.window == AUG4


def test_a_point_on_a_date_is_at_plus_a_window_around_it() -> None:
    when = parse_when("trace it at 10:20 on Sep 1", C1)
    assert when.at == "2017-09-01T10:20:00Z"
    assert when.window == w("2017-09-01T10:10:00Z", "2017-09-01T10:30:00Z")
    when = parse_when("what broke 10:15 PDT on 2017-08-04", C1)
    assert when.at == "2017-08-04T17:15:00Z"
    assert when.window == w("2017-08-04T17:05:00Z", "2017-08-04T17:25:00Z")
    assert any("±10 min" in n for n in when.notes)


def test_around_says_how_wide() -> None:
    when = parse_when("on Sep 1 around 10:20", C1)
    assert when.notes == ["'around 10:20' read as ±10 min: 10:10–10:30 UTC"]


# --- parts of the day, in the question's zone ---------------------------------------------------

@pytest.mark.parametrize("question, window", [
    # 18:00 PST on Nov 23 is 02:00 UTC on Nov 24
    ("last night", w("2026-11-24T02:00:00Z", "2026-11-24T14:00:00Z")),
    ("overnight", w("2026-11-24T02:00:00Z", "2026-11-24T14:00:00Z")),
    ("this morning", w("2026-11-24T14:00:00Z", "2026-11-24T20:00:00Z")),
    ("this afternoon", w("2026-11-24T20:00:00Z", "2026-11-25T02:00:00Z")),
    ("tonight", w("2026-11-25T02:00:00Z", "2026-11-25T03:00:00Z")),  # 18:00 PST to now (19:00)
    ("yesterday afternoon", w("2026-11-23T20:00:00Z", "2026-11-24T02:00:00Z")),
    ("today", w("2026-11-24T08:00:00Z", "2026-11-25T03:00:00Z")),  # from midnight PST
    ("yesterday", w("2026-11-23T08:00:00Z", "2026-11-24T08:00:00Z")),
    ("between 10:15 and 10:25", w("2026-11-24T18:15:00Z", "2026-11-24T18:25:00Z")),
    ("since 08:00", w("2026-11-24T16:00:00Z", "2026-11-25T03:00:00Z")),
])
def test_day_parts_in_the_default_zone(question: str, window: dict[str, str]) -> None:
    when = parse_when(question, C2, zone=LA)
    assert (when.window, when.zone, when.zone_given) == (window, LA, False)


def test_last_night_before_six_ends_now_and_says_so() -> None:
    when = parse_when("anything last night?", C2)  # 03:00 UTC: the night is not over
    assert when.window == w("2026-11-24T18:00:00Z", "2026-11-25T03:00:00Z")
    assert when.notes == ["'last night' read as 18:00 UTC yesterday to now (03:00 UTC)"]
    when = parse_when("anything last night?", C1)
    assert when.notes == ["'last night' read as 18:00 UTC yesterday to 06:00 UTC today"]


def test_a_part_of_the_day_not_begun_gives_no_window() -> None:
    when = parse_when("alarms this morning", C2)  # 03:00 UTC
    assert when.window is None
    assert "has not begun" in when.notes[0]
    assert when.spans == [(7, 19)]


# --- zones --------------------------------------------------------------------------------------

@pytest.mark.parametrize("question, clock, window", [
    ("between 10:00 and 11:00 PDT on 2017-08-04", C1, w("2017-08-04T17:00:00Z", "2017-08-04T18:00:00Z")),
    ("on Dec 1 2025 between 10:00 and 11:00 PST", C2, w("2025-12-01T18:00:00Z", "2025-12-01T19:00:00Z")),
    ("between 10:00 and 11:00 Europe/Paris on 2017-08-04", C1,
     w("2017-08-04T08:00:00Z", "2017-08-04T09:00:00Z")),  # CEST, UTC+2
    ("between 10:00 and 11:00 Europe/Paris on 2016-12-01", C1,
     w("2016-12-01T09:00:00Z", "2016-12-01T10:00:00Z")),  # CET, UTC+1
    ("between 10:00 and 10:30 IST on 2017-08-04", C1, w("2017-08-04T04:30:00Z", "2017-08-04T05:00:00Z")),
    ("10:00-11:00 JST on 2017-08-04", C1, w("2017-08-04T01:00:00Z", "2017-08-04T02:00:00Z")),
    ("between 10:00 and 11:00 CET on 2016-12-01", C1, w("2016-12-01T09:00:00Z", "2016-12-01T10:00:00Z")),
    ("between 10:00 and 11:00 CEST on 2017-08-04", C1, w("2017-08-04T08:00:00Z", "2017-08-04T09:00:00Z")),
    ("between 10:00 and 11:00 UTC+2 on 2017-08-04", C1, w("2017-08-04T08:00:00Z", "2017-08-04T09:00:00Z")),
    ("between 10:00 and 11:00 ET on 2017-08-04", C1, w("2017-08-04T14:00:00Z", "2017-08-04T15:00:00Z")),
    ("between 10:00 and 11:00 ET on 2016-12-01", C1, w("2016-12-01T15:00:00Z", "2016-12-01T16:00:00Z")),
    ("alarms in pdt between 10:00 and 11:00 on 2017-08-04", C1,
     w("2017-08-04T17:00:00Z", "2017-08-04T18:00:00Z")),
    ("between 10:00 and 11:00 BST on 2017-08-04", C1, w("2017-08-04T09:00:00Z", "2017-08-04T10:00:00Z")),
    ("between 10:00 and 11:00 SGT on 2017-08-04", C1, w("2017-08-04T02:00:00Z", "2017-08-04T03:00:00Z")),
    ("between 10:00 and 11:00 AEST on 2017-08-04", C1, w("2017-08-04T00:00:00Z", "2017-08-04T01:00:00Z")),
])
def test_named_zones(question: str, clock: datetime, window: dict[str, str]) -> None:
    when = parse_when(question, clock)
    assert when.window == window
    assert when.zone_given


@pytest.mark.parametrize("date, window", [
    ("2017-08-04", w("2017-08-04T17:00:00Z", "2017-08-04T18:00:00Z")),  # PDT, UTC-7
    ("2016-12-01", w("2016-12-01T18:00:00Z", "2016-12-01T19:00:00Z")),  # PST, UTC-8
])
def test_the_default_zone_follows_daylight_saving(date: str, window: dict[str, str]) -> None:
    when = parse_when(f"between 10:00 and 11:00 on {date}", C1, zone=LA)
    assert (when.window, when.zone, when.zone_given) == (window, LA, False)


@pytest.mark.parametrize("said", ["UTC", "utc", "Z"])
def test_a_zone_in_the_question_beats_the_default(said: str) -> None:
    gap = "" if said == "Z" else " "
    when = parse_when(f"10:15-10:25{gap}{said} on 2017-08-04", C1, zone=LA)
    assert when.window == w("2017-08-04T10:15:00Z", "2017-08-04T10:25:00Z")
    assert (when.zone, when.zone_given) == ("UTC", True)


def test_a_daylight_name_out_of_season_is_taken_as_written_and_said() -> None:
    when = parse_when("between 10:00 and 11:00 PST on 2017-08-04", C1)
    assert when.window == w("2017-08-04T18:00:00Z", "2017-08-04T19:00:00Z")  # UTC-8 as written
    assert when.notes == ["PST is UTC-8 as written, but on 2017-08-04 America/Los_Angeles clocks "
                          "showed PDT (UTC-7); say PDT or America/Los_Angeles for the local clock"]
    when = parse_when("between 10:00 and 11:00 CST on 2017-08-04", C1)  # CST is US Central, UTC-6
    assert when.window == w("2017-08-04T16:00:00Z", "2017-08-04T17:00:00Z")
    assert "CDT" in when.notes[0]
    assert parse_when("between 10:00 and 11:00 PDT on 2017-08-04", C1).notes == []


def test_words_that_are_no_zone() -> None:
    for question in ("any DCI/BBONE link alerts in the last 3h", "is the WEST pod wet",
                     "errors on et-0/0/1 of dc1-ist-01", "alarms on ET49"):
        when = parse_when(question, C1)
        assert (when.zone, when.zone_given) == ("UTC", False), question


def test_the_first_of_several_zones_is_used_and_the_rest_noted() -> None:
    when = parse_when("between 10:00 and 11:00 PDT on 2017-08-04, not CET", C1)
    assert when.window == w("2017-08-04T17:00:00Z", "2017-08-04T18:00:00Z")
    assert when.zone == "PDT"
    assert when.notes == ["several time zones named (PDT, CET); times are read in PDT"]


def test_durations_do_not_depend_on_the_zone() -> None:
    assert parse_when("in the last 2h", C1, zone=LA).window == "2h"
    assert parse_when("in the last 2h PDT", C1).window == "2h"


# --- year, day and month ----------------------------------------------------------------------

@pytest.mark.parametrize("question, clock, window", [
    ("on Sep 3", C1, w("2016-09-03T00:00:00Z", "2016-09-04T00:00:00Z")),  # after C1: last year's
    ("on Aug 31", C1, w("2017-08-31T00:00:00Z", "2017-09-01T00:00:00Z")),
    ("on Dec 25", C2, w("2025-12-25T00:00:00Z", "2025-12-26T00:00:00Z")),
    ("on Nov 24", C2, w("2026-11-24T00:00:00Z", "2026-11-25T00:00:00Z")),
    ("on Feb 29", C1, w("2016-02-29T00:00:00Z", "2016-03-01T00:00:00Z")),  # 2017 has none
])
def test_a_date_without_a_year_is_the_latest_one_not_after_the_clock(
        question: str, clock: datetime, window: dict[str, str]) -> None:
    assert parse_when(question, clock).window == window


def test_last_years_date_is_said() -> None:
    assert parse_when("on Sep 3", C1).notes == [
        "'Sep 3' has no year and is later than today, so it is last year's: 2016-09-03"]
    assert parse_when("on Aug 31", C1).notes == []


def test_numeric_dates_say_which_order_was_read() -> None:
    when = parse_when("on 08/04/2017", C1)
    assert when.window == AUG4
    assert when.notes == ["08/04/2017 read as month/day (2017-08-04); write the date as 2017-08-04 "
                          "or with the month's name to be sure"]
    when = parse_when("on 13/08/2017", C1)  # 13 cannot be a month: no doubt, no note
    assert (when.window, when.notes) == (w("2017-08-13T00:00:00Z", "2017-08-14T00:00:00Z"), [])
    when = parse_when("on 04.08.2017", C1)
    assert when.window == w("2017-04-08T00:00:00Z", "2017-04-09T00:00:00Z")
    assert "month/day" in when.notes[0]


def test_numbers_alone_are_not_dates() -> None:
    for question in ("errors on Ethernet1/1/1", "port 1/1/1 on leaf 4", "the top 10 may flap",
                     "what is 10.1.3.0/24?", "packet loss between 10.1.3.20 and 10.2.1.40"):
        when = parse_when(question, C1)
        assert (when.window, when.spans, when.notes) == (None, [], []), question


# --- bad input: a note, never an exception ------------------------------------------------------

@pytest.mark.parametrize("date", ["Feb 30", "2017-02-30", "2017-13-01", "99/99/9999", "30 Feb 2017"])
def test_a_date_that_is_none(date: str) -> None:
    question = f"alarms on {date} between 10:00 and 11:00"
    when = parse_when(question, C1)
    assert when.window is None
    assert when.notes == [f"{date!r} is not a date, so no time window was taken from it"]
    assert sorted(question[s:e] for s, e in when.spans) == sorted([date, "between 10:00 and 11:00"])


@pytest.mark.parametrize("date", ["1969-12-31", "0001-01-01", "9999-12-31"])
def test_a_date_outside_any_log(date: str) -> None:
    when = parse_when(f"on {date}", C1, zone="Asia/Tokyo")
    assert when.window is None
    assert "outside the years" in when.notes[0]


def test_an_end_before_the_start() -> None:
    when = parse_when("between 10:25 and 10:15 on 2017-08-04", C1)
    assert when.window == w("2017-08-04T10:15:00Z", "2017-08-04T10:25:00Z")
    assert when.notes == ["the end 10:15 UTC is before the start 10:25 UTC; read as 10:15–10:25 UTC"]
    when = parse_when("between 10:00 and 10:00 on 2017-08-04", C1)
    assert when.window is None
    assert when.notes == ["'between 10:00 and 10:00' is an empty window, so it was not used"]


def test_dates_the_wrong_way_round() -> None:
    when = parse_when("from Aug 6 to Aug 4", C1)
    assert when.window == w("2017-08-04T00:00:00Z", "2017-08-07T00:00:00Z")
    assert when.notes == ["'Aug 4' is before 'Aug 6'; read as from Aug 4 to Aug 6"]
    when = parse_when("2017-08-04T10:15:00Z - 2017-08-04T10:15:00Z", C1)
    assert when.window is None
    assert when.notes == ["from 2017-08-04T10:15:00Z to 2017-08-04T10:15:00Z is an empty window, "
                          "so it was not used"]


def test_the_future_is_dropped_or_cut_at_the_clock() -> None:
    when = parse_when("on 2017-09-05", C1)
    assert when.window is None
    assert when.notes == ["the window 2017-09-05 00:00–24:00 UTC is in the future "
                          "(now is 2017-09-02 12:00 UTC), so it was not used"]
    when = parse_when("between 14:00 and 15:00 today", C1)
    assert when.window is None
    when = parse_when("between 11:00 and 13:00 on 2017-09-02", C1)
    assert when.window == w("2017-09-02T11:00:00Z", "2017-09-02T12:00:00Z")
    assert when.notes == ["the window 2017-09-02 11:00–13:00 UTC ends in the future; "
                          "it was cut at now (2017-09-02 12:00 UTC)"]
    when = parse_when("on 2017-09-02", C1)
    assert when.window == w("2017-09-02T00:00:00Z", "2017-09-02T12:00:00Z")


_WORDS = ["on", "between", "and", "to", "from", "since", "at", "around", "last", "night", "this",
          "morning", "yesterday", "today", "in", "PDT", "PST", "CET", "UTC", "Europe/Paris",
          "Feb", "Sep", "30", "1", "4", "Aug", "2017", "2016-02-30", "2017-08-04", "08/04/2017",
          "10:15", "23:59", "00:00", "25:00", "7pm", "-", "–", "2h", "ago", "Friday", "leaf1",
          "2017-08-04T10:15:00Z", "the", "maintenance", "window", "~", ",", "Dec", "31st"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=12),
       st.sampled_from(["UTC", LA, "Asia/Kolkata", "Pacific/Kiritimati"]),
       st.sampled_from([C1, C2]))
def test_any_words_give_a_valid_window_or_none(words: list[str], zone: str, clock: datetime) -> None:
    when = parse_when(" ".join(words), clock, zone=zone)
    if when.window is not None:
        got = parse_window(when.window, clock)
        assert got.start < got.end <= clock
    if when.at is not None:
        assert datetime.fromisoformat(when.at.replace("Z", "+00:00")) <= clock
    assert all(0 <= s < e <= len(" ".join(words)) for s, e in when.spans)


# --- "since the maintenance window": marked for the change records -----------------------------

@pytest.mark.parametrize("question", [
    "any flaps since the maintenance window?", "alarms on leaf1 since the change",
    "what broke after the upgrade", "errors since CHG-1009",
])
def test_since_the_change_is_marked_not_placed(question: str) -> None:
    when = parse_when(question, C1)
    assert (when.since_change, when.window, when.at) == (True, None, None)
    assert "change record" in when.notes[-1]


def test_since_a_time_is_no_change() -> None:
    when = parse_when("since 08:00", C1)
    assert not when.since_change
    assert when.window == w("2017-09-02T08:00:00Z", "2017-09-02T12:00:00Z")


def test_spans_cover_the_date_the_times_and_the_zone() -> None:
    q = "which BGP sessions went down on leaf1 between 10:15 and 10:25 PDT on 2017-08-04"
    when = parse_when(q, C1)
    covered = {i for s, e in when.spans for i in range(s, e)}
    for said in ("2017-08-04", "PDT", "between 10:15 and 10:25"):
        assert set(range(q.index(said), q.index(said) + len(said))) <= covered, said
    assert not covered & set(range(0, q.index("between")))  # "leaf1" and the rest stay
