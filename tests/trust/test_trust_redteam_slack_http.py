"""`netopsai slack --http` is bounded (red team 2, D): each connection used to get a thread of
its own with no timeout and no cap, before any signature check (400 connections that never
finished their headers made 191 threads). Now at most MAX_CONNECTIONS are served at once (one
more is answered 503 and closed), a request must be read within the read deadline (then the
connection is shut), and a signed request is answered again afterwards."""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from slack_sdk import WebClient

from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.ui.slack import app as slack_app
from netopsai.ui.slack.app import EVENTS_PATH, build_app, serve_http
from netopsai.ui.slack.settings import SlackSettings
from netopsai_testkit.fake_slack_api import FakeSlackAPI

SECRET = "redteam-signing-secret-51f0"
TOKEN = "xoxb-redteam-bot-token-9e1a"


@pytest.fixture
def bot(backends: Backends, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any]]:
    monkeypatch.setattr(slack_app.BoundedWSGIServer, "max_connections", 16)
    monkeypatch.setattr(slack_app.BoundedWSGIServer, "read_deadline_s", 1.0)
    fake = FakeSlackAPI().start()
    settings = SlackSettings.model_validate({"bot_token": TOKEN, "signing_secret": SECRET,
                                             "api_url": fake.api_url})
    app = build_app(Copilot(backends), settings, WebClient(token=TOKEN, base_url=fake.api_url),
                    process_before_response=True)
    server = serve_http(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}{EVENTS_PATH}", server
    server.shutdown()
    server.server_close()
    fake.stop()


def signed(url: str) -> tuple[int, bool]:
    """A signed url_verification: (status, whether the challenge came back)."""
    body = json.dumps({"type": "url_verification", "challenge": "still-here", "token": "x"})
    stamp = int(time.time())
    digest = hmac.new(SECRET.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    req = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "X-Slack-Request-Timestamp": str(stamp),
        "X-Slack-Signature": f"v0={digest}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return int(resp.status), "still-here" in resp.read().decode()
    except urllib.error.HTTPError as err:
        return int(err.code), False
    except (urllib.error.URLError, OSError):  # refused (503) before the body was sent
        return 503, False


def test_idle_connections_do_not_make_a_thread_each(bot: tuple[str, Any]) -> None:
    url, server = bot
    assert signed(url) == (200, True)
    before = threading.active_count()
    port = server.server_port
    idle = []
    for _ in range(300):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nX-a: ")
        idle.append(s)
    time.sleep(0.3)
    assert threading.active_count() - before <= 16 + 2  # the cap, not a thread per connection
    code, _ = signed(url)
    assert code in (200, 503)  # answered at once, even while the cap is taken
    deadline = time.monotonic() + 10
    while signed(url) != (200, True):  # the idle ones are shut at the read deadline
        assert time.monotonic() < deadline, "the server did not come back"
        time.sleep(0.2)
    for s in idle:
        s.close()
    deadline = time.monotonic() + 10
    while threading.active_count() > before + 1:
        assert time.monotonic() < deadline, "handler threads were left behind"
        time.sleep(0.1)


def test_a_trickled_request_is_cut_at_the_deadline(bot: tuple[str, Any]) -> None:
    url, server = bot
    s = socket.create_connection(("127.0.0.1", server.server_port))
    s.settimeout(0.2)
    t0, closed_at = time.monotonic(), None
    while time.monotonic() - t0 < 5:
        try:
            s.sendall(b"X")
            if s.recv(100) == b"":
                closed_at = time.monotonic() - t0
                break
        except TimeoutError:
            continue
        except OSError:
            closed_at = time.monotonic() - t0
            break
    s.close()
    assert closed_at is not None and closed_at < 3
    assert signed(url) == (200, True)


def test_an_oversized_body_is_refused_unread(bot: tuple[str, Any]) -> None:
    url, server = bot
    s = socket.create_connection(("127.0.0.1", server.server_port))
    s.sendall(b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")
    s.settimeout(5)
    assert s.recv(100).startswith(b"HTTP/1.0 413")
    s.close()
