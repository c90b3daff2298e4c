"""A Slack thread's "Open in netopsai" link in the web app (issue 26): the bot signs the link
with the signing secret it shares with the web app; the web app shows that conversation
read-only (its question, answer and evidence) with a note that it lives in Slack, and a
follow-up goes on in a new web thread seeded with it, Slack's thread untouched. An unsigned,
tampered or foreign link reads nothing of it; with web login on only SLACK_WEB_READERS may."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from netopsai.config.slack import SlackSettings
from netopsai.copilot.service import Copilot
from netopsai.ui.gradio.chat import ChatHandler
from netopsai.ui.gradio.slack_thread import is_slack, open_slack
from netopsai.ui.slack.links import open_buttons

SECRET = "slack-link-secret-9d41"
KEY = "slack:COPS123:1700000100.000200"
QUESTION = "who owns 10.1.3.20?"


@pytest.fixture(scope="module")
def chat(backends: Any) -> ChatHandler:
    chat = ChatHandler(Copilot(backends))
    chat.copilot.answer(QUESTION, KEY)  # the conversation the Slack bot had
    return chat


@pytest.fixture(autouse=True)
def _secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_SIGNING_SECRET", SECRET)
    monkeypatch.delenv("SLACK_WEB_READERS", raising=False)


def _link_sig() -> str:
    """The signature as the bot puts it in its "Open in netopsai" button."""
    settings = SlackSettings(signing_secret=SECRET)
    block = open_buttons("https://netops.example", KEY, {}, settings.thread_sig(KEY))
    assert block is not None
    url = block["elements"][0]["url"]
    query = parse_qs(urlsplit(url).query)
    assert query["thread"] == [KEY] and is_slack(query["thread"][0])
    return query["sig"][0]


def _turns(chat: ChatHandler, key: str) -> int:
    return len(chat.copilot.thread(key).turns)


def test_the_slack_link_shows_the_conversation_read_only(chat: ChatHandler) -> None:
    tid, view = open_slack(chat, KEY, _link_sig(), None)
    shown = " ".join(str(getattr(m, "content", m.get("content") if isinstance(m, dict) else m))
                     for m in view.history)
    assert QUESTION in shown and "dc1-host-03-1" in shown  # its question and its answer
    assert 'id="ev-' in view.evidence  # and its evidence panel
    assert "From Slack (channel COPS123), read-only" in str(view.history[0]["content"])
    assert "lives in Slack" in view.status and "read-only" in view.status and tid in view.status
    assert not is_slack(tid)  # the page goes on in a web thread of its own


def test_a_follow_up_goes_on_in_a_new_web_thread_seeded_with_it(chat: ChatHandler) -> None:
    before = _turns(chat, KEY)
    tid, view = open_slack(chat, KEY, _link_sig(), None)
    last = list(chat.turn("and its upstream switch?", view.history, tid))[-1]
    assert "dc1-leaf-03" in str(last.history[-2:])  # "its": 10.1.3.20's, from the Slack turn
    web = chat.conversation(tid)
    assert [t.question for t in web.turns] == [QUESTION, "and its upstream switch?"]
    assert _turns(chat, KEY) == before  # Slack's thread is only read


@pytest.mark.parametrize("sig", ["", "0" * 32, "tampered"])
def test_an_unsigned_or_tampered_link_reads_nothing(chat: ChatHandler, sig: str) -> None:
    tid, view = open_slack(chat, KEY, sig, None)
    assert view.history == [] and "not signed by the bot" in view.status
    assert QUESTION not in view.status and not chat.conversation(tid).turns


def test_a_signature_is_for_its_thread_only(chat: ChatHandler) -> None:
    other = "slack:COTHER1:1700000999.000100"
    chat.copilot.answer(QUESTION, other)
    _, view = open_slack(chat, other, _link_sig(), None)  # KEY's signature on another thread
    assert view.history == [] and "not signed" in view.status


def test_without_a_shared_secret_slack_threads_stay_closed(chat: ChatHandler,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    sig = _link_sig()
    monkeypatch.delenv("SLACK_SIGNING_SECRET")
    _, view = open_slack(chat, KEY, sig, None)
    assert view.history == [] and "SLACK_SIGNING_SECRET" in view.status


def test_with_login_only_the_configured_readers_may(chat: ChatHandler,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    sig = _link_sig()
    _, view = open_slack(chat, KEY, sig, "alice")  # login on, no readers configured: nobody
    assert view.history == [] and "SLACK_WEB_READERS" in view.status
    monkeypatch.setenv("SLACK_WEB_READERS", "alice,bob")
    _, theirs = open_slack(chat, KEY, sig, "mallory")
    assert theirs.history == [] and "may not read Slack threads" in theirs.status
    tid, hers = open_slack(chat, KEY, sig, "alice")
    assert hers.history and "lives in Slack" in hers.status
    # the seeded copy is alice's own web thread: another user does not find it under its id
    assert chat.conversation(tid, "alice").turns and not chat.conversation(tid, "mallory").turns
