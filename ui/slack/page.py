"""The next move in Slack (issue 26 items 8 and 9): the examples after "I could not place this"
as buttons that ask them in the thread (netopsai.copilot.nextmove.unplaced, the list the web app and the
terminal show), and "Page the on-call", which posts the escalation draft (netopsai.copilot.nextmove.
page_draft: headline first, what was asked, ruled out, the thread's link) to SLACK_ONCALL_CHANNEL
through the bot's Web API client. The web app's "Post to #channel" button posts through here
too, so the on-call channel receives one format whichever front end paged."""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from netopsai.common.errors import NetopsError
from netopsai.copilot.nextmove import unplaced
from netopsai.ui.slack.settings import SlackSettings

EXAMPLE_ACTION = "netops_example"  # action ids netops_example_0 .. _3
PAGE_ACTION = "netops_page"
log = logging.getLogger("netopsai.slack")


def _button(text: str, action: str, value: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"type": "button", "action_id": action, "value": json.dumps(value)[:2000],
            "text": {"type": "plain_text", "text": text[:75], "emoji": True}, **extra}


def short_unplaced(answer: str, thread: str) -> list[dict[str, Any]] | None:
    """A question not placed as the web app shows it: its one line in bold, then up to four
    examples as buttons (a click asks that one in this thread); None for any other answer."""
    from netopsai.ui.slack.blocks import context, mrkdwn, section

    short = unplaced(answer)
    if short is None:
        return None
    line, shown = short
    return [section(f"*{mrkdwn(line)}*"),
            context("Try one of these (a click asks it here), or ask *help* for everything "
                    "netopsai answers offline."),
            {"type": "actions", "block_id": EXAMPLE_ACTION, "elements": [
                _button(q, f"{EXAMPLE_ACTION}_{i}", {"t": thread, "q": q})
                for i, q in enumerate(shown)]}]


def page_button(settings: SlackSettings, thread: str) -> dict[str, Any] | None:
    """"Page the on-call" under an answer, only when an on-call channel is configured."""
    if not settings.pager():
        return None
    return _button(f"Page the on-call ({settings.oncall_label})"[:75], PAGE_ACTION, {"t": thread},
                   style="danger")


def client_for(settings: SlackSettings) -> WebClient:
    """The Web API client the bot uses (its token, its API address)."""
    token = settings.bot_token.get_secret_value() if settings.bot_token else None
    return WebClient(token=token, base_url=settings.api_url)


def post_page(settings: SlackSettings, draft: str, client: WebClient | None = None) -> str:
    """Post the draft to the on-call channel; what happened, in one line. Raises NetopsError
    (one line, Slack's error code, never the token) when it could not be posted."""
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
    from netopsai.ui.slack.settings import read_settings

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
