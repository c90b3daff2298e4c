"""The planner's notes say their clock times with the zone named (issue 25 item 5): how a part
of the day, 'around 10:20', an end before its start and a point on a date were read, in the
question's zone ('18:00 PST yesterday'), UTC named in UTC. A night that crosses the end of
daylight saving names both its zones."""

from __future__ import annotations

from datetime import UTC, datetime

from netopsai.planner.windows import parse_when

LA = "America/Los_Angeles"
C = datetime(2026, 11, 25, 3, 0, tzinfo=UTC)  # 19:00 PST on Nov 24


def test_parts_of_the_day_are_said_in_the_network_zone() -> None:
    assert parse_when("anything last night?", C, zone=LA).notes == [
        "'last night' read as 18:00 PST yesterday to 06:00 PST today"]
    assert parse_when("alarms tonight", C, zone=LA).notes == [
        "'tonight' read as 18:00 PST today to now (19:00 PST)"]
    early = datetime(2026, 11, 24, 13, 0, tzinfo=UTC)  # 05:00 PST: the morning has not begun
    [note] = parse_when("alarms this morning", early, zone=LA).notes
    assert note == "'this morning' (06:00-12:00 PST) has not begun yet (now 05:00 PST), so no " \
                   "window was taken from it"


def test_a_night_across_the_end_of_daylight_saving_names_both_zones() -> None:
    after = datetime(2026, 11, 1, 18, 0, tzinfo=UTC)  # 10:00 PST; 02:00 PDT became 01:00 PST
    assert parse_when("flaps last night", after, zone=LA).notes == [
        "'last night' read as 18:00 PDT yesterday to 06:00 PST today"]


def test_clock_time_notes_name_the_zone() -> None:
    assert parse_when("on Nov 20 around 10:20", C, zone=LA).notes == [
        "'around 10:20' read as ±10 min: 10:10–10:30 PST"]
    assert parse_when("between 10:25 and 10:15 on Nov 20", C, zone=LA).notes == [
        "the end 10:15 PST is before the start 10:25 PST; read as 10:15–10:25 PST"]
    point = parse_when("trace it at 10:20 on Nov 20", C, zone=LA).notes
    assert "a window of ±10 min around 2026-11-20 10:20 PST" in point, point
    asked = parse_when("on Nov 20 around 10:20 CET", C, zone=LA).notes  # the zone asked
    assert "'around 10:20' read as ±10 min: 10:10–10:30 CET" in asked, asked
    assert parse_when("on Nov 20 around 10:20", C).notes == [
        "'around 10:20' read as ±10 min: 10:10–10:30 UTC"]
