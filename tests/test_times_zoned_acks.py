"""Acks and silences read by a person (issue 25 item 5): the end of a silence is said on the
network's clock with its zone named ('until 2025-11-04 14:00 PST (22:00 UTC)'), in the web app's
Alarms tab, Slack's alarm list and the line Slack redraws after a click; in UTC it still names
UTC. The store keeps the times in UTC and `netopsai alarms acks --json` prints them ISO."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.store import acks
from tests.conftest import CLOCK
from tests.test_alarm_acks import alarm_ids

LA = "America/Los_Angeles"  # PST in November, UTC-8


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _silenced(engine: Engine) -> int:
    b = alarm_ids(engine)[1]
    acks.record(engine, b, "silence", "bob", "planned work", CLOCK, CLOCK + timedelta(hours=2))
    return b


def test_a_silence_ends_on_the_network_clock(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    b = _silenced(engine)
    end = CLOCK + timedelta(hours=2)
    st = acks.states(engine, [b], CLOCK + timedelta(minutes=5))[b]
    assert st.text(LA) == (f"silenced by bob until {end - timedelta(hours=8):%Y-%m-%d %H:%M} PST "
                           f"({end:%H:%M} UTC): planned work")
    assert st.text("UTC") == f"silenced by bob until {end:%Y-%m-%d %H:%M} UTC: planned work"
    over = acks.states(engine, [b], CLOCK + timedelta(hours=3))[b]
    assert f"(silence ended {end - timedelta(hours=8):%Y-%m-%d %H:%M} PST ({end:%H:%M} UTC))" \
        in over.text(LA)
