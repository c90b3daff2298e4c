"""Acks and silences read by a person (issue 25 item 5): the end of a silence is said on the
network's clock with its zone named ('until 2025-11-04 14:00 PST (22:00 UTC)'), in the web app's
Alarms tab, Slack's alarm list and the line Slack redraws after a click; in UTC it still names
UTC. The store keeps the times in UTC and `netopsai alarms acks --json` prints them ISO."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.common.timewin import parse_duration
from netopsai.copilot.service import Copilot
from netopsai.store import acks
from tests.conftest import CLOCK
from tests.store.test_alarm_acks import alarm_ids

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


# -- Slack: the alarm list and the line redrawn after a click (ui/slack) -----------------------

class _Client:
    """The Web API calls a click makes, recorded (no network)."""

    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.told: list[str] = []

    def chat_update(self, **kw: Any) -> None:
        self.updates.append(kw)

    def chat_postEphemeral(self, **kw: Any) -> None:  # noqa: N802 (the Web API's name)
        self.told.append(str(kw.get("text")))


def test_slack_says_a_silence_on_the_network_clock(make_lab: Callable[..., Engine]) -> None:
    from netopsai.ui.slack.alarm_list import SILENCE_FOR, ack_texts
    from netopsai.ui.slack.listeners.alarms import act
    from netopsai.ui.slack.settings import SlackSettings
    from netopsai.ui.slack.work import SlackContext

    engine = make_lab()
    b = _silenced(engine)
    end = CLOCK + timedelta(hours=2)
    assert f"until {end - timedelta(hours=8):%Y-%m-%d %H:%M} PST ({end:%H:%M} UTC)" in \
        ack_texts(engine, [b], CLOCK, LA)[b]
    assert f"until {end:%Y-%m-%d %H:%M} UTC:" in ack_texts(engine, [b], CLOCK)[b]

    c = alarm_ids(engine)[2]  # silenced from Slack: the redrawn line names the network's zone
    backends = replace(lab_backends(engine), zone=LA)
    ctx = SlackContext(Copilot(backends), SlackSettings.model_validate({
        "bot_token": "xoxb-t", "signing_secret": "s", "allowed_users": ["U1"],
        "allowed_channels": ["C1"]}))
    client = _Client()
    line = {"block_id": f"netops_alarm_{c}", "text": {"type": "mrkdwn", "text": "LINK_DOWN"}}
    body = {"user": {"id": "U1"}, "channel": {"id": "C1"},
            "message": {"ts": "1.0", "text": "alarms", "blocks": [line]}}
    act(ctx, "silence", body, {"value": json.dumps({"a": c})}, client)  # type: ignore[arg-type]
    now = backends.inventory.clock()
    until = acks.states(engine, [c], now)[c].until
    assert until is not None and until - now == parse_duration(SILENCE_FOR)
    [update] = client.updates
    redrawn = update["blocks"][0]["text"]["text"]
    local = until.astimezone(ZoneInfo(LA))
    assert f"until {local:%Y-%m-%d %H:%M} PST ({until:%H:%M} UTC)" in redrawn, redrawn


# -- the web app's Alarms tab (ui/gradio/alarms.py) ---------------------------------------------

def test_the_alarms_tab_says_a_silence_on_the_network_clock(make_lab: Callable[..., Engine]) -> None:
    from netopsai.ui.gradio.alarms import Filters, read_alarms
    from tests.ui.gradio.test_alarms_ui import faulted

    engine, lab = faulted(make_lab)  # a crc error alarm among others, open
    b = int(next(r for r in read_alarms(lab, Filters(), "24h").open_rows
                 if r["kind"] == "INTERFACE_ERRORS")["id"])
    now = lab.inventory.clock()
    end = now + timedelta(hours=2)
    acks.record(engine, b, "silence", "bob", "planned work", now, end)
    for zone, said in ((LA, f"{end - timedelta(hours=8):%Y-%m-%d %H:%M} PST ({end:%H:%M} UTC)"),
                       ("UTC", f"{end:%Y-%m-%d %H:%M} UTC")):
        data = read_alarms(replace(lab_backends(engine), zone=zone), Filters(show_silenced=True),
                           "24h")
        row = next(r for r in data.open_rows + data.rows if r["id"] == b)
        assert row["ack"] == f"silenced by bob until {said}: planned work", row["ack"]
