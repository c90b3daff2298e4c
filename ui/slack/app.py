"""The Slack bot (`netopsai slack`): a bolt App whose listeners (ui/slack/listeners) are thin
shells over the Copilot. Socket Mode by default; HTTP mode serves bolt's WSGI handler on an
address we bind ourselves (127.0.0.1 unless told otherwise; app.start() would bind 0.0.0.0)."""

from __future__ import annotations

import io
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App, BoltResponse
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient

from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Copilot
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
    app.use(EventDedupe())  # global middleware run after bolt's signature check
    register_all(app, SlackContext(copilot, settings))
    return app


class EventDedupe:
    """Each Events API event is answered once. Slack delivers an event again — same `event_id`,
    a new timestamp and signature, `X-Slack-Retry-Num` set — when it did not see the first
    acknowledged within 3 s (a slow answer, or an acknowledgement lost on the way), up to three
    times over about five minutes; Socket Mode retries the same way. A bolt middleware, so it
    runs after the signature check (a forged event id cannot shut out a real one) and in both
    modes. An event is claimed as it is first seen: a retry arriving while the first delivery is
    still being answered is acknowledged too, not answered a second time."""

    TTL_S, MAX = 3600.0, 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.seen: dict[str, float] = {}
        self.lock = threading.Lock()

    def first(self, event_id: str) -> bool:
        now = self.clock()
        with self.lock:
            if len(self.seen) >= self.MAX or next(iter(self.seen.values()), now) < now - self.TTL_S:
                self.seen = {k: t for k, t in self.seen.items() if now - t < self.TTL_S}
                for old in list(self.seen)[: max(0, len(self.seen) - self.MAX // 2)]:
                    del self.seen[old]  # a flood within the hour: the oldest go first
            if event_id in self.seen:
                return False
            self.seen[event_id] = now
            return True

    def __call__(self, body: dict[str, Any], request: Any, next: Callable[[], Any]) -> Any:  # noqa: A002
        event_id = body.get("event_id") if isinstance(body, dict) else None
        if not isinstance(event_id, str) or not event_id or self.first(event_id):
            return next()
        retry = (request.headers.get("x-slack-retry-num") or ["-"])[0]
        log.info("slack event %s delivered again (retry %s): acknowledged, not answered again",
                 event_id[:40].encode("unicode_escape").decode(), str(retry)[:8])
        return BoltResponse(status=200, body="")


MAX_CONNECTIONS = 64  # connections served at once; past it a new one is answered 503 and closed
READ_DEADLINE_S = 10.0  # a request's line, headers and body must be in within this
MAX_BODY = 1 << 20  # Slack's payloads are a few KB
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 22\r\n"
        b"Connection: close\r\n\r\ntoo many connections\r\n")


class BoundedWSGIServer(ThreadingMixIn, WSGIServer):
    """A thread per connection, but at most `max_connections` of them (one more is answered 503
    and closed at once, on the accepting thread), and each request read within `read_deadline_s`
    (a reaper thread shuts down a connection still sending its request then, however slowly it
    trickles): 400 connections that never finish their headers used to make 191 threads, all
    before the signature was checked (red team 2, D)."""

    daemon_threads = True  # a slow answer must not hold up the next request or shutdown
    block_on_close = False
    request_queue_size = 128  # a burst of connections is accepted (and answered or refused) promptly
    max_connections = MAX_CONNECTIONS
    read_deadline_s = READ_DEADLINE_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = threading.BoundedSemaphore(self.max_connections)
        self._reading: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._reap, name="netopsai-slack-reaper", daemon=True).start()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            with suppress(OSError):
                request.settimeout(0.5)
                request.sendall(BUSY)
            self.shutdown_request(request)
            return
        with self._lock:
            self._reading[request] = time.monotonic() + self.read_deadline_s
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._done(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._done(request)

    def _done(self, request: Any) -> None:
        self.read_done(request)
        self._slots.release()

    def read_done(self, request: Any) -> None:
        """The request is read: its deadline no longer applies (the answer may take longer)."""
        with self._lock:
            self._reading.pop(request, None)

    def _reap(self) -> None:
        while not self._closed.wait(0.25):
            now = time.monotonic()
            with self._lock:
                late = [s for s, deadline in self._reading.items() if deadline < now]
                for s in late:
                    del self._reading[s]
            for s in late:
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def server_close(self) -> None:
        self._closed.set()
        super().server_close()


class _QuietHandler(WSGIRequestHandler):
    timeout = READ_DEADLINE_S  # each read and write on the connection

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        log.debug("%s - " + format, self.address_string(), *args)

    def get_environ(self) -> dict[str, Any]:
        environ = super().get_environ()
        server, request = self.server, self.request
        if isinstance(server, BoundedWSGIServer):
            environ["netopsai.read_done"] = lambda: server.read_done(request)
        return environ


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
        length = (environ.get("CONTENT_LENGTH") or "0").strip()
        if not length.isdigit() or int(length) > MAX_BODY:
            start_response("413 Content Too Large" if length.isdigit() else "400 Bad Request",
                           [("Content-Type", "text/plain")])  # HTTP/1.0: the connection closes
            return [f"the request body must be at most {MAX_BODY} bytes, with a Content-Length"
                    .encode()]
        # read whole here, within the server's read deadline; then the deadline is lifted
        body = environ["wsgi.input"].read(int(length)) if int(length) else b""
        environ["wsgi.input"] = io.BytesIO(body)
        done = environ.get("netopsai.read_done")
        if done is not None:
            done()
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
    """A threaded WSGI server for the app's events endpoint, its connections and their read time
    bounded (BoundedWSGIServer); the caller runs serve_forever()."""
    return make_server(host, port, RequestGuard(SlackRequestHandler(app, path=EVENTS_PATH)),
                       server_class=BoundedWSGIServer, handler_class=_QuietHandler)


def _copilot() -> Copilot:
    """The copilot on the configured backends (netopsai.copilot.frontend: the lab by default, built on
    the first run when the store holds no network), threads kept in NETOPSAI_HOME, the LLM when
    one is configured. Batch requests check through the same backends."""
    from netopsai.copilot.frontend import frontend_copilot

    return frontend_copilot(first_run_lab=True)


def _settings() -> SlackSettings:
    """SLACK_* read and checked (ui/slack/settings.read_settings: a bad value is one line)."""
    from netopsai.ui.slack.settings import read_settings

    return read_settings()


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
    settings = _settings()
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
