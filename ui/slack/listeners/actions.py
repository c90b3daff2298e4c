"""Buttons: "Show evidence" posts the rows behind an answer's citations in the answer's thread;
"Full table" opens a modal with every row of one big evidence table; "Open in netopsai" buttons
are links Slack opens itself (their click is only acknowledged)."""

from __future__ import annotations

import json
import re
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.ui.slack.blocks import EVIDENCE_ACTION, evidence_rows_blocks, message_text
from netopsai.ui.slack.links import OPEN_ACTION, TABLE_ACTION, table_modal
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


def show_table(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
               client: WebClient) -> None:
    """The whole table of one evidence record in a modal (a message would cut it)."""
    caller = button_caller(ctx, body, client)
    if caller is None:
        return
    user, channel = caller
    value = json.loads(action.get("value") or "{}")
    thread, eid = str(value.get("t", "")), str(value.get("id", ""))
    found = (evidence_for(ctx.copilot, thread, [eid])
             if thread.startswith(f"slack:{channel}:") and eid else [])
    if not found or not body.get("trigger_id"):
        client.chat_postEphemeral(channel=channel, user=user,
                                  text="That table is no longer available.")
        return
    client.views_open(trigger_id=body["trigger_id"], view=table_modal(found[0]))


def register(app: App, ctx: SlackContext) -> None:
    @app.action(re.compile(f"^{TABLE_ACTION}_\\d+$"))
    def table(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()  # the trigger id lasts 3 s: the modal opens right after
        show_table(ctx, body, action, client)

    @app.action(re.compile(f"^{OPEN_ACTION}_"))
    def opened(ack: Any) -> None:
        ack()  # a link button: Slack opened the URL; nothing else to do

    @app.action(EVIDENCE_ACTION)
    def evidence(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()  # Slack wants the ack within 3 s; the rows come as a new message
        show_evidence(ctx, body, action, client)
