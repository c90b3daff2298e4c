"""The thumbs-up on an answer: the on-call confirms the diagnosis, which joins incident memory
(netopsai.diagnosis.memory) so the next occurrence of the fault is recognised sooner."""

from __future__ import annotations

import json
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.errors import NetopsError
from netopsai.ui.slack.blocks import CONFIRM_ACTION
from netopsai.ui.slack.work import SlackContext, button_caller


def confirm_diagnosis(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
                      client: WebClient) -> None:
    caller = button_caller(ctx, body, client)
    if caller is None:
        return
    user, channel = caller
    thread = str(json.loads(action.get("value") or "{}").get("t", ""))
    if not thread.startswith(f"slack:{channel}:"):  # only a conversation of this channel
        client.chat_postEphemeral(channel=channel, user=user, text="That diagnosis is not here.")
        return
    try:
        row = ctx.copilot.confirm(thread, f"slack:{user}", "slack")
    except NetopsError as exc:
        client.chat_postEphemeral(channel=channel, user=user, text=str(exc))
        return
    client.chat_postEphemeral(channel=channel, user=user, text=(
        f":white_check_mark: Saved to incident memory: `{row.label}` at {row.device or '-'}."))


def register(app: App, ctx: SlackContext) -> None:
    @app.action(CONFIRM_ACTION)
    def thumbs_up(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        confirm_diagnosis(ctx, body, action, client)
