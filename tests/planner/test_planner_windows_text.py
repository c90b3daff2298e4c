"""The window as the answer's first line states it (planner/window_text.py), and what the rest of
the planner does with a dated window: masking in `extract`, carrying in follow-ups, the calls."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.planner import Entities, Vocabulary, plan
from netopsai.planner.entities import extract
from netopsai.planner.followup import merge
from netopsai.planner.window_text import window_line
from netopsai.planner.windows import parse_when

C1 = datetime(2017, 9, 2, 12, 0, tzinfo=UTC)  # 05:00 PDT
LAB_CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)  # tests/conftest.py CLOCK
LA = "America/Los_Angeles"


def w(start: str, end: str) -> dict[str, str]:
    return {"start": start, "end": end}


# --- window_line ------------------------------------------------------------------------------

@pytest.mark.parametrize("window, zone, line", [
    (w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"), "PDT",
     "Window: 2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)"),
    (w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"), "UTC", "Window: 2017-08-04 17:15–17:25 UTC"),
    (w("2017-08-04T22:00:00Z", "2017-08-05T02:00:00Z"), "UTC",
     "Window: 2017-08-04 22:00 – 2017-08-05 02:00 UTC"),
    # one local day, two UTC days
    (w("2017-08-05T03:00:00Z", "2017-08-05T04:00:00Z"), "PDT",
     "Window: 2017-08-04 20:00–21:00 PDT (2017-08-05 03:00–04:00 UTC)"),
    (w("2017-08-04T07:00:00Z", "2017-08-05T07:00:00Z"), "PDT",
     "Window: 2017-08-04 00:00–24:00 PDT (07:00 – 2017-08-05 07:00 UTC)"),
    # an IANA zone is said by the name its clocks showed, as the answer's other times say it
    (w("2016-12-01T09:00:00Z", "2016-12-01T10:00:00Z"), "Europe/Paris",
     "Window: 2016-12-01 10:00–11:00 CET (09:00–10:00 UTC)"),
    (w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"), LA,
     "Window: 2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)"),
    (w("2016-12-01T18:00:00Z", "2016-12-01T19:00:00Z"), LA,
     "Window: 2016-12-01 10:00–11:00 PST (18:00–19:00 UTC)"),
    (w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"), "PT",
     "Window: 2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)"),
    # the night daylight saving ended: each bound names its own
    (w("2016-11-06T01:00:00Z", "2016-11-06T14:00:00Z"), LA,
     "Window: 2016-11-05 18:00 PDT – 2016-11-06 06:00 PST (2016-11-06 01:00–14:00 UTC)"),
    (w("2016-11-06T07:00:00Z", "2016-11-06T11:00:00Z"), LA,
     "Window: 2016-11-06 00:00 PDT – 03:00 PST (07:00–11:00 UTC)"),
    # a zone with no letters for itself (its clocks show '-03') keeps its IANA name
    (w("2017-08-04T13:00:00Z", "2017-08-04T14:00:00Z"), "America/Sao_Paulo",
     "Window: 2017-08-04 10:00–11:00 America/Sao_Paulo (13:00–14:00 UTC)"),
    (w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"), "Etc/UTC", "Window: 2017-08-04 17:15–17:25 UTC"),
    (w("2017-08-04T04:30:00Z", "2017-08-04T05:00:30Z"), "IST",
     "Window: 2017-08-04 10:00–10:30:30 IST (04:30–05:00:30 UTC)"),
    ("2h", "PDT", "Window: last 2h, 2017-09-02 03:00–05:00 PDT (10:00–12:00 UTC)"),
    ("2h", "UTC", "Window: last 2h, 2017-09-02 10:00–12:00 UTC"),
    ("7d", "UTC", "Window: last 7d, 2017-08-26 12:00 – 2017-09-02 12:00 UTC"),
    (None, "UTC", "Window: none given (each tool's default)"),
])
def test_window_line(window: Any, zone: str, line: str) -> None:
    assert window_line(window, zone, C1) == line


def test_a_window_in_the_future_says_now_on_the_networks_clock() -> None:
    """The note on a window not begun says 'now' with the abbreviation, as the window does."""
    when = parse_when("between 10:15 and 10:25 on 2017-09-03", C1, zone=LA)
    assert when.window is None
    assert when.notes == ["the window 2017-09-03 10:15–10:25 PDT (17:15–17:25 UTC) is in the "
                          "future (now is 2017-09-02 05:00 PDT), so it was not used"], when.notes


def test_window_line_without_a_clock_or_with_junk_never_raises() -> None:
    assert window_line("2h", "PDT") == "Window: last 2h (to now)"
    assert window_line("2 fortnights", "UTC", C1) == "Window: 2 fortnights"
    assert window_line({"start": "nonsense"}, "UTC", C1) == "Window: {'start': 'nonsense'}"
    assert window_line({"end": "2017-08-04T17:25:00Z"}, "UTC", C1) == (
        "Window: {'end': '2017-08-04T17:25:00Z'}")
    # a zone that is none is shown as UTC rather than guessed
    assert window_line(w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"), "Mars/Olympus", C1) == (
        "Window: 2017-08-04 17:15–17:25 UTC")


@pytest.mark.parametrize("question, zone, line", [
    ("between 10:15 and 10:25 on 2017-08-04 in PDT", "UTC",
     "Window: 2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)"),
    ("between 10:15 and 10:25 on 2017-08-04", LA,
     "Window: 2017-08-04 10:15–10:25 PDT (17:15–17:25 UTC)"),
    ("between 10:15 and 10:25 on 2016-12-01", LA,
     "Window: 2016-12-01 10:15–10:25 PST (18:15–18:25 UTC)"),
    ("in the last 2h", LA, "Window: last 2h, 2017-09-02 03:00–05:00 PDT (10:00–12:00 UTC)"),
    ("on Sep 1 around 10:20 CET", "UTC", "Window: 2017-09-01 10:10–10:30 CET (09:10–09:30 UTC)"),
    ("yesterday", "UTC", "Window: 2017-09-01 00:00–24:00 UTC"),
])
def test_the_first_line_of_a_question(question: str, zone: str, line: str) -> None:
    when = parse_when(question, C1, zone=zone)
    assert window_line(when.window, when.zone, C1) == line


# --- extract: the date is masked, the zone is carried -----------------------------------------

@pytest.fixture
def small() -> Vocabulary:
    names = {"leaf1": "leaf", "leaf2": "leaf", "leaf4": "leaf", "leaf8": "leaf", "spine1": "spine"}
    meta = {n: {"role": r, "site": "sjc", "pod": None} for n, r in names.items()}
    return Vocabulary(devices=list(meta), sites=["sjc"], pods=[], roles=["leaf", "spine"], meta=meta)


def test_a_dated_question_names_its_device_and_window(small: Vocabulary) -> None:
    q = "which BGP sessions went down on leaf1 between 10:15 and 10:25 on 2017-08-04"
    ent, rest, notes = extract(q, small, C1)
    assert ent.devices == ["leaf1"] and ent.unknown == [] and ent.invalid == []
    assert ent.window == w("2017-08-04T10:15:00Z", "2017-08-04T10:25:00Z")
    assert (ent.zone, ent.since_change, notes) == (None, False, [])
    assert not any(ch.isdigit() for ch in rest)  # "2017", "10", "15" are not left to read


def test_the_question_zone_and_the_default_zone(small: Vocabulary) -> None:
    ent, _, _ = extract("flaps on leaf 2 on Aug 4 2017 around 10:20 PDT", small, C1)
    assert ent.devices == ["leaf2"]
    assert ent.window == w("2017-08-04T17:10:00Z", "2017-08-04T17:30:00Z")
    assert ent.zone == "PDT"
    ent, _, _ = extract("drops on leaf4 between 10:15 and 10:25 on 2017-08-04", small, C1, zone=LA)
    assert ent.window == w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z")
    assert ent.zone is None  # not named: the configured zone


def test_since_the_change_keeps_the_ticket(small: Vocabulary) -> None:
    ent, rest, notes = extract("errors on leaf8 since CHG-1009", small, C1)
    assert (ent.devices, ent.tickets, ent.since_change, ent.window) == (
        ["leaf8"], ["CHG-1009"], True, None)
    ent, rest, _ = extract("flaps on leaf1 since the maintenance window", small, C1)
    assert ent.since_change and "maintenance" in rest  # left for the rules to see


# --- follow-ups carry the zone with the window ------------------------------------------------

def test_follow_ups_carry_the_zone_with_the_window(small: Vocabulary) -> None:
    prev = Entities(devices=["leaf1"], window=w("2017-08-04T17:15:00Z", "2017-08-04T17:25:00Z"),
                    zone="PDT")
    _, m, _ = merge("alarms", Entities(state="open"), prev, "alarms", "", small)
    assert (m.window, m.zone, m.since_change) == (prev.window, "PDT", False)
    _, m, _ = merge("alarms", Entities(zone="CET"), prev, "alarms", "", small)
    assert (m.window, m.zone) == (prev.window, "CET")  # "and in CET?": the same window, shown in CET
    _, m, _ = merge("alarms", Entities(window="24h"), prev, "alarms", "", small)
    assert (m.window, m.zone) == ("24h", None)  # a new window comes with its own zone
    _, m, _ = merge("alarms", Entities(since_change=True), prev, "alarms", "", small)
    assert (m.window, m.since_change) == (None, True)
    marked = Entities(devices=["leaf1"], since_change=True)
    _, m, _ = merge("alarms", Entities(window="2h"), marked, "alarms", "", small)
    assert (m.window, m.since_change) == ("2h", False)
    _, m, _ = merge("alarms", Entities(state="open"), marked, "alarms", "", small)
    assert (m.window, m.since_change) == (None, True)


# --- the planner's calls on the lab ------------------------------------------------------------

@pytest.mark.parametrize("expr, window", [
    ("between 10:15 and 10:25 on 2025-11-03", w("2025-11-03T10:15:00Z", "2025-11-03T10:25:00Z")),
    ("on Nov 3 around 19:00", w("2025-11-03T18:50:00Z", "2025-11-03T19:10:00Z")),
    ("on 2025-11-02", w("2025-11-02T00:00:00Z", "2025-11-03T00:00:00Z")),
    ("last night", w("2025-11-03T18:00:00Z", "2025-11-04T06:00:00Z")),
])
def test_planned_calls_use_the_dated_window(expr: str, window: dict[str, str],
                                            backends: Backends) -> None:
    vocab = Vocabulary.from_inventory(backends.inventory)
    p = plan(f"alarms on dc1-spine-01 {expr}", vocab, LAB_CLOCK)
    assert [[c.tool, c.args] for c in p.calls] == [
        ["alarms", {"devices": ["dc1-spine-01"], "window": window}]]
