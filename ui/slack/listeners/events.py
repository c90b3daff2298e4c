"""Mentions and DMs are chat: each Slack thread is one copilot thread, so follow-ups in a thread
carry its context. A DM (or mention) starting with "batch" runs batch checks, from the words that
follow or from an attached CSV/TXT file (read through the files API)."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.ui.slack.batch import file_text, inline_lines, run_batch
from netopsai.ui.slack.blocks import help_blocks, message_text, mrkdwn
from netopsai.ui.slack.work import Progress, SlackContext, answer_question

MENTION = re.compile(r"<@[A-Z0-9]+>")
IGNORED_SUBTYPES = {"bot_message", "message_changed", "message_deleted", "channel_join",
                    "channel_leave", "thread_broadcast"}


def chat(ctx: SlackContext, event: dict[str, Any], client: WebClient, is_dm: bool) -> None:
    """Answer one message in its thread (a top-level message starts a thread)."""
    user, channel = event.get("user", ""), event["channel"]
    text = MENTION.sub("", event.get("text") or "").strip()
    is_batch = re.match(r"batch\b", text, re.IGNORECASE) is not None
    denial = ctx.settings.denial(user, channel, is_dm, batch=is_batch)
    thread_ts = event.get("thread_ts") or event["ts"]
    if denial:
        client.chat_postEphemeral(channel=channel, user=user, thread_ts=thread_ts,
                                  text=f":no_entry: Sorry, {denial}.")
        return
    if not text or text.lower() == "help":
        blocks = help_blocks(ctx.settings.command)
        client.chat_postMessage(channel=channel, thread_ts=thread_ts, blocks=blocks,
                                text=message_text(blocks))
        return
    progress = Progress(client, channel, f"<@{user}> {mrkdwn(text[:200])}", thread_ts=thread_ts)
    if is_batch:
        _batch(ctx, progress, event, client, text[len("batch"):].strip(), user)
    else:
        answer_question(ctx, progress, text, user)


def _batch(ctx: SlackContext, progress: Progress, event: dict[str, Any], client: WebClient,
           inline: str, user: str) -> None:
    files = event.get("files") or []
    limit = ctx.settings.max_file_bytes

    def load() -> str:  # an attached file wins over words after "batch"
        return file_text(client, files[0]["id"], limit) if files else inline_lines(inline)
    run_batch(ctx, progress, load, user)


def register(app: App, ctx: SlackContext) -> None:
    @app.event("app_mention")
    def mention(event: dict[str, Any], client: WebClient) -> None:
        chat(ctx, event, client, is_dm=False)

    @app.event("message")
    def message(event: dict[str, Any], client: WebClient) -> None:
        # in channels only mentions are for the bot (app_mention above); DMs are all for it
        if event.get("channel_type") != "im" or event.get("bot_id"):
            return
        if event.get("subtype") in IGNORED_SUBTYPES:
            return
        chat(ctx, event, client, is_dm=True)
