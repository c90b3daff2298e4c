"""The API's and the MCP server's uvicorn are bounded (red team 2, C): connections trickling
their headers used to stay open for as long as they liked, with no cap. Now (limits.
uvicorn_options) at most NETOPSAI_HTTP_MAX_CONNECTIONS are served (503 past it, at once), a
request's headers must be in within NETOPSAI_HTTP_HEADER_TIMEOUT_S, and then the server
answers everyone again."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from netopsai.api.limits import HttpLimits, uvicorn_options
from netopsai_testkit.peers.process import free_port


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def port() -> Iterator[int]:
    port = free_port()
    limits = HttpLimits(max_connections=5, header_timeout_s=1.0)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           **uvicorn_options(limits)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


def get(port: int) -> int:
    return httpx.get(f"http://127.0.0.1:{port}/", timeout=5, trust_env=False).status_code


def test_idle_connections_past_the_cap_leave_the_server_answering(port: int) -> None:
    loris = []
    for _ in range(30):  # six times the cap, each trickling an unfinished request
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-a: ")
        loris.append(s)
    t0 = time.monotonic()
    assert get(port) in (200, 503)  # answered at once (503: uvicorn's own cap)
    assert time.monotonic() - t0 < 3
    time.sleep(1.6)  # past the header deadline: every trickling connection is closed
    for s in loris:
        s.settimeout(2)
        try:
            s.sendall(b"b\r\n")
            data = s.recv(100)
        except TimeoutError:
            pytest.fail("a connection trickling its headers is still open past the deadline")
        except OSError:
            data = b""  # reset: closed as well
        assert data == b""
        s.close()
    assert get(port) == 200


def test_a_trickle_that_keeps_sending_is_cut_too(port: int) -> None:
    s = socket.create_connection(("127.0.0.1", port))
    s.settimeout(0.2)
    closed_at = None
    t0 = time.monotonic()
    while time.monotonic() - t0 < 4:
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


def test_a_kept_alive_connection_still_serves_requests(port: int) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as client:
        for _ in range(3):
            assert client.get("/").status_code == 200
            time.sleep(0.6)  # within keep-alive; the header deadline is re-armed each time
