"""Buttons: "Show evidence" posts the rows behind an answer's citations in the answer's thread."""

from __future__ import annotations

import json
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.ui.slack.blocks import EVIDENCE_ACTION, evidence_rows_blocks, message_text
from netopsai.ui.slack.work import SlackContext, button_caller, evidence_for


def show_evidence(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
                  client: WebClient) -> None:
    caller = button_caller(ctx, body, client)
    if caller is None:
        return
    user, channel = caller
    value = json.loads(action.get("value") or "{}")
    thread = str(value.get("t", ""))
    message = body.get("message") or {}
    thread_ts = message.get("thread_ts") or message.get("ts")
    # a button only shows evidence of a conversation in the channel it was clicked in
    evidence = (evidence_for(ctx.copilot, thread, list(value.get("ids", [])))
                if thread.startswith(f"slack:{channel}:") else [])
    if not evidence:
        client.chat_postEphemeral(channel=channel, user=user,
                                  text="That evidence is no longer available.")
        return
    blocks = evidence_rows_blocks(evidence)
    client.chat_postMessage(channel=channel, thread_ts=thread_ts, blocks=blocks,
                            text=message_text(blocks))


def register(app: App, ctx: SlackContext) -> None:
    @app.action(EVIDENCE_ACTION)
    def evidence(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()  # Slack wants the ack within 3 s; the rows come as a new message
        show_evidence(ctx, body, action, client)
