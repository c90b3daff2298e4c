"""Ack and Silence on an alarm line: recorded in our store through the copilot's door
(netopsai.copilot.doors.record_ack, as the web app's Alarms tab does, on the same store) as
the Slack user who clicked (`slack:USER`), after the allow-lists; the line in the message
then says who acked it."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from netopsai.common.errors import NetopsError
from netopsai.copilot.doors import acks_store, record_ack, silence_end
from netopsai.ui.slack.alarm_list import ACK_ACTION, SILENCE_ACTION, SILENCE_FOR, ack_texts
from netopsai.ui.slack.blocks import mrkdwn
from netopsai.ui.slack.work import SlackContext, clicked

log = logging.getLogger("netopsai.slack")
DONE = {"ack": "acknowledged", "silence": f"silenced for {SILENCE_FOR}"}


def _alarm_id(value: dict[str, Any]) -> int:
    try:
        return int(value["a"])
    except (ValueError, TypeError, KeyError):
        raise NetopsError("that button does not name an alarm") from None


def act(ctx: SlackContext, kind: str, body: dict[str, Any], action: dict[str, Any],
        client: WebClient) -> None:
    click = clicked(ctx, body, action, client)
    if click is None:
        return
    user, channel = click.user, click.channel
    backends = ctx.copilot.backends
    try:
        alarm_id = _alarm_id(click.value)
        engine, now = acks_store(backends), backends.inventory.clock()
        until = silence_end(now, SILENCE_FOR) if kind == "silence" else None
        record_ack(backends, alarm_id, kind, f"slack:{user}", "from Slack", now, until, engine)
    except NetopsError as exc:
        client.chat_postEphemeral(channel=channel, user=user, text=f":warning: {exc}")
        return
    state = ack_texts(engine, [alarm_id], now, backends.zone).get(alarm_id, "")
    _mark_line(client, channel, body.get("message") or {}, alarm_id, state)
    client.chat_postEphemeral(channel=channel, user=user, text=(
        f":white_check_mark: Alarm #{alarm_id} {DONE[kind]} (stored in netopsai, not on the "
        "device; the web app's Alarms tab shows it)."))


def _mark_line(client: WebClient, channel: str, message: dict[str, Any], alarm_id: int,
               state: str) -> None:
    """The alarm's line in the message, with its new state in place of the old one."""
    blocks = message.get("blocks")
    if not isinstance(blocks, list) or not message.get("ts") or not state:
        return
    for b in blocks:
        if isinstance(b, dict) and b.get("block_id") == f"netops_alarm_{alarm_id}":
            text = str(b.get("text", {}).get("text", ""))
            text = text.rsplit(" · _", 1)[0] if text.endswith("_") else text
            b["text"] = {"type": "mrkdwn", "text": f"{text} · _{mrkdwn(state)}_"}
    try:
        client.chat_update(channel=channel, ts=message["ts"], blocks=blocks,
                           text=str(message.get("text") or "netopsai"))
    except SlackApiError as exc:  # the ack is stored; only the line could not be redrawn
        log.warning("could not update the alarm line: %s", exc.response.get("error"))


def register(app: App, ctx: SlackContext) -> None:
    @app.action(ACK_ACTION)
    def ack_alarm(ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient) -> None:
        ack()
        act(ctx, "ack", body, action, client)

    @app.action(SILENCE_ACTION)
    def silence_alarm(ack: Any, body: dict[str, Any], action: dict[str, Any],
                      client: WebClient) -> None:
        ack()
        act(ctx, "silence", body, action, client)
