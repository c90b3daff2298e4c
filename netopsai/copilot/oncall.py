"""Paging the on-call: the escalation draft (nextmove.page_draft) posted to SLACK_ONCALL_CHANNEL
through the Slack bot's Web API client, one format whichever front end paged (the Slack bot's
"Page the on-call" button, the web app's "Post to #channel"). Below the front ends so neither
imports the other (issue 27)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from netopsai.common.errors import NetopsError
from netopsai.config.slack import SlackSettings

if TYPE_CHECKING:
    from slack_sdk import WebClient

log = logging.getLogger("netopsai.slack")


def client_for(settings: SlackSettings) -> WebClient:
    """The Web API client the bot uses (its token, its API address)."""
    from slack_sdk import WebClient

    token = settings.bot_token.get_secret_value() if settings.bot_token else None
    return WebClient(token=token, base_url=settings.api_url)


def post_page(settings: SlackSettings, draft: str, client: WebClient | None = None) -> str:
    """Post the draft to the on-call channel; what happened, in one line. Raises NetopsError
    (one line, Slack's error code, never the token) when it could not be posted."""
    from slack_sdk.errors import SlackApiError

    if not settings.pager():
        raise NetopsError("no on-call channel is configured (set SLACK_BOT_TOKEN and "
                          "SLACK_ONCALL_CHANNEL)")
    assert settings.oncall_channel is not None  # pager()
    client = client or client_for(settings)
    try:
        client.chat_postMessage(channel=settings.oncall_channel, text=draft, unfurl_links=False)
    except SlackApiError as exc:
        code = str(exc.response.get("error") or "error")
        log.warning("page to the on-call channel failed: %s", code)
        raise NetopsError(f"could not post to {settings.oncall_label}: {code}") from None
    except OSError as exc:  # Slack out of reach
        raise NetopsError(f"could not post to {settings.oncall_label}: "
                          f"{type(exc).__name__}") from None
    return f"Posted to {settings.oncall_label}."


def web_pager() -> SlackSettings | None:
    """The Slack settings the web app's "Post to #channel" button posts with, or None (no
    button) when SLACK_BOT_TOKEN or SLACK_ONCALL_CHANNEL is unset or a SLACK_* value is bad
    (that one line is logged, never a value: it may be a token)."""
    from netopsai.config.slack import read_settings

    try:
        settings = read_settings()
    except NetopsError as exc:
        log.warning("no Post to the on-call channel: %s", exc)
        return None
    return settings if settings.pager() else None


def web_post(settings: SlackSettings, draft: str) -> str:
    """The web app's click: post a draft (one that has a headline) and say what happened."""
    if not draft.startswith("[netopsai] "):  # "Nothing to page about yet", or an error line
        return draft
    try:
        return post_page(settings, draft)
    except NetopsError as exc:
        return f"error: {exc}"
