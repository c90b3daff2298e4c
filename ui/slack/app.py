"""The Slack bot (`netopsai slack`): a bolt App whose listeners (ui/slack/listeners) are thin
shells over the Copilot. Socket Mode by default; HTTP mode serves bolt's WSGI handler on an
address we bind ourselves (127.0.0.1 unless told otherwise; app.start() would bind 0.0.0.0)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient

from netopsai.errors import NetopsError
from netopsai.service import Copilot
from netopsai.ui.slack.listeners import register_all
from netopsai.ui.slack.settings import SlackSettings
from netopsai.ui.slack.work import SlackContext

EVENTS_PATH = "/slack/events"
log = logging.getLogger("netopsai.slack")


def build_app(copilot: Copilot, settings: SlackSettings, client: WebClient | None = None, *,
              process_before_response: bool = False) -> App:
    """The bolt App with every listener registered. Requests are signature-checked whenever a
    signing secret is set (HTTP mode insists on one; Socket Mode needs none)."""
    if client is None:
        token = settings.bot_token.get_secret_value() if settings.bot_token else None
        client = WebClient(token=token, base_url=settings.api_url)
    secret = settings.signing_secret.get_secret_value() if settings.signing_secret else ""
    app = App(client=client, signing_secret=secret, request_verification_enabled=bool(secret),
              process_before_response=process_before_response, name="netopsai",
              logger=logging.getLogger("netopsai.slack.bolt"))
    register_all(app, SlackContext(copilot, settings))
    return app


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a slow answer must not hold up the next request or shutdown


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        log.debug("%s - " + format, self.address_string(), *args)


class RequestGuard:
    """In front of bolt's handler: a timestamp header that is not a number is 400 (not a 500
    from inside bolt), and a request that was accepted once — the same signature, within the
    five minutes bolt accepts a timestamp for — is acknowledged again but not processed again,
    so a replayed command or a retry does not run twice."""

    WINDOW_S = 300

    def __init__(self, inner: Callable[..., Iterable[bytes]]) -> None:
        self.inner = inner
        self.seen: dict[str, float] = {}
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        stamp = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP")
        if stamp is not None and not stamp.strip().isdigit():
            start_response("400 Bad Request", [("Content-Type", "text/plain")])
            return [b"x-slack-request-timestamp must be a number of seconds"]
        signature = environ.get("HTTP_X_SLACK_SIGNATURE", "")
        now = time.monotonic()
        with self.lock:
            self.seen = {k: t for k, t in self.seen.items() if now - t < self.WINDOW_S}
            if signature and signature in self.seen:
                start_response("200 OK", [("Content-Type", "text/plain")])
                return [b""]

        def remember(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            if signature and status.startswith("2"):
                with self.lock:
                    self.seen[signature] = now
            return start_response(status, headers, *rest)

        return self.inner(environ, remember)


def serve_http(app: App, host: str = "127.0.0.1", port: int = 3000) -> WSGIServer:
    """A threaded WSGI server for the app's events endpoint; the caller runs serve_forever()."""
    return make_server(host, port, RequestGuard(SlackRequestHandler(app, path=EVENTS_PATH)),
                       server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)


def _copilot() -> Copilot:
    """The copilot on the configured backends (netopsai.frontend: the lab by default, built on
    the first run when the store holds no network), threads kept in NETOPSAI_HOME, the LLM when
    one is configured. Batch requests check through the same backends."""
    from netopsai.frontend import frontend_copilot

    return frontend_copilot(first_run_lab=True)


def _check(settings: SlackSettings, http: bool) -> None:
    """Say which variable is missing before anything starts (never echoing a value)."""
    if settings.bot_token is None:
        raise NetopsError("SLACK_BOT_TOKEN is not set (the bot's xoxb- token)")
    if http and settings.signing_secret is None:
        raise NetopsError("SLACK_SIGNING_SECRET is not set; HTTP mode verifies every request with it")
    if not http and settings.app_token is None:
        raise NetopsError("SLACK_APP_TOKEN is not set: Socket Mode needs an app-level xapp- token "
                          "(or run with --http)")


def main(http: bool = False, host: str = "127.0.0.1", port: int = 3000) -> None:
    """Run the bot until interrupted."""
    settings = SlackSettings()
    _check(settings, http)
    copilot = _copilot()
    copilot.warm_up()  # long-lived: the first analysis should not wait for pandas to load
    app = build_app(copilot, settings)
    if http:
        server = serve_http(app, host, port)
        print(f"netopsai slack: listening on http://{host}:{server.server_port}{EVENTS_PATH}",
              flush=True)
        try:
            server.serve_forever()
        finally:
            server.server_close()
        return
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    assert settings.app_token is not None  # _check
    print("netopsai slack: connecting in Socket Mode", flush=True)
    SocketModeHandler(app, settings.app_token.get_secret_value()).start()
