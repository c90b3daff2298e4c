"""Both sides of Slack for tests, on loopback only. FakeSlackAPI: a Web API on 127.0.0.1:0 that
answers auth.test, records every call (chat.postMessage, chat.update, chat.postEphemeral,
response_url posts ...), serves files for files.info downloads and can refuse to post in chosen
channels (not_in_channel). SlackSender: what Slack sends the app, signed as Slack signs it."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

BOT_USER = "UBOT"


class FakeSlackAPI:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.auth_headers: list[str] = []  # Authorization of each call, to check the token flows
        self.files: dict[str, tuple[str, bytes]] = {}  # id -> (name, content)
        self.refuse: set[str] = set()  # channels where chat.postMessage fails
        self._ts = itertools.count(1)
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), type("Bound", (_Handler,), {"fake": self}))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/"  # WebClient needs the trailing slash

    def start(self) -> FakeSlackAPI:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.auth_headers.clear()

    def of(self, method: str) -> list[dict[str, Any]]:
        """The recorded arguments of every call to one method, in order."""
        with self._lock:
            return [args for m, args in self.calls if m == method]

    def methods(self) -> list[str]:
        with self._lock:
            return [m for m, _ in self.calls]

    def add_file(self, file_id: str, name: str, content: bytes) -> None:
        self.files[file_id] = (name, content)

    def answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        channel = args.get("channel", "")
        if method == "auth.test":
            return {"ok": True, "user_id": BOT_USER, "bot_id": "BBOT", "team_id": "T1",
                    "user": "netopsai", "team": "lab", "url": "https://lab.slack.com/"}
        if method == "chat.postMessage":
            if channel in self.refuse:
                return {"ok": False, "error": "not_in_channel"}
            ts = f"1700000100.{next(self._ts):06d}"
            return {"ok": True, "channel": channel, "ts": ts, "message": {"ts": ts, **args}}
        if method == "chat.update":
            return {"ok": True, "channel": channel, "ts": args.get("ts")}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"1700000200.{next(self._ts):06d}"}
        if method == "files.info":
            name, content = self.files[args["file"]]
            return {"ok": True, "file": {"id": args["file"], "name": name, "size": len(content),
                                         "url_private_download": f"{self.base}/files/{args['file']}"}}
        return {"ok": True}

    def record(self, method: str, args: dict[str, Any], auth: str) -> None:
        with self._lock:
            self.calls.append((method, args))
            self.auth_headers.append(auth)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSlackAPI  # set on a subclass per fake

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def _send(self, status: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _call(self, method: str, args: dict[str, Any]) -> None:
        self.fake.record(method, args, self.headers.get("Authorization", ""))
        self._send(200, json.dumps(self.fake.answer(method, args)).encode())

    def do_GET(self) -> None:  # GET methods (files.info) and file downloads
        url = urlsplit(self.path)
        if url.path.startswith("/api/"):
            self._call(url.path.removeprefix("/api/"), dict(parse_qsl(url.query)))
            return
        self.fake.record("GET " + url.path, {}, self.headers.get("Authorization", ""))
        file_id = url.path.rsplit("/", 1)[-1]
        if url.path.startswith("/files/") and file_id in self.fake.files:
            self._send(200, self.fake.files[file_id][1], "text/plain")
        else:
            self._send(404, b"not found", "text/plain")

    def do_POST(self) -> None:  # API methods (JSON or form bodies) and response_url posts
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        json_body = "json" in (self.headers.get("Content-Type") or "")
        args = json.loads(raw or "{}") if json_body else dict(parse_qsl(raw))
        path = urlsplit(self.path).path
        self._call(path.removeprefix("/api/") if path.startswith("/api/") else path, args)


class SlackSender:
    """Slack's requests to the app: slash commands, events and button clicks, each signed
    (v0= HMAC-SHA256 of v0:{ts}:{body}) with the signing secret, or a wrong one, or an old stamp."""

    def __init__(self, url: str, secret: str, response_url: str) -> None:
        self.url, self.secret, self.response_url = url, secret, response_url

    def post(self, body: str, ctype: str, *, secret: str | None = None,
             age: int = 0) -> tuple[int, str]:
        ts = str(int(time.time()) - age)
        base = f"v0:{ts}:{body}".encode()
        digest = hmac.new((secret or self.secret).encode(), base, hashlib.sha256).hexdigest()
        req = urllib.request.Request(self.url, data=body.encode(), method="POST", headers={
            "Content-Type": ctype, "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": f"v0={digest}"})
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def slash(self, text: str, user: str, channel: str, **kw: Any) -> tuple[int, str]:
        body = urlencode({"token": "legacy", "team_id": "T1", "channel_id": channel,
                          "channel_name": "ops", "user_id": user, "command": "/netops",
                          "text": text, "response_url": self.response_url,
                          "trigger_id": f"{time.time_ns()}.1"})  # unique, as Slack's are
        return self.post(body, "application/x-www-form-urlencoded", **kw)

    def event(self, ev: dict[str, Any]) -> tuple[int, str]:
        body = json.dumps({"token": "legacy", "team_id": "T1", "api_app_id": "A1",
                           "type": "event_callback", "event_id": f"Ev{time.time_ns()}",
                           "event_time": int(time.time()), "event": ev})
        return self.post(body, "application/json")

    def click(self, action_id: str, value: str, user: str, channel: str,
              message: dict[str, Any]) -> tuple[int, str]:
        payload = {"type": "block_actions", "user": {"id": user}, "team": {"id": "T1"},
                   "api_app_id": "A1", "channel": {"id": channel}, "message": message,
                   "container": {"type": "message", "message_ts": message["ts"],
                                 "channel_id": channel},
                   "trigger_id": "1.2.3", "response_url": self.response_url,
                   "actions": [{"type": "button", "action_id": action_id, "block_id": action_id,
                                "value": value}]}
        return self.post(urlencode({"payload": json.dumps(payload)}),
                         "application/x-www-form-urlencoded")


def served_bot(copilot: Any, settings: Any, fake: FakeSlackAPI) -> Iterator[str]:
    """The bot's app behind a WSGI server on 127.0.0.1:0, talking to `fake` with the settings'
    token; yields the URL Slack would post events and clicks to."""
    from slack_sdk import WebClient

    from netopsai.ui.slack.app import EVENTS_PATH, build_app, serve_http

    token = settings.bot_token.get_secret_value() if settings.bot_token else None
    app = build_app(copilot, settings, WebClient(token=token, base_url=fake.api_url),
                    process_before_response=True)
    server = serve_http(app, "127.0.0.1", 0)
    assert server.server_address[0] == "127.0.0.1"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}{EVENTS_PATH}"
    server.shutdown()
    server.server_close()
