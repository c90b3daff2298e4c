"""MCP over HTTP checks who is asking (issue 23, B7): the server `netopsai mcp --transport http`
runs (http_app, on loopback, in this process) refuses a call without a bearer token of
`netopsai tokens`, or with one lacking the read scope; a read token works; two tokens cannot
continue each other's threads nor use each other's MCP session; and the command refuses to
bind a non-loopback address while no token exists, in one line."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from sqlalchemy import Engine

from netopsai.api import tokens
from netopsai.api.mcp_server import http_app
from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.process import free_port
from tests.cli_helpers import run_cli

pytestmark = pytest.mark.integration
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "probe", "version": "1"}}}
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return engine_for(f"sqlite:///{tmp_path_factory.mktemp('mcp-tokens') / 'tokens.db'}")


@pytest.fixture(scope="module")
def made(engine: Engine) -> dict[str, str]:
    return {"alice": tokens.create(engine, "alice", ["read"]),
            "bob": tokens.create(engine, "bob", ["read"]),
            "confirmer": tokens.create(engine, "confirmer", ["confirm"])}


@pytest.fixture(scope="module")
def copilot(backends: Backends) -> Copilot:
    return Copilot(backends)


@pytest.fixture(scope="module")
def url(copilot: Copilot, engine: Engine, made: dict[str, str]) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(copilot, engine, "127.0.0.1", port),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the MCP server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)


def post(url: str, token: str | None, body: dict[str, Any], **headers: str) -> httpx.Response:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(url, json=body, headers={**HEADERS, **auth, **headers}, timeout=30,
                      trust_env=False)


def test_no_token_a_bad_token_or_a_token_without_read_is_refused(url: str, made: dict[str, str]) -> None:
    assert post(url, None, INIT).status_code == 401
    assert "Bearer" in post(url, None, INIT).headers["www-authenticate"]
    assert post(url, "nops_not-a-real-token", INIT).status_code == 401
    assert post(url, made["confirmer"], INIT).status_code == 403  # a token, but not for reading


def test_a_read_token_works(url: str, made: dict[str, str]) -> None:
    r = post(url, made["alice"], INIT)
    assert r.status_code == 200 and "mcp-session-id" in r.headers


def diagnose(url: str, token: str, question: str, thread: str) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        transport = streamable_http_client(url, http_client=create_mcp_http_client(
            headers={"Authorization": f"Bearer {token}"}))
        async with Client(transport) as client:
            result = await client.call_tool("diagnose", {"question": question, "thread": thread})
        assert not result.is_error, result.content
        return dict(result.structured_content or {})
    return anyio.run(main)


def test_two_tokens_cannot_continue_each_others_threads(url: str, made: dict[str, str],
                                                        copilot: Copilot) -> None:
    first = diagnose(url, made["alice"], "who owns 10.1.3.20?", "shared")
    assert "dc1-host-03-1" in first["answer"]
    # bob names the same thread id: he gets a conversation of his own, not alice's context
    theirs = diagnose(url, made["bob"], "and its upstream switch?", "shared")
    assert "dc1-leaf-03" not in theirs["answer"]
    mine = diagnose(url, made["alice"], "and its upstream switch?", "shared")
    assert "dc1-leaf-03" in mine["answer"]  # the owner's follow-up still sees its context
    asked = {key: [m.content for m in copilot.thread(key).state["messages"] if m.type == "human"]
             for key in ("mcp:alice:shared", "mcp:bob:shared")}
    assert asked == {"mcp:alice:shared": ["who owns 10.1.3.20?", "and its upstream switch?"],
                     "mcp:bob:shared": ["and its upstream switch?"]}


def test_a_session_answers_only_the_token_that_opened_it(url: str, made: dict[str, str]) -> None:
    session = post(url, made["alice"], INIT).headers["mcp-session-id"]
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    hijack = post(url, made["bob"], listing, **{"mcp-session-id": session})
    assert hijack.status_code == 404


def test_the_command_refuses_a_public_address_without_tokens(tmp_path: Path) -> None:
    done = run_cli(tmp_path / "home", "mcp", "--transport", "http", "--host", "0.0.0.0",
                   "--port", str(free_port()))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "without authentication" in done.stderr
    assert "netopsai tokens create" in done.stderr
    bad = run_cli(tmp_path / "home", "mcp", "--transport", "carrier-pigeon")
    assert bad.returncode == 2 and "stdio or http" in bad.stderr and bad.stderr.count("\n") == 1
