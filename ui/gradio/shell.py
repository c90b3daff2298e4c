"""What every tab of the web app may reach besides its own components: the Blocks (for load
events), the tab strip (to switch tabs), the chat's question box and chatbot, `ask` (so another
tab can ask the chat a question in one click, e.g. "diagnose this" from an alarm) and the
backends."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr

from netopsai.backends.base import Backends

CHAT, BATCH, ALARMS, DEVICE = "chat", "batch", "alarms", "device"  # tab ids
RELIABILITY = "reliability"  # its tab id, and `?tab=reliability` opens it (reliability_tab)
# a load event's js: the browser's zone, so plots can read in the network's hours (views.for_browser)
BROWSER_ZONE = "(zone) => [Intl.DateTimeFormat().resolvedOptions().timeZone || '']"


@dataclass
class Shell:
    app: gr.Blocks
    tabs: gr.Tabs
    question: gr.Textbox
    backends: Backends
    chat: gr.Chatbot | None = None
    # ask(event): after `event` (which put a question in the box, and may add to the chat),
    # the chat answers it as if the on-call had pressed Enter; only when the event succeeded
    ask: Callable[[Any], Any] | None = None


@dataclass
class ChatHooks:
    """What the Chat tab gives the other tabs: its question box, its chatbot and `ask`."""

    box: gr.Textbox
    bot: gr.Chatbot
    ask: Callable[[Any], Any]


def recolour(cmap: dict[str, str]) -> Any:
    """A line plot's legend redrawn for its new lines: gradio 6.31 swaps only the data on a new
    value and redraws the legend on a new color_map, so the map follows the value."""
    return gr.update(color_map=cmap) if cmap else gr.skip()


def query_param(request: gr.Request | None, name: str) -> str:
    """A query parameter of the page's URL (`?thread=…`, `?device=…`), or ""."""
    if request is None:
        return ""
    return str(dict(request.query_params).get(name, "")).strip()
