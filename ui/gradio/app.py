"""The web app (`netopsai serve`): Chat, Batch and Alarms tabs over one Copilot. Thin: the
handlers live in chat / batch / alarms and only call the service, the
batch runner and the tools. Nothing here calls the internet: analytics off, no share link,
the frontend's assets and fonts are served locally."""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any
from urllib.parse import urlsplit

import gradio as gr
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

from netopsai.backends.base import Backends
from netopsai.config.settings import UiSettings
from netopsai.copilot.service import Copilot
from netopsai.ui.gradio.alarms import store_of
from netopsai.ui.gradio.alarms_tab import alarms_tab
from netopsai.ui.gradio.auth import LOGIN_ADDRESS, authenticator
from netopsai.ui.gradio.batch import MAX_INPUT
from netopsai.ui.gradio.batch_tab import batch_tab
from netopsai.ui.gradio.chat_tab import chat_tab
from netopsai.ui.gradio.device_tab import device_tab
from netopsai.ui.gradio.gone import GONE_JS
from netopsai.ui.gradio.reliability import CSS as RELIABILITY_CSS
from netopsai.ui.gradio.reliability_tab import reliability_tab
from netopsai.ui.gradio.shell import ALARMS, BATCH, CHAT, DEVICE, Shell
from netopsai.ui.gradio.watch import StoreWatch

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
#chat-next { gap: 6px; flex-wrap: wrap; align-items: center; margin: 4px 0; }
#chat-next button { flex: 0 1 auto; min-width: 0; white-space: normal; text-align: left; }
.np-chip { border-radius: 999px !important; font-weight: 500; }
#page-draft textarea { font-family: var(--font-mono); font-size: 13px; }
#chat-headline { margin: 0; }
.np-head { padding: 6px 10px; border-radius: 6px; border-left: 4px solid #2563eb; background: #eff6ff;
  color: #111827; font-size: 15px; line-height: 1.4; }
.np-head-text { overflow: hidden; display: -webkit-box; -webkit-line-clamp: 2;
  -webkit-box-orient: vertical; }
.np-head .nw { white-space: nowrap; }
.np-head a { color: inherit; padding: 0; }
.np-head-working { border-color: #d97706; background: #fffbeb; }
.np-head-error, .np-head-gone { border-color: #dc2626; background: #fef2f2; }
.np-head-empty { border-color: #d1d5db; background: transparent; color: #4b5563; }
.np-head-tag { font-size: 11px; font-weight: 700; letter-spacing: .04em; text-transform: uppercase;
  color: #1e3a8a; margin-right: 4px; }
.np-head-working .np-head-tag { color: #92400e; }
.np-head-error .np-head-tag, .np-head-gone .np-head-tag { color: #991b1b; }
.np-grid [role=gridcell] span, .np-grid [role=columnheader] span, .np-grid .header-content {
  word-break: normal !important; overflow-wrap: normal !important; hyphens: none;
  font-family: var(--font); font-size: 13px; line-height: 1.35; }
#np-gone { position: fixed; left: 0; right: 0; top: 0; z-index: 1000; padding: 10px 16px;
  font-size: 15px; box-shadow: 0 2px 8px rgba(0, 0, 0, .2); }
#np-gone.np-gone-down { background: #991b1b; color: #ffffff; }
#np-gone.np-gone-back { background: #ecfdf5; color: #064e3b; border-bottom: 3px solid #059669; }
#np-gone button { margin: 0 6px; padding: 3px 12px; border-radius: 6px; border: 1px solid #059669;
  background: #059669; color: #ffffff; font-weight: 600; cursor: pointer; }
#np-gone button#np-dismiss { background: transparent; color: #064e3b; }
.np-grid [role=gridcell] .cell-wrap { padding: 4px 6px !important; }
#np-title h2 { font-size: 20px; margin: 0; }
@media (max-width: 640px) {
  #tabs [role=tablist] button { padding-left: 9px; padding-right: 9px; }
  #chat .message-row { margin-left: 2px !important; margin-right: 2px !important; }
  #chat .bot.message, #chat .user.message { padding: 6px 8px !important; }
  .np-head { font-size: 14px; } .np-head-text { -webkit-line-clamp: 3; }
  #np-title h2 { font-size: 17px; }
}
"""


def _offline() -> None:
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # read at call time, so setting it here is enough


def build_app(copilot: Copilot, backends: Backends | None = None) -> gr.Blocks:
    """The five tabs (Chat, Batch, Alarms, Device, Reliability) over one copilot; `backends`
    defaults to the copilot's own."""
    _offline()
    backends = backends or copilot.backends
    with gr.Blocks(title="netopsai", analytics_enabled=False) as app:
        gr.Markdown("## netopsai · network on-call copilot", elem_id="np-title")
        # on a phone the tab strip wraps to a second row: every tab in sight, none behind "…"
        with gr.Tabs(elem_id="tabs", overflow_behavior="wrap") as tabs:
            with gr.Tab("Chat", id=CHAT):
                hooks = chat_tab(app, copilot)
            shell = Shell(app, tabs, hooks.box, backends, hooks.bot, hooks.ask)
            with gr.Tab("Batch", id=BATCH):
                batch_tab(backends)
            with gr.Tab("Alarms", id=ALARMS) as alarms:
                alarms_tab(shell, alarms)
            with gr.Tab("Device", id=DEVICE):
                device_tab(shell)
            with gr.Tab("Reliability", id="reliability") as reliability:
                reliability_tab(shell, reliability)
    return app


def _copilot() -> Copilot:
    """The copilot every tab shares, on the configured backends (netopsai.copilot.frontend: the lab by
    default, built on the first run when the store holds no network), threads in NETOPSAI_HOME,
    the LLM when one is configured (offline otherwise)."""
    from netopsai.copilot.frontend import frontend_copilot

    return frontend_copilot(first_run_lab=True)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")


def _host_of(value: str) -> str:
    """'name:port', '[v6]:port' or 'name' -> the name, lower case, without brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else ""
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def allowed_hosts(bind: str, configured: Iterable[str] = ()) -> frozenset[str]:
    """The Host names the app answers to: loopback's, the configured ones, and the address it
    is bound to when that is one address (not 0.0.0.0 or ::)."""
    names = {*LOOPBACK_NAMES, *(_host_of(h) for h in configured if h.strip())}
    if bind not in ("", "0.0.0.0", "::"):
        names.add(_host_of(f"[{bind}]" if ":" in bind else bind))
    return frozenset(names)


class WebGuard:
    """In front of every route (ASGI): a request whose Host is not an allowed name gets 400
    (DNS rebinding: a page elsewhere that points its own name at 127.0.0.1 is same-origin to
    the browser, but still says its own name in Host); a login posted from a page of another
    origin gets 403 (login CSRF); and a login's address is handed to the password throttle."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str], configured: frozenset[str]) -> None:
        self.app, self.hosts, self.configured = app, hosts, configured

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if _host_of(host) not in self.hosts:
            return await _refuse(scope, send, 400, "this server does not answer to that host "
                                 "name (NETOPSAI_UI_ALLOWED_HOSTS lists the names it does)")
        if scope["type"] != "http" or not scope["path"].rstrip("/").endswith("/login"):
            return await self.app(scope, receive, send)
        origin = headers.get("origin")
        if origin is not None and not self._same_site(origin, host):
            return await _refuse(scope, send, 403, "a login from a page of another site is refused")
        token = LOGIN_ADDRESS.set(str((scope.get("client") or ("",))[0]))
        try:
            await self.app(scope, receive, send)
        finally:
            LOGIN_ADDRESS.reset(token)

    def _same_site(self, origin: str, host: str) -> bool:
        """The page's origin is this server as the browser named it, or a configured name (a
        reverse proxy may pass its own Host on); another port of localhost is another site."""
        netloc = urlsplit(origin).netloc.lower()
        return bool(netloc) and (netloc == host.strip().lower() or _host_of(netloc) in self.configured)


async def _refuse(scope: Scope, send: Send, code: int, text: str) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": code,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def guard_middleware(bind: str, settings: UiSettings | None = None) -> list[Middleware]:
    """The app_kwargs middleware for launch(): the WebGuard for this bind address."""
    configured = (settings or UiSettings()).allowed_hosts
    extra = frozenset(_host_of(h) for h in configured if h.strip())
    return [Middleware(WebGuard, hosts=allowed_hosts(bind, configured), configured=extra)]


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


# a device link (?device=NAME: in an answer, the headline, a table) opens its page in this tab with
# the thread kept in the address (back returns to it); a host link (#ask=QUESTION) asks its details
# in the thread: the chatbot's own links would open a new browser tab
IN_APP_CLICKS = """<script>
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[href*="?device="], a[href^="#ask="]');
  if (!a || e.ctrlKey || e.metaKey || e.shiftKey) return;
  const href = a.getAttribute('href');
  e.preventDefault(); e.stopPropagation();
  if (href.startsWith('#ask=')) {
    const box = document.querySelector('#question textarea');
    if (!box) return;
    box.value = decodeURIComponent(href.slice(5));
    box.dispatchEvent(new Event('input', {bubbles: true}));
    setTimeout(() => box.dispatchEvent(new KeyboardEvent('keypress',
      {key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true})), 50);
    return;
  }
  const u = new URL(window.location.href); u.hash = '';
  u.searchParams.set('device', new URL(href, window.location.href).searchParams.get('device') || '');
  window.location.assign(u.toString());
}, true);
</script>"""


# gradio scopes `css` under its container; the page's own margins are above it: a phone keeps 8 px
# and a step still spinning when the server went away (gone.py sets body.np-down) says so instead
PAGE_CSS = """<style>@media (max-width: 640px) { .gradio-container .main.app {
  padding-left: 8px !important; padding-right: 8px !important; } }
body.np-down #chat .title .loading-spinner, body.np-down #chat .message.bot.pending { display: none; }
body.np-down #chat .title:has(.loading-spinner)::after { content: "no answer: the server went away";
  color: #991b1b; font-weight: 600; margin-left: 8px; }</style>"""


def launch_options(host: str, port: int, auth: Any, settings: UiSettings | None = None) -> dict[str, Any]:
    """Everything `launch` is given (tests launch with the same)."""
    return dict(server_name=host, server_port=port, share=False, inbrowser=False, auth=auth,
                show_error=False, ssr_mode=False, mcp_server=False, quiet=True, css=CSS + RELIABILITY_CSS,
                footer_links=["settings"], head=CSP + PAGE_CSS + CITE_CLICKS + IN_APP_CLICKS + GONE_JS,
                # an upload is refused past the batch file's own limit, before it is on disk
                max_file_size=MAX_INPUT,
                app_kwargs={"middleware": guard_middleware(host, settings)})


def _nothing(copilot: Copilot) -> AbstractContextManager[Any]:
    return nullcontext()


def serve(host: str = "127.0.0.1", port: int = 7860,
          beside: Callable[[Copilot], AbstractContextManager[Any]] | None = None) -> None:
    """`netopsai serve`: launch and block. Login is on when NETOPSAI_UI_USERS names a users file;
    the Host names it answers to besides loopback's are NETOPSAI_UI_ALLOWED_HOSTS. `beside`
    runs along with the app on the same copilot: the launcher (launch/fronts.py) passes the API's
    owner socket, so one front end does not import another."""
    _offline()
    settings = UiSettings()
    auth = authenticator(settings.users)
    if auth is None and not _loopback(host):
        log.warning("serving on %s without login: set NETOPSAI_UI_USERS for a shared deployment", host)
    if not _loopback(host) and not settings.allowed_hosts:
        log.warning("serving on %s: requests are answered only when they name localhost or the bound "
                    "address; set NETOPSAI_UI_ALLOWED_HOSTS to the names people use", host)
    copilot = _copilot()
    copilot.warm_up()  # long-lived: the first analysis should not wait for pandas to load
    StoreWatch(copilot, store_of(copilot.backends)).start()  # a lab init or import: names read again
    app = build_app(copilot)
    print(f"netopsai web app on http://{host}:{port}", flush=True)
    with (beside or _nothing)(copilot):  # the API's owner socket (thin `ask`, `tool`), same copilot
        app.queue(default_concurrency_limit=8).launch(**launch_options(host, port, auth, settings))
