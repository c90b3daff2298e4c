"""The web app (`netopsai serve`): Chat, Batch and Alarms tabs over one Copilot. Thin: the
handlers live in chat / batch / alarms and only call the service, the
batch runner and the tools. Nothing here calls the internet: analytics off, no share link,
the frontend's assets and fonts are served locally."""

from __future__ import annotations

import ipaddress
import logging
import os

import gradio as gr

from netopsai.backends.base import Backends
from netopsai.service import Copilot
from netopsai.ui.gradio.alarms_tab import alarms_tab
from netopsai.ui.gradio.auth import authenticator
from netopsai.ui.gradio.batch_tab import batch_tab
from netopsai.ui.gradio.chat_tab import chat_tab
from netopsai.ui.gradio.device_tab import device_tab
from netopsai.ui.gradio.reliability_tab import reliability_tab
from netopsai.ui.gradio.shell import ALARMS, BATCH, CHAT, DEVICE, Shell

log = logging.getLogger(__name__)
CSS = """
.np-scroll { overflow-x: auto; max-width: 100%; }
.np-rows { border-collapse: collapse; font-size: 12px; margin: 4px 0 10px; }
.np-rows td, .np-rows th { border: 1px solid #d1d5db; padding: 2px 6px; text-align: left;
  white-space: nowrap; word-break: normal; overflow-wrap: normal; }
.np-rows td.np-text { white-space: normal; min-width: 16em; }
.np-ev { margin-bottom: 6px; } .np-ev summary, .np-page summary { cursor: pointer; }
.np-ev:target, .np-ev.np-hit { outline: 2px solid #f59e0b; }
#chat table { display: block; overflow-x: auto; max-width: 100%; }
#chat td, #chat th { white-space: nowrap; word-break: normal; overflow-wrap: normal; }
#chat-clock { font-variant-numeric: tabular-nums; }
"""


def _offline() -> None:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # read at call time, so setting it here is enough


def build_app(copilot: Copilot, backends: Backends | None = None) -> gr.Blocks:
    """The three tabs over one copilot; `backends` defaults to the copilot's own."""
    _offline()
    backends = backends or copilot.backends
    with gr.Blocks(title="netopsai", analytics_enabled=False) as app:
        gr.Markdown("## netopsai · network on-call copilot")
        with gr.Tabs(elem_id="tabs") as tabs:
            with gr.Tab("Chat", id=CHAT):
                question = chat_tab(app, copilot)
            shell = Shell(app, tabs, question, backends)
            with gr.Tab("Batch", id=BATCH):
                batch_tab(backends)
            with gr.Tab("Alarms", id=ALARMS):
                alarms_tab(shell)
            with gr.Tab("Device", id=DEVICE):
                device_tab(shell)
            with gr.Tab("Reliability", id="reliability") as reliability:
                reliability_tab(shell, reliability)
    return app


def _copilot() -> Copilot:
    """The copilot every tab shares, on the configured backends (netopsai.frontend: the lab by
    default, built on the first run when the store holds no network), threads in NETOPSAI_HOME,
    the LLM when one is configured (offline otherwise)."""
    from netopsai.frontend import frontend_copilot

    return frontend_copilot(first_run_lab=True)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


# images, media and frames from this server only: text from the network or a model that slips
# through as markup still cannot make the browser fetch anything elsewhere (zero-click exfiltration)
CSP = ('<meta http-equiv="Content-Security-Policy" content="img-src \'self\' data: blob:; '
       "media-src 'self' data: blob:; frame-src 'none'; object-src 'none'\">")
# a citation link (#ev-E1) scrolls to its evidence in place: the page's <base> would otherwise
# resolve it against the app's root and reload the page without its ?thread=
CITE_CLICKS = """<script>
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[href^="#ev-"]');
  if (!a) return;
  const el = document.getElementById(a.getAttribute('href').slice(1));
  if (!el) return;
  e.preventDefault(); e.stopPropagation();
  el.open = true; el.scrollIntoView({block: 'start'});
  document.querySelectorAll('.np-ev.np-hit').forEach(x => x.classList.remove('np-hit'));
  el.classList.add('np-hit');
}, true);
</script>"""


def serve(host: str = "127.0.0.1", port: int = 7860) -> None:
    """`netopsai serve`: launch and block. Login is on when NETOPSAI_UI_USERS names a users file."""
    _offline()
    auth = authenticator()
    if auth is None and not _loopback(host):
        log.warning("serving on %s without login: set NETOPSAI_UI_USERS for a shared deployment", host)
    copilot = _copilot()
    copilot.warm_up()  # long-lived: the first analysis should not wait for pandas to load
    app = build_app(copilot)
    print(f"netopsai web app on http://{host}:{port}", flush=True)
    from netopsai.api.socket_server import local_socket

    with local_socket(copilot):  # the HTTP API for the owner's thin `ask` and `tool`, same copilot
        app.queue(default_concurrency_limit=8).launch(
            server_name=host, server_port=port, share=False, inbrowser=False, auth=auth,
            show_error=False, ssr_mode=False, mcp_server=False, quiet=True, css=CSS,
            footer_links=["settings"], head=CSP + CITE_CLICKS)
