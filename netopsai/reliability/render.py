"""The report's own text rules (issue 27 item 6): the digest and the terminal table render
through here, so reliability imports neither the Slack bot (ui/slack) nor the CLI (cli/), which
sit above it. The rules are the ones those front ends use, kept the same so that the text out
is unchanged: tests/test_reliability_render.py compares both, and the digest with its text
before the move."""

from __future__ import annotations

import re
import sys

from rich.console import Console

PIPE_WIDTH = 100_000  # not a terminal: no wrapping, no ellipsis (as the CLI's tables)


def mrkdwn(text: str) -> str:
    """Text as Slack mrkdwn: &, < and > escaped (so no `<!channel>` and no `<url|link>` from a
    network name), markdown bold as *x*, a leading '- ' or '* ' as a bullet, a '# ' heading
    bold; the bot's own rules for its answers (ui/slack/blocks.mrkdwn)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"\*\*(.+?)\*\*", r"*\1*", text)
    text = re.sub(r"(?m)^[-*] ", "• ", text)  # Slack has no markdown lists
    return re.sub(r"(?m)^#{1,6}\s*(.+)$", r"*\1*", text)


def console() -> Console:
    """stdout as rich sees it: the terminal's width, or unlimited when piped."""
    return Console() if sys.stdout.isatty() else Console(width=PIPE_WIDTH, soft_wrap=True)
