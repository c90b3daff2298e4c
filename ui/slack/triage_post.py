"""Auto-triage's poster (netopsai/api/triage.py diagnoses an Alertmanager alert; this posts the
answer into Slack as the bot does), kept with the Slack front end so the API imports none of it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from netopsai.common.errors import NetopsError
from netopsai.copilot.payload import answer_of

Post = Callable[[str, Mapping[str, Any], str], None]  # (channel, answer, thread): triage's Post


def slack_poster(zone: str = "UTC") -> Post:
    """Posts the answer as the Slack bot does (SLACK_BOT_TOKEN, SLACK_API_URL), its times on the
    network's clock (`zone`: the copilot's `backends.zone`)."""
    from slack_sdk import WebClient

    from netopsai.ui.slack.blocks import answer_blocks, split_answer
    from netopsai.ui.slack.settings import SlackSettings

    settings = SlackSettings()
    if settings.bot_token is None:
        raise NetopsError("auto-triage rules are set but SLACK_BOT_TOKEN is not")
    client = WebClient(token=settings.bot_token.get_secret_value(), base_url=settings.api_url)

    def post(channel: str, answer: Mapping[str, Any], thread: str) -> None:
        head, _ = split_answer(answer_of(answer).get("answer", ""))
        client.chat_postMessage(channel=channel, text=head[:3000],
                                blocks=answer_blocks(answer, thread, zone=zone))
    return post
