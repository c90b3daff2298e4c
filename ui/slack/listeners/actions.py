"""Buttons: "Show evidence" posts the rows behind an answer's citations in the answer's thread;
"Full table" opens a modal with every row of one big evidence table; "Open in netopsai" buttons
are links Slack opens itself (their click is only acknowledged)."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.ui.slack.blocks import EVIDENCE_ACTION, evidence_rows_blocks, message_text
from netopsai.ui.slack.links import OPEN_ACTION, TABLE_ACTION, table_modal
from netopsai.ui.slack.work import SlackContext, clicked, evidence_for


def show_evidence(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
                  client: WebClient) -> None:
    click = clicked(ctx, body, action, client)
    if click is None:
        return
    message = body.get("message") or {}
    thread_ts = message.get("thread_ts") or message.get("ts")
    ids = click.value.get("ids")
    evidence = (evidence_for(ctx.copilot, click.thread, [str(i) for i in ids])
                if click.of_this_channel() and isinstance(ids, list) else [])
    if not evidence:
        click.tell(client, "That evidence is no longer available.")
        return
    blocks = evidence_rows_blocks(evidence)
    client.chat_postMessage(channel=click.channel, thread_ts=thread_ts, blocks=blocks,
                            text=message_text(blocks))


def show_table(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
               client: WebClient) -> None:
    """The whole table of one evidence record in a modal (a message would cut it)."""
    click = clicked(ctx, body, action, client)
    if click is None:
        return
    eid = str(click.value.get("id") or "")
    found = evidence_for(ctx.copilot, click.thread, [eid]) if click.of_this_channel() and eid else []
    if not found or not body.get("trigger_id"):
        click.tell(client, "That table is no longer available.")
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
