"""The next move's buttons: an example after "I could not place this" asks that question in the
answer's thread (as if typed there); "Page the on-call" posts the thread's escalation draft to
SLACK_ONCALL_CHANNEL. Both after the allow-lists, both only for a conversation of the channel
the button was clicked in."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from netopsai.common.errors import NetopsError
from netopsai.copilot.nextmove import page_draft
from netopsai.ui.slack.blocks import mrkdwn
from netopsai.ui.slack.page import EXAMPLE_ACTION, PAGE_ACTION, post_page
from netopsai.ui.slack.work import Progress, SlackContext, answer_question, clicked, thread_id


def ask_example(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
                client: WebClient) -> None:
    click = clicked(ctx, body, action, client)
    if click is None:
        return
    question = str(click.value.get("q") or "").strip()
    message = body.get("message") or {}
    root = str(message.get("thread_ts") or message.get("ts") or "")
    if not question or not root or click.thread != thread_id(click.channel, root):
        click.tell(client, "That example is no longer available; ask it in words.")
        return
    progress = Progress(client, click.channel, f"<@{click.user}> {mrkdwn(question[:200])}",
                        thread_ts=root)
    answer_question(ctx, progress, question, click.user)


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
    click = clicked(ctx, body, action, client)
    if click is None:
        return
    saved = ctx.copilot.thread(click.thread) if click.of_this_channel() else None
    if saved is None or not saved.answer:
        click.tell(client, "Nothing to page about in this thread.")
        return
    draft = page_draft(saved.answer, saved.question,
                       _link(ctx, client, click.channel, click.thread))
    try:
        said = post_page(ctx.settings, f"{draft}\nPaged by <@{click.user}>", client)
    except NetopsError as exc:
        said = f":warning: {exc}"
    click.tell(client, said)


def register(app: App, ctx: SlackContext) -> None:
    @app.action(re.compile(f"^{EXAMPLE_ACTION}_\\d+$"))
    def example(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()  # the answer comes as a new message in the thread
        ask_example(ctx, body, action, client)

    @app.action(PAGE_ACTION)
    def paged(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        page(ctx, body, action, client)
