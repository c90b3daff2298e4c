"""Long work in Slack: a placeholder message updated (chat.update) as the copilot's steps stream,
then replaced by the answer. Shared by the command and event listeners."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from netopsai.common.errors import NetopsError
from netopsai.copilot import threads
from netopsai.copilot.evidence import citations
from netopsai.copilot.payload import EvidenceDump
from netopsai.copilot.service import Copilot, Step
from netopsai.copilot.steps import describe
from netopsai.ui.slack.blocks import answer_blocks, message_text, progress_blocks, section
from netopsai.ui.slack.settings import SlackSettings

Blocks = list[dict[str, Any]]
log = logging.getLogger("netopsai.slack")


@dataclass
class SlackContext:
    """What every listener needs: the one copilot and the surface's settings."""

    copilot: Copilot
    settings: SlackSettings


@dataclass
class Click:
    """A button press let through the allow-lists: who, where, and the button's value (a JSON
    object the bot wrote; anything else, as a forged click may send, reads as empty)."""

    user: str
    channel: str
    value: dict[str, Any]

    @property
    def thread(self) -> str:
        return str(self.value.get("t") or "")

    def of_this_channel(self) -> bool:
        """A button acts only on a conversation of the channel it was clicked in."""
        return threads.belongs(self.thread, "slack", self.channel)

    def tell(self, client: WebClient, text: str) -> None:
        client.chat_postEphemeral(channel=self.channel, user=self.user, text=text)


def clicked(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
            client: WebClient) -> Click | None:
    """The press, or None after telling the clicker the allow-lists keep them out."""
    user, channel = body["user"]["id"], body["channel"]["id"]
    denial = ctx.settings.denial(user, channel, is_dm=channel.startswith("D"))
    if denial:
        client.chat_postEphemeral(channel=channel, user=user, text=f":no_entry: Sorry, {denial}.")
        return None
    try:
        value = json.loads(action.get("value") or "{}")
    except ValueError:
        value = {}
    return Click(user, channel, value if isinstance(value, dict) else {})


def thread_id(channel: str, thread_ts: str) -> str:
    """A Slack thread is one copilot conversation thread."""
    return threads.key("slack", channel, thread_ts)


@dataclass
class Progress:
    """A placeholder message that shows each step, then the answer. When the bot cannot post in
    the channel (not a member), progress is skipped and `fallback` delivers the answer."""

    client: WebClient
    channel: str
    title: str
    thread_ts: str | None = None
    fallback: Callable[[Blocks], Any] | None = None
    ts: str | None = None
    root: str = ""  # the thread this work belongs to (its placeholder starts one when it had none)
    lines: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Progress:
        blocks = progress_blocks(self.title, [])
        try:
            resp = self.client.chat_postMessage(channel=self.channel, thread_ts=self.thread_ts,
                                                blocks=blocks, text=message_text(blocks))
            self.ts = resp["ts"]
        except SlackApiError as exc:
            if self.fallback is None:
                raise
            log.warning("cannot post in %s (%s); answering through the response URL",
                        self.channel, exc.response.get("error"))
        self.root = self.thread_ts or self.ts or f"cmd-{threads.new_id('slack')}"
        return self

    def step(self, line: str) -> None:
        with self._lock:  # batch results arrive from worker threads
            self.lines.append(line)
            if self.ts:
                blocks = progress_blocks(self.title, self.lines)
                self.client.chat_update(channel=self.channel, ts=self.ts, blocks=blocks,
                                        text=message_text(blocks))

    def finish(self, blocks: Blocks) -> None:
        if self.ts:
            self.client.chat_update(channel=self.channel, ts=self.ts, blocks=blocks,
                                    text=message_text(blocks))
        elif self.fallback is not None:
            self.fallback(blocks)

    def fail(self, message: str) -> None:
        self.finish([section(f":warning: {message}")])


def stream_answer(copilot: Copilot, question: str, thread: str, user: str,
                  on_line: Callable[[str], None]) -> dict[str, Any]:
    """Ask, reporting each step as a line, then the answer as `Copilot.answer` returns it."""
    steps: list[Step] = []
    for step in copilot.ask(question, thread, user):
        steps.append(step)
        if step.node not in ("summarizer", "done"):
            on_line(f"{describe(step)} ({step.ms:.0f} ms)")
    saved = copilot.thread(thread)
    diag, answer = saved.diagnosis, saved.answer
    return {"answer": answer, "citations": citations(answer),
            "root_cause": {k: diag.get(k) for k in ("label", "device", "interface", "confidence")}
            if diag else None,
            "evidence": saved.turn_evidence,
            "steps": [s.as_dict() for s in steps]}


def evidence_for(copilot: Copilot, thread: str, ids: list[str]) -> list[EvidenceDump]:
    """The evidence records (with their rows) a thread's answer cited, from its checkpoint."""
    return copilot.thread(thread).cited(ids)


def guarded(progress: Progress, work: Callable[[], Blocks]) -> None:
    """Run the work and show its blocks. A bad request is its one-line message; anything else is
    logged and shown by type only (an unknown error's text is not for the channel)."""
    try:
        progress.finish(work())
    except NetopsError as exc:
        progress.fail(str(exc))
    except Exception as exc:  # the on-call must not be left with an hourglass
        log.exception("slack request failed: %s", type(exc).__name__)
        progress.fail(f"internal error ({type(exc).__name__}); the bot's log has the details")


def render(ctx: SlackContext, result: dict[str, Any], thread: str) -> Blocks:
    """The answer's blocks: its alarms as a list with their buttons (with each one's ack from
    the store), Open buttons when the web app's address is configured. An alarm list that
    cannot read the acks is left out, logged: the answer itself still goes out."""
    from netopsai.ui.slack.alarm_list import list_for

    try:
        alarms = list_for(result, ctx.copilot.backends)
    except Exception as exc:  # the answer matters more than its buttons
        log.warning("alarm list left out: %s", type(exc).__name__)
        alarms = []
    from netopsai.ui.slack.page import page_button

    return answer_blocks(result, thread, base_url=ctx.settings.web_base_url, alarm_blocks=alarms,
                         page=page_button(ctx.settings, thread), zone=ctx.copilot.backends.zone,
                         link_sig=ctx.settings.thread_sig(thread))


def answer_question(ctx: SlackContext, progress: Progress, question: str, user: str) -> None:
    """One chat turn: progress in the placeholder, then the answer in Block Kit."""
    def work() -> Blocks:
        thread = thread_id(progress.channel, progress.root)
        result = stream_answer(ctx.copilot, question, thread, user, progress.step)
        return render(ctx, result, thread)
    guarded(progress.start(), work)
