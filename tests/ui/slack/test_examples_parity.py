"""A question not placed reads the same in every front end (issue 26 item 9): one line and up to
four examples, all from netopsai.copilot.nextmove (the web app's chips, the terminal's numbered list,
the Slack bot's buttons). In `netopsai chat` typing a number asks that example; in Slack a
click on an example (a signed request) asks it in the answer's thread."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from rich.console import Console

from netopsai.backends.lab import lab_backends
from netopsai.cli.chat import run_chat
from netopsai.cli.render import print_answer
from netopsai.copilot.nextmove import UNPLACED, unplaced
from netopsai.copilot.service import Copilot, Step
from netopsai.lab.manage import init_lab
from netopsai.store.engine import engine_for
from netopsai.ui.gradio import nextmove as web
from netopsai.ui.slack.page import EXAMPLE_ACTION
from netopsai.ui.slack.settings import SlackSettings
from netopsai_testkit.fake_slack_api import FakeSlackAPI, SlackSender, served_bot

SECRET = "examples-signing-secret-5e1a"
TOKEN = "xoxb-examples-token-90b2"
ONCALL, OPS = "UONCALL", "COPS"
ODD = "make me a sandwich"


@pytest.fixture(scope="module")
def copilot(tmp_path_factory: pytest.TempPathFactory) -> Copilot:
    engine = engine_for(f"sqlite:///{tmp_path_factory.mktemp('examples') / 'lab.db'}")
    init_lab(engine, "default", "small", 7, datetime(2025, 11, 4, 20, 0, tzinfo=UTC))
    return Copilot(lab_backends(engine))


@pytest.fixture(scope="module")
def odd_answer(copilot: Copilot) -> str:
    return str(copilot.answer(ODD, "examples-odd")["answer"])


def test_one_builder_for_every_front_end(odd_answer: str) -> None:
    assert web.examples is unplaced.__globals__["examples"]  # the web app re-exports it
    line, shown = unplaced(odd_answer) or ("", [])
    assert line.startswith(UNPLACED) and line.endswith(".") and "\n" not in line
    assert 2 <= len(shown) <= 4 and shown == web.examples(odd_answer)
    assert unplaced("64 hosts in dc1-pod1. [E1]") is None


def test_the_terminal_prints_one_line_and_numbered_examples(odd_answer: str) -> None:
    out = io.StringIO()
    shown = print_answer(odd_answer, Console(file=out, width=200))
    text = out.getvalue()
    _, examples = unplaced(odd_answer) or ("", [])
    assert shown == examples
    for i, q in enumerate(examples, 1):
        assert f"  {i}. {q}\n" in text
    assert "Offline, I can answer" not in text  # the long list is gone
    assert text.count(UNPLACED) == 1  # the headline is that line: not printed twice
    assert 'netopsai ask "QUESTION"' in text


class _Recorder:
    """A copilot stand-in for the chat loop: records each question, answers the odd one with
    the real "could not place" answer and anything else with a one-line answer."""

    def __init__(self, odd: str) -> None:
        self.odd, self.asked = odd, []  # type: list[str]

    def warm_up(self) -> None:
        pass

    def ask(self, question: str, thread: str) -> Iterator[Step]:
        self.asked.append(question)
        answer = self.odd if question == ODD else f"Answered: {question}."
        yield Step("summarizer", {"answer": answer})
        yield Step("done")


def test_chat_asks_an_example_by_its_number(odd_answer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    typed = iter([ODD, "2", "7", "exit"])
    out = io.StringIO()
    console = Console(file=out, width=200)
    monkeypatch.setattr(console, "input", lambda *a, **k: next(typed))
    rec = _Recorder(odd_answer)
    run_chat(rec, "t1", console)  # type: ignore[arg-type]
    _, examples = unplaced(odd_answer) or ("", [])
    # "2" asked the second example; "7" (no such example, and none offered after a placed
    # answer) is asked as typed
    assert rec.asked == [ODD, examples[1], "7"]
    assert "Type its number to ask it." in out.getvalue()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


@pytest.fixture(scope="module")
def bot(copilot: Copilot, fake: FakeSlackAPI) -> Iterator[str]:
    settings = SlackSettings.model_validate({
        "bot_token": TOKEN, "signing_secret": SECRET, "api_url": fake.api_url,
        "allowed_users": [ONCALL], "allowed_channels": [OPS]})
    yield from served_bot(copilot, settings, fake)


def _buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for b in blocks if b.get("block_id") == EXAMPLE_ACTION for e in b["elements"]]


def test_slack_shows_the_same_examples_as_buttons_and_a_click_asks_one(
        bot: str, fake: FakeSlackAPI, copilot: Copilot) -> None:
    fake.reset()
    s = SlackSender(bot, SECRET, f"{fake.base}/response/1")
    assert s.slash(ODD, ONCALL, OPS)[0] == 200
    reply = fake.of("chat.update")[-1]
    thread = f"slack:{OPS}:{reply['ts']}"
    line, examples = unplaced(copilot.thread(thread).answer) or ("", [])
    text = json.dumps(reply["blocks"])
    assert line in reply["text"] and "Offline, I can answer" not in text
    buttons = _buttons(reply["blocks"])
    assert [b["text"]["text"] for b in buttons] == examples
    pick = buttons[2]

    fake.reset()
    message = {"type": "message", "ts": reply["ts"], "text": reply["text"], "blocks": reply["blocks"]}
    assert s.click(pick["action_id"], pick["value"], ONCALL, OPS, message)[0] == 200
    [placeholder] = fake.of("chat.postMessage")
    assert placeholder["thread_ts"] == reply["ts"]  # in the answer's thread
    assert copilot.thread(thread).question == examples[2]  # the same conversation, asked
    assert UNPLACED not in copilot.thread(thread).answer

    fake.reset()  # a stranger's click, or one naming another channel's thread, asks nothing
    assert s.click(pick["action_id"], json.dumps({"t": "slack:COTHER:1.2", "q": "x"}),
                   ONCALL, OPS, message)[0] == 200
    assert fake.of("chat.postMessage") == [] and "no longer" in fake.of("chat.postEphemeral")[0]["text"]
    assert s.click(pick["action_id"], pick["value"], "USTRANGER", OPS, message)[0] == 200
    assert fake.of("chat.postMessage") == [] and "allow-list" in fake.of("chat.postEphemeral")[-1]["text"]
