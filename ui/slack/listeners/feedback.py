"""The thumbs-up on an answer: the on-call confirms the diagnosis, which joins incident memory
(netopsai.diagnosis.memory) so the next occurrence of the fault is recognised sooner."""

from __future__ import annotations

from typing import Any

from slack_bolt import App
from slack_sdk import WebClient

from netopsai.common.errors import NetopsError
from netopsai.ui.slack.blocks import CONFIRM_ACTION
from netopsai.ui.slack.work import SlackContext, clicked


def confirm_diagnosis(ctx: SlackContext, body: dict[str, Any], action: dict[str, Any],
                      client: WebClient) -> None:
    click = clicked(ctx, body, action, client)
    if click is None:
        return
    if not click.of_this_channel():
        click.tell(client, "That diagnosis is not here.")
        return
    try:
        row = ctx.copilot.confirm(click.thread, f"slack:{click.user}", "slack")
    except NetopsError as exc:
        click.tell(client, str(exc))
        return
    click.tell(client, f":white_check_mark: Saved to incident memory: `{row.label}` at "
                       f"{row.device or '-'}.")


def register(app: App, ctx: SlackContext) -> None:
    @app.action(CONFIRM_ACTION)
    def thumbs_up(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        confirm_diagnosis(ctx, body, action, client)
