"""The Alertmanager webhook receiver under hostile clients (issue 23, Low): idle connections
cost no threads (one asyncio loop; connections over the cap are closed at once), a client that
trickles its request is cut off when its time is up, and when secrets.yaml gives the webhook a
bearer token or basic auth, a POST without it is refused before its body is read — the secret
never appearing in a reply or a log."""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from pydantic import SecretStr, ValidationError

from netopsai.backends.alertmanager.receiver import WebhookAuth, WebhookReceiver
from netopsai.backends.receivers import from_config
from netopsai.config.network import NetConfig, Secrets
from netopsai.store.apply import Event

BEARER = "am-webhook-bearer-5e1f"
PASSWORD = "am-webhook-pass-9c3b"
NOW = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
PAYLOAD = {"version": "4", "status": "firing", "receiver": "netopsai", "alerts": [
    {"status": "firing", "labels": {"alertname": "InterfaceOperDown", "device": "dc1-leaf-02"},
     "annotations": {"summary": "down"}, "startsAt": NOW, "fingerprint": "f1"}]}


def receiver(**kw: object) -> Iterator[tuple[WebhookReceiver, list[Event]]]:
    got: list[Event] = []
    r = WebhookReceiver("127.0.0.1", 0, got.append, **kw)  # type: ignore[arg-type]
    r.start()
    try:
        yield r, got
    finally:
        r.stop()


@pytest.fixture
def open_hook() -> Iterator[tuple[WebhookReceiver, list[Event]]]:
    yield from receiver(read_timeout=1.0, max_connections=32)


def post(r: WebhookReceiver, **kw: object) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{r.port}/", json=PAYLOAD, timeout=10, trust_env=False,
                      **kw)  # type: ignore[arg-type]


def test_three_hundred_idle_connections_do_not_make_three_hundred_threads() -> None:
    for hook, got in receiver(read_timeout=4.0, max_connections=32):
        idle_clients_cost_no_thread(hook, got)


def idle_clients_cost_no_thread(hook: WebhookReceiver, got: list[Event]) -> None:
    before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", hook.port)) for _ in range(300)]
    try:
        dropped: set[int] = set()
        deadline = time.monotonic() + 3  # a busy machine may take a moment to accept them all
        while len(dropped) < 300 - hook.max_connections and time.monotonic() < deadline:
            for i, s in enumerate(idle):
                s.settimeout(0.001)
                try:
                    if i not in dropped and s.recv(1) == b"":
                        dropped.add(i)
                except TimeoutError:
                    pass
        assert threading.active_count() - before <= 1  # not one thread per client
        assert len(dropped) == 300 - hook.max_connections  # over the cap: closed at once
        assert hook.connections == hook.max_connections  # the rest wait for their time to run out
        time.sleep(hook.read_timeout + 0.5)  # the idle ones' time runs out ...
        assert hook.connections == 0
        assert post(hook).status_code == 200 and len(got) == 1  # ... and Alertmanager gets in
    finally:
        for s in idle:
            s.close()


def test_a_slow_client_is_cut_off(open_hook: tuple[WebhookReceiver, list[Event]]) -> None:
    hook, got = open_hook
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", hook.port)) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\n")
        s.settimeout(0.1)
        reply = b""
        while time.monotonic() - started < 5 and not reply:
            try:
                s.sendall(b"X-Slow: a\r\n")  # a header line now and then: each read is quick
            except OSError:
                break
            try:
                reply = s.recv(200)
            except TimeoutError:
                continue
    elapsed = time.monotonic() - started
    assert reply.startswith(b"HTTP/1.1 408"), reply
    assert hook.read_timeout <= elapsed < hook.read_timeout + 1.5  # one deadline for the request
    assert got == []


@pytest.mark.parametrize("auth", [WebhookAuth(bearer=SecretStr(BEARER)),
                                  WebhookAuth(username="alertmanager", password=SecretStr(PASSWORD))],
                         ids=["bearer", "basic"])
def test_auth_is_required_when_configured(auth: WebhookAuth, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    basic = auth.password is not None
    good = ({"auth": ("alertmanager", PASSWORD)} if basic
            else {"headers": {"Authorization": f"Bearer {BEARER}"}})
    wrong = ({"auth": ("alertmanager", "guess")} if basic
             else {"headers": {"Authorization": "Bearer guess"}})
    for hook, got in receiver(auth=auth):
        none = post(hook)
        assert none.status_code == 401 and none.headers["www-authenticate"].startswith(
            "Basic" if basic else "Bearer")
        assert post(hook, **wrong).status_code == 401
        swapped = {"headers": {"Authorization": f"Bearer {PASSWORD}"}} if basic else \
            {"auth": ("alertmanager", BEARER)}
        assert post(hook, **swapped).status_code == 401  # the other scheme is not a way in
        assert got == []
        ok = post(hook, **good)
        assert ok.status_code == 200 and len(got) == 1
        replies = none.text + ok.text
    assert BEARER not in replies and PASSWORD not in replies
    assert not any(BEARER in r.getMessage() or PASSWORD in r.getMessage() for r in caplog.records)


def test_the_body_is_not_read_before_auth() -> None:
    for hook, got in receiver(auth=WebhookAuth(bearer=SecretStr(BEARER))):
        with socket.create_connection(("127.0.0.1", hook.port)) as s:
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
            s.settimeout(2)
            assert s.recv(100).startswith(b"HTTP/1.1 401")  # at once, not after a megabyte
        assert got == []


def test_secrets_yaml_configures_the_webhook() -> None:
    cfg = NetConfig(secrets=Secrets.model_validate({"webhook": {"bearer_token": BEARER}}))
    auth = from_config(cfg).webhook_auth
    assert auth is not None and auth.allows(f"Bearer {BEARER}") and not auth.allows("Bearer x")
    assert BEARER in cfg.secret_values()  # so the log filter and the tests know to look for it
    assert BEARER not in repr(cfg.secrets) and BEARER not in json.dumps(cfg.secrets.model_dump(mode="json"))
    assert from_config(NetConfig()).webhook_auth is None  # nothing configured: open, as before
    with pytest.raises(ValidationError, match="both username and password"):
        Secrets.model_validate({"webhook": {"username": "alertmanager"}})
    basic = base64.b64encode(f"alertmanager:{PASSWORD}".encode()).decode()
    cfg = NetConfig(secrets=Secrets.model_validate(
        {"webhook": {"username": "alertmanager", "password": PASSWORD}}))
    hook_auth = from_config(cfg).webhook_auth
    assert hook_auth is not None and hook_auth.allows(f"Basic {basic}")
