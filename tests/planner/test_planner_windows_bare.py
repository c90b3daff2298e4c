"""A clock time with no word before it (issue 25 follow-up): "yesterday 18:05" is the point
18:05 with its ±10 min window, as "yesterday around 18:05" is, not the whole of yesterday; and
"A B 12:12?" (two addresses and a clock time) reads 12:12 as "at 12:12" does. Digits that are
part of an address, a MAC, a port or a bound ("until 10:20") stay no point."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.planner import Vocabulary, plan
from netopsai.planner.windows import parse_when
from tests.conftest import CLOCK

C = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
A, B = "10.2.27.20", "10.1.13.20"
AROUND_1805 = {"start": "2025-11-03T17:55:00Z", "end": "2025-11-03T18:15:00Z"}


@pytest.mark.parametrize("question", [
    "loss from 10.1.5.30 to 10.2.25.20 yesterday 18:05",
    "alarms yesterday 18:05",
    "leaf1 went down 18:05 yesterday",
])
def test_a_bare_time_on_a_named_day_is_a_point_not_the_day(question: str) -> None:
    w = parse_when(question, C)
    assert w.window == AROUND_1805 == parse_when("alarms yesterday around 18:05", C).window
    assert w.at == "2025-11-03T18:05:00Z"


@pytest.mark.parametrize("question, at", [
    (f"{A} {B} 12:12?", "2025-11-04T12:12:00Z"),
    (f"{A} {B} 7pm", "2025-11-04T19:00:00Z"),
    (f"{A} {B} 21:30", "2025-11-03T21:30:00Z"),  # not reached yet today: yesterday's
])
def test_two_addresses_and_a_clock_time_read_the_time(question: str, at: str) -> None:
    w = parse_when(question, C)
    assert w.at == at
    assert w.at == parse_when(question.replace(B, f"{B} at"), C).at


@pytest.mark.parametrize("question", [
    "mac 00:1b:44:11:3a:b7 on leaf1", "errors on et-0/0/1:2", "fe80::1 to 10.0.0.1",
    f"{A} {B}", "top 10 ports",
])
def test_digits_that_are_no_clock_time_stay_no_point(question: str) -> None:
    w = parse_when(question, C)
    assert (w.at, w.window) == (None, None)


def test_a_bound_is_not_read_as_a_point() -> None:
    assert parse_when("alarms until 10:20 yesterday", C).at is None


def test_a_date_keeps_its_own_time() -> None:
    w = parse_when("alarms on Nov 1 10:20", C)  # Nov 1's 10:20, not today's
    assert w.window == {"start": "2025-11-01T10:10:00Z", "end": "2025-11-01T10:30:00Z"}
    assert w.at == "2025-11-01T10:20:00Z"


def test_two_ends_and_a_bare_time_are_a_diagnosis_at_that_time(backends: Any,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Any) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    p = plan(f"{A} {B} 12:12?", Vocabulary.from_inventory(backends.inventory), CLOCK)
    assert p.intent == "diagnose.connectivity"
    assert p.entities.at is not None and "12:12" in p.entities.at
