"""The next move's buttons: an example after "I could not place this" asks that question in the
answer's thread (as if typed there); "Page the on-call" posts the thread's escalation draft to
SLACK_ONCALL_CHANNEL. Both after the allow-lists, both only for a conversation of the channel
the button was clicked in."""

from __future__ import annotations

import json
import re
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from netopsai.errors import NetopsError
from netopsai.nextmove import page_draft
from netopsai.ui.slack.blocks import mrkdwn
from netopsai.ui.slack.page import EXAMPLE_ACTION, PAGE_ACTION, post_page
from netopsai.ui.slack.work import Progress, SlackContext, answer_question, button_caller


def _value(action: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(action.get("value") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def ask_example(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
                client: WebClient) -> None:
    caller = button_caller(ctx, body, client)
    if caller is None:
        return
    user, channel = caller
    value = _value(action)
    question, thread = str(value.get("q") or "").strip(), str(value.get("t") or "")
    message = body.get("message") or {}
    root = str(message.get("thread_ts") or message.get("ts") or "")
    if not question or not root or thread != f"slack:{channel}:{root}":
        client.chat_postEphemeral(channel=channel, user=user,
                                  text="That example is no longer available; ask it in words.")
        return
    progress = Progress(client, channel, f"<@{user}> {mrkdwn(question[:200])}", thread_ts=root)
    answer_question(ctx, progress, question, user)


def _link(ctx: SlackContext, client: WebClient, channel: str, thread: str) -> str:
    """The thread's address: its Slack permalink, else the web app's thread page, else its id."""
    root = thread.rsplit(":", 1)[-1]
    try:
        got = client.chat_getPermalink(channel=channel, message_ts=root).get("permalink")
        if got:
            return str(got)
    except SlackApiError:
        pass
    if ctx.settings.web_base_url:
        from urllib.parse import quote

        return f"{ctx.settings.web_base_url}/?thread={quote(thread, safe='')}"
    return thread


def page(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
         client: WebClient) -> None:
    caller = button_caller(ctx, body, client)
    if caller is None:
        return
    user, channel = caller
    thread = str(_value(action).get("t") or "")
    saved = ctx.copilot.thread(thread) if thread.startswith(f"slack:{channel}:") else None
    if saved is None or not saved.answer:
        client.chat_postEphemeral(channel=channel, user=user,
                                  text="Nothing to page about in this thread.")
        return
    draft = page_draft(saved.answer, saved.question, _link(ctx, client, channel, thread))
    try:
        said = post_page(ctx.settings, f"{draft}\nPaged by <@{user}>", client)
    except NetopsError as exc:
        said = f":warning: {exc}"
    client.chat_postEphemeral(channel=channel, user=user, text=said)


def register(app: App, ctx: SlackContext) -> None:
    @app.action(re.compile(f"^{EXAMPLE_ACTION}_\\d+$"))
    def example(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()  # the answer comes as a new message in the thread
        ask_example(ctx, body, action, client)

    @app.action(PAGE_ACTION)
    def paged(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        page(ctx, body, action, client)
