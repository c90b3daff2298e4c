"""The thumbs-up: an on-call confirms a diagnosis from the Gradio chat (the Chatbot's like
event) or from Slack (the answer's Confirm button, a signed block action through the real bolt
app), and it joins incident memory in NETOPSAI_HOME."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from netopsai.copilot.service import Copilot
from netopsai.diagnosis.memory import IncidentMemory
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender
from tests.ui.slack import test_slack
from tests.ui.slack.test_slack import ONCALL, OPS, PRIVATE, SECRET, block, slash

# the Slack tests' fixtures: a lab with an ACL, its copilot, the fake Web API and the bot
bot, clean, copilot, fake, settings = (test_slack.bot, test_slack.clean, test_slack.copilot,
                                       test_slack.fake, test_slack.settings)

QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"  # the slack fixture's lab has an ACL


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path))
    return tmp_path


def memory(home: Path) -> list[Any]:
    path = home / "incidents.db"
    return IncidentMemory.at(path).all() if path.exists() else []


def test_gradio_thumbs_up_confirms_the_diagnosis(copilot: Copilot, home: Path) -> None:
    from netopsai.ui.gradio.chat import ChatHandler

    chat = ChatHandler(copilot)
    list(chat.turn(QUESTION, [], "g-1", "ana"))
    assert "nothing saved" in chat.feedback("g-1", False, "ana") and memory(home) == []
    status = chat.feedback("g-1", True, "ana")
    assert "config.acl_block" in status and "dc1-leaf-03" in status
    [row] = memory(home)
    assert (row.label, row.device, row.confirmed_by, row.source) == (
        "config.acl_block", "dc1-leaf-03", "gradio:ana", "gradio")
    list(chat.turn("who owns 10.1.3.20?", [], "g-2", "ana"))  # not a diagnosis
    assert "no diagnosis" in chat.feedback("g-2", True, "ana") and len(memory(home)) == 1


def test_gradio_chatbot_has_the_like_event(copilot: Copilot) -> None:
    import gradio as gr

    from netopsai.ui.gradio.app import build_app

    app = build_app(copilot)
    bots = [b for b in app.blocks.values() if isinstance(b, gr.Chatbot)]
    assert bots and all(getattr(b, "likeable", False) for b in bots)


def test_slack_confirm_button_saves_the_diagnosis(bot: str, fake: FakeSlackAPI,
                                                  home: Path) -> None:
    status, _ = slash(bot, fake, f"ask {QUESTION}")
    assert status == 200
    final = fake.of("chat.update")[-1]
    buttons = block(final["blocks"], "actions")["elements"]
    assert [b["action_id"] for b in buttons] == ["netops_evidence", "netops_confirm"]
    value = buttons[1]["value"]
    sender = SlackSender(bot, SECRET, "")
    # a click from another channel must not confirm this channel's conversation
    sender.click("netops_confirm", value, ONCALL, PRIVATE, {"ts": final["ts"], "type": "message"})
    assert memory(home) == [] and "not here" in fake.of("chat.postEphemeral")[-1]["text"]
    status, _ = sender.click("netops_confirm", value, ONCALL, OPS,
                             {"ts": final["ts"], "type": "message"})
    assert status == 200
    [row] = memory(home)
    assert (row.label, row.device, row.confirmed_by) == ("config.acl_block", "dc1-leaf-03",
                                                         f"slack:{ONCALL}")
    assert "Saved to incident memory" in fake.of("chat.postEphemeral")[-1]["text"]
    assert json.loads(value)["t"].startswith(f"slack:{OPS}:")


def test_gradio_diagnosis_step_shows_the_engines_moves(copilot: Copilot) -> None:
    from netopsai.ui.gradio.chat import ChatHandler

    views = list(ChatHandler(copilot).turn(QUESTION, [], "g-steps", "ana"))
    steps = [m for m in views[-1].history if not isinstance(m, dict)
             and str((m.metadata or {}).get("title", "")).startswith("diagnosis:")]
    assert len(steps) == 1
    body = str(steps[0].content)
    assert "How it was found" in body and "check `config.acl_block`: confirmed" in body
    assert "rank `root`" in body and "[E1]" in body  # the trace that decided it, cited
