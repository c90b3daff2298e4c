"""The next move in Slack (issue 26 items 8 and 9): the examples after "I could not place this"
as buttons that ask them in the thread (netopsai.copilot.nextmove.unplaced, the list the web app and the
terminal show), and "Page the on-call", which posts the escalation draft (netopsai.copilot.nextmove.
page_draft: headline first, what was asked, ruled out, the thread's link) to SLACK_ONCALL_CHANNEL
through the bot's Web API client (netopsai.copilot.oncall, which the web app's "Post to
#channel" button posts through too, so the on-call channel receives one format)."""

from __future__ import annotations

import json
import logging
from typing import Any

from netopsai.config.slack import SlackSettings
from netopsai.copilot.nextmove import unplaced
from netopsai.copilot.oncall import client_for, post_page

__all__ = ["EXAMPLE_ACTION", "PAGE_ACTION", "client_for", "page_button", "post_page",
           "short_unplaced"]

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
