"""What every tab of the web app may reach besides its own components: the Blocks (for load
events), the tab strip (to switch tabs), the chat's question box (so another tab can fill a
question in, e.g. "diagnose this" from an alarm) and the backends."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from netopsai.backends.base import Backends

CHAT, BATCH, ALARMS, DEVICE = "chat", "batch", "alarms", "device"  # tab ids


@dataclass
class Shell:
    app: gr.Blocks
    tabs: gr.Tabs
    question: gr.Textbox
    backends: Backends


def query_param(request: gr.Request | None, name: str) -> str:
    """A query parameter of the page's URL (`?thread=…`, `?device=…`), or ""."""
    if request is None:
        return ""
    return str(dict(request.query_params).get(name, "")).strip()
