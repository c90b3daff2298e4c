"""Every request is sized before any work (issue 23, B6): `/api/ask` used to read a whole
300 KB body, parse it and plan it. Now the API (`netopsai api`) and the MCP server (`netopsai
mcp --transport http`) refuse a body over NETOPSAI_HTTP_MAX_BODY_KB (64) with 413 before the
handler runs — a Content-Length over the limit at once, before authentication and without
reading the body; a chunked body, which has none, cut at the limit while it is read — and the
webhook receiver takes a body only with a Content-Length within its limit (411, 413)."""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine

from netopsai.api import tokens
from netopsai.api.http import build_api
from netopsai.api.limits import BodyLimit, HttpLimits
from netopsai.api.mcp_server import http_app
from netopsai.backends.alertmanager.receiver import MAX_BODY, WebhookReceiver
from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.process import free_port

pytestmark = pytest.mark.integration
BIG = 300 << 10  # the question size of the finding
LIMIT = HttpLimits().max_body


class Spy:
    """Stands in for the copilot's door: records whether a handler reached it."""

    def __init__(self, copilot: Copilot) -> None:
        self.calls: list[str] = []
        copilot.check_question = self.record  # type: ignore[method-assign]
        copilot.answer = self.record  # type: ignore[method-assign]

    def record(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(str(args[0])[:20])
        raise NetopsError("the spy stops here")


@pytest.fixture(scope="module")
def token_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return engine_for(f"sqlite:///{tmp_path_factory.mktemp('limits-tokens') / 'tokens.db'}")


@pytest.fixture(scope="module")
def token(token_engine: Engine) -> str:
    return tokens.create(token_engine, "limits", ["read"])


def serve(app: Any) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def api(backends: Backends, token_engine: Engine) -> Iterator[tuple[str, Spy]]:
    """The API as `netopsai api` serves it (tokens required), its copilot's door spied on."""
    copilot = Copilot(backends)
    spy = Spy(copilot)
    for url in serve(build_api(copilot, token_engine)):
        yield url, spy


@pytest.fixture(scope="module")
def mcp(backends: Backends, token_engine: Engine) -> Iterator[tuple[str, Spy]]:
    copilot = Copilot(backends)
    spy = Spy(copilot)
    port = free_port()
    app = http_app(copilot, token_engine, "127.0.0.1", port)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", spy
    server.should_exit = True
    thread.join(10)


def ask_body(size: int) -> bytes:
    return json.dumps({"question": "x" * size}).encode()


def post(url: str, body: bytes, token: str | None = None) -> tuple[httpx.Response, float]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    t0 = time.monotonic()
    r = httpx.post(url, content=body, headers=headers, timeout=30, trust_env=False)
    return r, time.monotonic() - t0


def test_a_300_kb_question_gets_413_at_once_and_no_handler_runs(api: tuple[str, Spy], token: str) -> None:
    url, spy = api
    for who in (token, None):  # sized before authentication: an anonymous flood costs as little
        r, took = post(f"{url}/api/ask", ask_body(BIG), who)
        assert r.status_code == 413 and took < 1.0, (r.status_code, took)
        assert "64 KB" in r.json()["error"] and "NETOPSAI_HTTP_MAX_BODY_KB" in r.json()["error"]
        assert r.headers["connection"] == "close"
    assert spy.calls == []
    # a question of the usual size still reaches the door
    r, _ = post(f"{url}/api/ask", ask_body(100), token)
    assert r.status_code == 400 and spy.calls == ["x" * 20]
    spy.calls.clear()


def chunked(port: int, path: str, total: int, headers: str = "", chunk: int = 4096) -> tuple[bytes, int]:
    """POST a body of `total` bytes in chunks (Transfer-Encoding: chunked, no Content-Length),
    a little at a time, reading the reply as soon as there is one: (the reply, bytes sent)."""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                  f"Accept: application/json, text/event-stream\r\n{headers}"
                  "Transfer-Encoding: chunked\r\n\r\n".encode())
        body = b'{"question": "' + b"x" * (total - 20) + b'"}'
        # poll, not select: a long-lived test worker may hold descriptors past select's 1024
        readable = select.poll()
        readable.register(s, select.POLLIN)
        try:
            while sent < len(body) and not readable.poll(0):
                part = body[sent:sent + chunk]
                s.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                sent += len(part)
                time.sleep(0.002)
            if sent >= len(body):
                s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server closed its end after answering: the reply is still there to read
        reply = b""
        while chunk_read := s.recv(65536):
            reply += chunk_read
            if b"\r\n\r\n" in reply and reply.endswith(b"}"):
                break
        return reply, sent


def test_a_chunked_body_is_cut_at_the_cap(api: tuple[str, Spy], token: str) -> None:
    url, spy = api
    total = 4 << 20  # 4 MB on offer; the server stops reading at 64 KB
    reply, sent = chunked(int(url.rsplit(":", 1)[1]), "/api/ask", total,
                          f"Authorization: Bearer {token}\r\n")
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert b"64 KB" in reply
    assert sent < total // 4  # answered while the client was still sending, not after
    assert spy.calls == []


def test_batch_pairs_may_be_larger_than_a_question(api: tuple[str, Spy], token: str) -> None:
    url, _ = api
    pairs = "not-an-address\n" * 8000  # 120 KB: over the default, within the batch's own limit
    r = httpx.post(f"{url}/api/batch", json={"pairs": pairs}, timeout=30, trust_env=False,
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 400, r.text  # read and parsed: the pairs' own verdict, not a 413
    assert "line 1" in r.json()["error"]


def test_mcp_refuses_a_big_or_chunked_body_before_the_server_reads_it(mcp: tuple[str, Spy],
                                                                      token: str) -> None:
    url, spy = mcp
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "diagnose", "arguments": {"question": "x" * BIG}}}
    for who in (token, None):
        r, took = post(f"{url}/mcp", json.dumps(call).encode(), who)
        assert r.status_code == 413 and took < 1.0, (r.status_code, took)
    reply, sent = chunked(int(url.rsplit(":", 1)[1]), "/mcp", 4 << 20,
                          f"Authorization: Bearer {token}\r\n")
    assert reply.startswith(b"HTTP/1.1 413") and sent < 1 << 20, reply[:200]
    assert spy.calls == []


def test_the_limit_is_a_setting_with_a_one_line_error(monkeypatch: pytest.MonkeyPatch,
                                                      backends: Backends, token_engine: Engine) -> None:
    from fastapi.testclient import TestClient

    monkeypatch.setenv("NETOPSAI_HTTP_MAX_BODY_KB", "1")
    client = TestClient(build_api(Copilot(backends), token_engine, local=True))
    r = client.post("/api/ask", json={"question": "y" * 2000})
    assert r.status_code == 413 and "1 KB" in r.json()["error"]
    monkeypatch.setenv("NETOPSAI_HTTP_MAX_BODY_KB", "lots")
    with pytest.raises(NetopsError, match="NETOPSAI_HTTP_MAX_BODY_KB") as err:
        build_api(Copilot(backends), token_engine, local=True)
    assert "\n" not in str(err.value)


def run_asgi(app: Any, scope: dict[str, Any], chunks: list[bytes]) -> list[dict[str, Any]]:
    import asyncio

    sent: list[dict[str, Any]] = []
    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
               for i, c in enumerate(chunks)]

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
    asyncio.run(app(scope, receive, send))
    return sent


def test_the_middleware_hands_the_app_no_more_than_the_cap() -> None:
    """At the ASGI level: an app that reads everything it is given gets at most the limit and
    one chunk, whatever it answers is replaced by the 413, and a Content-Length over the limit
    never calls it."""
    got = {"bytes": 0, "calls": 0}

    async def greedy(scope: Any, receive: Any, send: Any) -> None:
        got["calls"] += 1
        try:
            while True:
                message = await receive()
                got["bytes"] += len(message.get("body", b""))
                if not message.get("more_body"):
                    break
        except Exception:  # a framework answers a failed read with a 400 of its own
            await send({"type": "http.response.start", "status": 400, "headers": []})
            await send({"type": "http.response.body", "body": b"bad body"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = BodyLimit(greedy, 10 << 10, {"/big": 1 << 20})
    scope = {"type": "http", "path": "/ask", "headers": []}
    sent = run_asgi(app, scope, [b"z" * 1024] * 100)
    assert sent[0]["status"] == 413 and len(sent) == 2 and b"10 KB" in sent[1]["body"]
    assert got["bytes"] <= (10 << 10) + 1024
    sent = run_asgi(app, {**scope, "path": "/big"}, [b"z" * 1024] * 100)  # its own limit
    assert sent[0]["status"] == 200 and got["bytes"] > 100 << 10
    calls = got["calls"]
    sent = run_asgi(app, {**scope, "headers": [(b"content-length", b"999999")]}, [b"z"])
    assert sent[0]["status"] == 413 and got["calls"] == calls
    sent = run_asgi(app, {**scope, "headers": [(b"content-length", b"-5")]}, [b"z"])
    assert sent[0]["status"] == 400 and got["calls"] == calls


def test_the_webhook_receiver_sizes_a_body_before_reading_it() -> None:
    got: list[Any] = []
    hook = WebhookReceiver("127.0.0.1", 0, got.append)
    hook.start()
    try:
        for head, code in ((f"Content-Length: {MAX_BODY + 1}\r\n", b"413"),
                           ("Transfer-Encoding: chunked\r\n", b"411")):
            with socket.create_connection(("127.0.0.1", hook.port)) as s:
                t0 = time.monotonic()
                s.sendall(f"POST / HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode())
                s.settimeout(2)
                assert s.recv(100).startswith(b"HTTP/1.1 " + code)  # at once, no body read
                assert time.monotonic() - t0 < 1.0
    finally:
        hook.stop()
    assert got == []
