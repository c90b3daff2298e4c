"""Slack's retries are answered once (issue 23, Low). Slack delivers an event again — the same
`event_id`, a new timestamp (so a new signature) and `X-Slack-Retry-Num` — when it did not see
the first acknowledged in time; the bot acknowledges the retry and does not answer twice. The
check runs after the signature check, so a forged request cannot claim an event id first, and
it holds in Socket Mode too (same bolt middleware)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.ui.slack.app import EVENTS_PATH, EventDedupe, build_app, serve_http
from netopsai.ui.slack.settings import SlackSettings
from netopsai_testkit.fake_slack_api import FakeSlackAPI

SECRET = "trust-signing-secret-77a1"
TOKEN = "xoxb-trust-bot-token-3c2d"
ONCALL, OPS = "UONCALL", "COPS"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeSlackAPI]:
    api = FakeSlackAPI().start()
    yield api
    api.stop()


@pytest.fixture(scope="module")
def app(backends: Backends, fake: FakeSlackAPI) -> Any:
    settings = SlackSettings.model_validate({"bot_token": TOKEN, "signing_secret": SECRET,
                                             "api_url": fake.api_url})
    return build_app(Copilot(backends), settings, WebClient(token=TOKEN, base_url=fake.api_url),
                     process_before_response=True)


@pytest.fixture(scope="module")
def bot(app: Any) -> Iterator[str]:
    import threading

    server = serve_http(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}{EVENTS_PATH}"
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def clean(fake: FakeSlackAPI) -> None:
    fake.reset()


def mention(event_id: str, ts: str = "1700000100.000100") -> str:
    return json.dumps({"token": "legacy", "team_id": "T1", "api_app_id": "A1",
                       "type": "event_callback", "event_id": event_id, "event_time": 1700000100,
                       "event": {"type": "app_mention", "user": ONCALL, "channel": OPS, "ts": ts,
                                 "text": "<@UBOT> who owns 10.1.3.20?"}})


def deliver(bot: str, body: str, stamp: int, secret: str = SECRET, **headers: str) -> int:
    """One delivery as Slack signs it: the signature covers this delivery's timestamp."""
    digest = hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256).hexdigest()
    req = urllib.request.Request(bot, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "X-Slack-Request-Timestamp": str(stamp),
        "X-Slack-Signature": f"v0={digest}", **headers})
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def answers(fake: FakeSlackAPI) -> int:
    return len(fake.of("chat.postMessage"))


def test_a_retry_of_the_same_event_is_acknowledged_not_answered_again(bot: str,
                                                                      fake: FakeSlackAPI) -> None:
    now = int(time.time())
    assert deliver(bot, mention("EvRetry1"), now) == 200
    first = answers(fake)
    assert first == 1 and "dc1-host-03-1" in json.dumps(fake.of("chat.update"))
    for n in (1, 2, 3):  # Slack's three retries, each freshly stamped and signed
        status = deliver(bot, mention("EvRetry1"), now + n, **{"X-Slack-Retry-Num": str(n),
                                                               "X-Slack-Retry-Reason": "http_timeout"})
        assert status == 200
    assert answers(fake) == first
    assert deliver(bot, mention("EvOther2", "1700000101.000100"), now) == 200  # another event:
    assert answers(fake) == first + 1  # answered


def test_a_forged_request_cannot_claim_an_event_id(bot: str, fake: FakeSlackAPI) -> None:
    now = int(time.time())
    assert deliver(bot, mention("EvClaim3"), now, secret="not-the-secret") == 401
    assert answers(fake) == 0
    assert deliver(bot, mention("EvClaim3"), now) == 200  # the real one is still answered
    assert answers(fake) == 1


def test_socket_mode_retries_are_answered_once(app: Any, fake: FakeSlackAPI) -> None:
    body = json.loads(mention("EvSocket4", "1700000102.000100"))
    for _ in range(2):  # the same envelope payload twice, as a Socket Mode retry brings it
        assert app.dispatch(BoltRequest(body=body, mode="socket_mode")).status == 200
    assert answers(fake) == 1


def test_the_seen_events_are_bounded_and_forgotten() -> None:
    class Clock:
        now = 0.0

        def __call__(self) -> float:
            return self.now

    clock = Clock()
    seen = EventDedupe(clock)
    assert seen.first("Ev1") and not seen.first("Ev1")
    clock.now += EventDedupe.TTL_S + 1
    assert seen.first("Ev1")  # an hour on, Slack has long stopped retrying it
    for i in range(EventDedupe.MAX * 2):
        seen.first(f"flood{i}")
    assert len(seen.seen) <= EventDedupe.MAX
