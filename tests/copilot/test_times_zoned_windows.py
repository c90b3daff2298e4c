"""The windows and times the front ends print beside an answer or a listing, on the network's
clock (issue 25 item 5): the citations under a Slack answer, `netopsai tool`'s window line,
`netopsai alarms cases` and `alarms acks`. Los Angeles (PST in November, UTC-8) with UTC
beside; a UTC network names UTC. JSON, CSV and the rows stay ISO UTC."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.common.localtime import when
from netopsai.copilot.service import Copilot

LA = "America/Los_Angeles"
ISO_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?Z")
WIN = {"start": "2025-11-04T18:00:00Z", "end": "2025-11-04T20:00:00Z"}  # 10:00–12:00 PST
SPINE = "dc1-spine-01"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def test_a_window_or_a_moment() -> None:
    assert when(WIN["start"], WIN["end"], LA) == "2025-11-04 10:00–12:00 PST (18:00–20:00 UTC)"
    assert when(WIN["end"], WIN["end"], LA) == "2025-11-04 12:00 PST (20:00 UTC)"  # a trace's now
    assert when(WIN["start"], WIN["end"], "UTC") == "2025-11-04 18:00–20:00 UTC"
    assert when("-2h", "now", LA) == "-2h .. now"  # not times: as written


# -- Slack: the citations under an answer (ui/slack/blocks.py, through work.render) ------------

def _slack(copilot: Copilot) -> Any:
    from netopsai.ui.slack.settings import SlackSettings
    from netopsai.ui.slack.work import SlackContext

    return SlackContext(copilot, SlackSettings.model_validate({
        "bot_token": "xoxb-t", "signing_secret": "s", "allowed_users": ["U1"],
        "allowed_channels": ["C1"]}))


def _citations(blocks: list[dict[str, Any]]) -> list[str]:
    return [str(e["text"]) for b in blocks if b.get("type") == "context"
            for e in b["elements"] if str(e.get("text", "")).startswith("[E")]


@pytest.mark.parametrize("zone, said", [
    (LA, " · window 2025-11-04 10:00–12:00 PST (18:00–20:00 UTC)"),
    ("UTC", " · window 2025-11-04 18:00–20:00 UTC")])
def test_slack_cites_each_window_on_the_network_clock(make_lab: Callable[..., Engine], zone: str,
                                                       said: str) -> None:
    from netopsai.ui.slack.work import render

    ctx = _slack(Copilot(replace(lab_backends(make_lab()), zone=zone)))
    result = ctx.copilot.answer(f"alarms on {SPINE} in the last 2h", "t")
    cited = _citations(render(ctx, result, "slack-t"))
    assert cited and any(c.endswith(said) for c in cited), cited
    assert not any(ISO_Z.search(c) for c in cited), cited
    assert {"start": "2025-11-04T18:00:00Z", "end": "2025-11-04T20:00:00Z"} in [
        e["window"] for e in result["evidence"]]  # the evidence itself stays ISO UTC


def test_a_trace_is_cited_at_its_moment() -> None:
    from netopsai.ui.slack.blocks import citation_line

    ev = {"id": "E1", "tool": "traceroute", "args": {"src": "a", "dst": "b"},
          "window": {"start": WIN["end"], "end": WIN["end"]}}
    assert citation_line(ev, LA) == ("[E1] traceroute · src a, dst b · window 2025-11-04 12:00 PST "
                                     "(20:00 UTC)")


def test_auto_triage_posts_its_citations_on_the_network_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Auto-triage's Slack poster (ui/slack/triage_post.py) is given the copilot's zone."""
    import slack_sdk

    from netopsai.ui.slack.triage_post import slack_poster

    posted: list[dict[str, Any]] = []

    class _Client:  # the Web API call the poster makes, recorded (no network)
        def __init__(self, **_: Any) -> None:
            pass

        def chat_postMessage(self, **kw: Any) -> None:  # noqa: N802 (the Web API's name)
            posted.append(kw)

    monkeypatch.setattr(slack_sdk, "WebClient", _Client)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-t")
    ev = {"id": "E1", "tool": "alarms", "args": {}, "window": WIN, "rows": []}
    slack_poster(LA)("C1", {"answer": "**Open alarms: none** [E1]", "evidence": [ev],
                            "citations": ["E1"]}, "triage-1")
    assert _citations(posted[0]["blocks"]) == [
        "[E1] alarms · window 2025-11-04 10:00–12:00 PST (18:00–20:00 UTC)"]


# -- the terminal: `netopsai tool` (netopsai/cli/render.py), `alarms cases` and `alarms acks`
# (netopsai/cli/alarms.py)

@pytest.fixture
def lab_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from netopsai.launch.app import main

    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert main(["lab", "init", "--now", "2025-11-04T20:00:00Z"]) == 0
    return tmp_path


def _zone(home: Path, zone: str) -> None:
    (home / "config.yaml").write_text(f"ingest:\n  timezone: {zone}\n")


def _printed(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().out.split())  # rich may wrap a long line: words kept


@pytest.mark.parametrize("zone, said", [
    (LA, " alarms in 2025-11-04 10:00–12:00 PST (18:00–20:00 UTC) -> "),
    ("UTC", " alarms in 2025-11-04 18:00–20:00 UTC -> ")])
def test_alarms_cases_says_its_window_on_the_network_clock(
        lab_home: Path, capsys: pytest.CaptureFixture[str], zone: str, said: str) -> None:
    from netopsai.launch.app import main

    _zone(lab_home, zone)
    capsys.readouterr()
    assert main(["alarms", "cases", "--window", "2h"]) == 0
    out = _printed(capsys)
    assert said in out and not ISO_Z.search(out.split(" -> ")[0]), out
    assert main(["alarms", "cases", "--window", "2h", "--json"]) == 0  # parsed: ISO UTC
    assert json.loads(capsys.readouterr().out)["window"] == WIN


def test_alarms_acks_lists_on_the_network_clock(lab_home: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from netopsai.launch.app import main
    from netopsai.store.engine import engine_for
    from tests.store.test_alarm_acks import alarm_ids

    b = alarm_ids(engine_for(f"sqlite:///{lab_home / 'netopsai.db'}"))[1]
    _zone(lab_home, LA)
    assert main(["alarms", "silence", str(b), "--for", "2h", "--by", "bob"]) == 0
    capsys.readouterr()
    assert main(["alarms", "acks"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"2025-11-04 12:00 PST (20:00 UTC)  #{b}  silence until 2025-11-04 14:00 PST (22:00 UTC)"
        "  by bob"]
    _zone(lab_home, "UTC")
    assert main(["alarms", "acks"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"2025-11-04 20:00 UTC  #{b}  silence until 2025-11-04 22:00 UTC  by bob"]
    assert main(["alarms", "acks", "--json"]) == 0  # parsed: ISO UTC, as stored
    [row] = json.loads(capsys.readouterr().out)
    assert (row["at"], row["until"]) == ("2025-11-04T20:00:00Z", "2025-11-04T22:00:00Z")


@pytest.mark.parametrize("zone, said", [
    (LA, "window 2025-11-04 10:00–12:00 PST (18:00–20:00 UTC)"),
    ("UTC", "window 2025-11-04 18:00–20:00 UTC")])
def test_a_tools_window_is_printed_on_the_network_clock(
        lab_home: Path, capsys: pytest.CaptureFixture[str], zone: str, said: str) -> None:
    from netopsai.launch.app import main

    _zone(lab_home, zone)
    capsys.readouterr()
    assert main(["tool", "alarms", '{"window": "2h", "state": "any"}']) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == said, out[:3]
    assert main(["tool", "alarms", '{"window": "2h"}', "--json"]) == 0  # parsed: ISO UTC
    assert json.loads(capsys.readouterr().out)["window"] == WIN
