""""Page the on-call" posts the escalation draft to SLACK_ONCALL_CHANNEL (issue 26 item 8), end
to end on loopback: signed clicks go through the bot's WSGI server and the fake Slack Web API
records what was posted. The draft arrives headline first with the thread's link; with no
channel configured there is no button and nothing is posted; a bad channel value, or a channel
Slack refuses, is one line; the token is never logged. The lab has an ACL on dc1-leaf-03."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.headline import headline
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.ui.slack.page import PAGE_ACTION, post_page
from netopsai.ui.slack.settings import SlackSettings, read_settings
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender, served_bot

SECRET = "page-signing-secret-0b7e"
TOKEN = "xoxb-page-token-66fa"
ONCALL, OPS, PAGER = "UONCALL", "COPS", "CPAGER01"
PERMALINK = "https://lab.slack.com/archives/COPS/p1700000100000001"


@pytest.fixture(scope="module")
def copilot(tmp_path_factory: pytest.TempPathFactory) -> Copilot:
    engine = engine_for(f"sqlite:///{tmp_path_factory.mktemp('page') / 'lab.db'}")
    init_lab(engine, "default", "small", 7, datetime(2025, 11, 4, 20, 0, tzinfo=UTC))
    inject(engine, Scenario.model_validate({
        "id": "page", "now": lab_info(engine).clock,
        "question": "10.1.3.20 to 10.2.1.40 not communicating",
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    return Copilot(lab_backends(engine))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    plain = api.answer

    def answer(method: str, args: dict[str, Any]) -> dict[str, Any]:  # Slack's permalinks
        if method == "chat.getPermalink":
            return {"ok": True, "channel": args.get("channel"), "permalink": PERMALINK}
        return plain(method, args)
    api.answer = answer  # type: ignore[method-assign]
    yield api
    api.stop()


def _settings(fake: FakeSlackAPI, channel: str | None) -> SlackSettings:
    return SlackSettings.model_validate({
        "bot_token": TOKEN, "signing_secret": SECRET, "api_url": fake.api_url,
        "allowed_users": [ONCALL], "allowed_channels": [OPS], "oncall_channel": channel})


def _serve(copilot: Copilot, fake: FakeSlackAPI, channel: str | None) -> Iterator[str]:
    yield from served_bot(copilot, _settings(fake, channel), fake)


@pytest.fixture(scope="module")
def paging(copilot: Copilot, fake: FakeSlackAPI) -> Iterator[str]:
    yield from _serve(copilot, fake, PAGER)


@pytest.fixture(scope="module")
def plain_bot(copilot: Copilot, fake: FakeSlackAPI) -> Iterator[str]:
    yield from _serve(copilot, fake, None)


def _ask(bot: str, fake: FakeSlackAPI, text: str) -> dict[str, Any]:
    fake.reset()
    assert SlackSender(bot, SECRET, f"{fake.base}/response/1").slash(text, ONCALL, OPS)[0] == 200
    return fake.of("chat.update")[-1]


def _page_buttons(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for b in reply["blocks"] if b.get("type") == "actions" for e in b["elements"]
            if e.get("action_id") == PAGE_ACTION]


def _click(bot: str, fake: FakeSlackAPI, reply: dict[str, Any], value: str) -> None:
    fake.reset()
    message = {"type": "message", "ts": reply["ts"], "text": reply["text"], "blocks": reply["blocks"]}
    s = SlackSender(bot, SECRET, f"{fake.base}/response/1")
    assert s.click(PAGE_ACTION, value, ONCALL, OPS, message)[0] == 200


def test_the_draft_arrives_in_the_channel_headline_first(paging: str, fake: FakeSlackAPI,
                                                         copilot: Copilot,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    reply = _ask(paging, fake, "trace 10.1.3.20 10.2.1.40")
    [button] = _page_buttons(reply)
    assert "#" not in button["text"]["text"] and PAGER in button["text"]["text"]
    _click(paging, fake, reply, button["value"])
    [posted] = fake.of("chat.postMessage")
    thread = copilot.thread(f"slack:{OPS}:{reply['ts']}")
    lines = posted["text"].split("\n")
    assert posted["channel"] == PAGER
    assert lines[0] == f"[netopsai] {headline(thread.answer)}" and "dc1-leaf-03" in lines[0]
    assert f"Asked: {thread.question}" in lines and f"Thread: {PERMALINK}" in lines
    assert lines[-1] == f"Paged by <@{ONCALL}>"
    assert fake.of("chat.postEphemeral")[0]["text"] == f"Posted to {PAGER}."
    assert all(TOKEN not in r.getMessage() for r in caplog.records)


def test_nothing_is_posted_when_unconfigured(plain_bot: str, fake: FakeSlackAPI) -> None:
    reply = _ask(plain_bot, fake, "trace 10.1.3.20 10.2.1.40")
    assert _page_buttons(reply) == []
    # a click that claims to be one (an old message, a forged value) posts nowhere
    _click(plain_bot, fake, reply, json.dumps({"t": f"slack:{OPS}:{reply['ts']}"}))
    assert fake.of("chat.postMessage") == []
    [said] = fake.of("chat.postEphemeral")
    assert "SLACK_ONCALL_CHANNEL" in said["text"] and "\n" not in said["text"]
    with pytest.raises(NetopsError, match="no on-call channel"):
        post_page(_settings(fake, None), "[netopsai] x")


def test_a_channel_slack_refuses_is_one_line(paging: str, fake: FakeSlackAPI) -> None:
    reply = _ask(paging, fake, "trace 10.1.3.20 10.2.1.40")
    fake.refuse.add(PAGER)
    try:
        _click(paging, fake, reply, _page_buttons(reply)[0]["value"])
    finally:
        fake.refuse.discard(PAGER)
    [said] = fake.of("chat.postEphemeral")
    assert said["text"] == f":warning: could not post to {PAGER}: not_in_channel"


@pytest.mark.parametrize("value", ["two words", "#Ops!", "x" * 90])
def test_a_bad_channel_value_is_one_line(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_ONCALL_CHANNEL", value)
    with pytest.raises(NetopsError) as err:
        read_settings()
    assert str(err.value).startswith("SLACK_ONCALL_CHANNEL: must be a channel id")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("value,label", [("C0123ABCD", "C0123ABCD"), ("#netops-oncall", "#netops-oncall"),
                                         ("netops-oncall", "#netops-oncall")])
def test_good_channel_values(value: str, label: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_ONCALL_CHANNEL", value)
    monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
    got = read_settings()
    assert got.oncall_label == label and got.pager()


def _slack_env(monkeypatch: pytest.MonkeyPatch, fake: FakeSlackAPI, channel: str | None) -> None:
    for name in ("SLACK_ALLOWED_USERS", "SLACK_ALLOWED_CHANNELS", "SLACK_WEB_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SLACK_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("SLACK_API_URL", fake.api_url)
    if channel is None:
        monkeypatch.delenv("SLACK_ONCALL_CHANNEL", raising=False)
    else:
        monkeypatch.setenv("SLACK_ONCALL_CHANNEL", channel)


class _Request:
    username = None


def test_the_web_app_posts_the_draft_when_slack_has_a_channel(
        copilot: Copilot, fake: FakeSlackAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    from netopsai.ui.gradio.chat import ChatHandler
    from netopsai.ui.gradio.chat_tab import _ChatEvents

    _slack_env(monkeypatch, fake, "#netops-oncall")
    ev = _ChatEvents(ChatHandler(copilot))
    assert ev.pager is not None and ev.pager.oncall_label == "#netops-oncall"
    fake.reset()
    nothing = ev.post_page("w-page", "http://127.0.0.1:7860/?thread=w-page", _Request())
    assert "ask a question first" in nothing["label"] and fake.of("chat.postMessage") == []
    list(ev.chat.turn("trace 10.1.3.20 10.2.1.40", [], "w-page"))
    got = ev.post_page("w-page", "http://127.0.0.1:7860/?thread=w-page", _Request())
    [posted] = fake.of("chat.postMessage")
    assert posted["channel"] == "#netops-oncall" and posted["text"] == got["value"]
    assert posted["text"].startswith("[netopsai] ") and "dc1-leaf-03" in posted["text"].split("\n")[0]
    assert posted["text"].endswith("Thread: http://127.0.0.1:7860/?thread=w-page")
    assert got["label"] == "Posted to #netops-oncall."
    assert fake.auth_headers[-1] == f"Bearer {TOKEN}"  # the bot's token, from the environment

    fake.refuse.add("#netops-oncall")
    try:
        refused = ev.post_page("w-page", "http://x/?thread=w-page", _Request())
    finally:
        fake.refuse.discard("#netops-oncall")
    assert refused["label"] == "error: could not post to #netops-oncall: not_in_channel"


@pytest.mark.parametrize("channel", [None, "two words"])
def test_no_post_button_without_a_good_channel(channel: str | None, copilot: Copilot,
                                              fake: FakeSlackAPI,
                                              monkeypatch: pytest.MonkeyPatch,
                                              caplog: pytest.LogCaptureFixture) -> None:
    from netopsai.ui.gradio.chat import ChatHandler
    from netopsai.ui.gradio.chat_tab import _ChatEvents

    _slack_env(monkeypatch, fake, channel)
    ev = _ChatEvents(ChatHandler(copilot))
    assert ev.pager is None
    fake.reset()
    said = ev.post_page("w-page", "http://x/?thread=w-page", _Request())
    assert said["label"] == "no on-call channel configured" and fake.of("chat.postMessage") == []
    if channel:  # the bad value is one line in the log, not a traceback, never the token
        [warned] = [r.getMessage() for r in caplog.records if "on-call" in r.getMessage()]
        assert "SLACK_ONCALL_CHANNEL: must be" in warned and TOKEN not in warned


@pytest.mark.parametrize("channel", ["C0PAGER99", None])
def test_the_chat_tab_shows_post_only_with_a_channel(channel: str | None, copilot: Copilot,
                                                      fake: FakeSlackAPI,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import gradio as gr

    from netopsai.ui.gradio.chat_tab import chat_tab

    _slack_env(monkeypatch, fake, channel)
    with gr.Blocks() as app:
        chat_tab(app, copilot)
    [post] = [b for b in app.blocks.values() if getattr(b, "elem_id", None) == "page-post"]
    assert post.visible is (channel is not None)
    if channel:
        assert post.value == f"Post to {channel}"
