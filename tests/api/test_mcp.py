"""`netopsai mcp` with the MCP SDK's own client, over stdio (the client starts the server) and
Streamable HTTP (a server process on loopback): the tools' schemas are the planner's, results
are the same evidence the CLI prints, bad arguments are error results naming the problem, and
`diagnose` names the injected fault."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from netopsai.api import tokens
from netopsai.backends.lab import lab_backends
from netopsai.store.engine import engine_for
from netopsai.tools.registry import REGISTRY, run_tool
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from tests.store_helpers import acl_home

pytestmark = pytest.mark.integration
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
TRACE = {"src": "10.1.3.20", "dst": "10.2.1.40"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return acl_home(tmp_path_factory.mktemp("mcp-home"), "mcp-acl")


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    return {**env, "NETOPSAI_HOME": str(home), "NO_PROXY": "127.0.0.1,localhost"}


def bearer(url: str, token: str) -> Any:
    """The Streamable HTTP transport sending `token` as its bearer token."""
    return streamable_http_client(url, http_client=create_mcp_http_client(
        headers={"Authorization": f"Bearer {token}"}))


@pytest.fixture(scope="module")
def ide_token(home: Path) -> str:
    """A read token, as `netopsai tokens create ide` makes it: HTTP callers need one."""
    return tokens.create(engine_for(f"sqlite:///{home / 'netopsai.db'}"), "ide", ["read"])


@pytest.fixture(scope="module")
def http_url(home: Path, ide_token: str) -> Iterator[str]:
    port = free_port()
    log = home / "mcp-http.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "mcp", "--http", "--port",
                                 str(port)], env=server_env(home), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(proc)


def session(target: Any, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Connect, list the tools, make the calls in order; everything the client received."""
    async def main() -> dict[str, Any]:
        async with Client(target) as client:
            listed = await client.list_tools()
            results = [await client.call_tool(name, args) for name, args in calls]
        return {"tools": listed.tools, "results": results}
    return anyio.run(main)


CALLS = [("traceroute", TRACE), ("traceroute", {"src": "10.1.3.256", "dst": "10.2.1.40"}),
         ("no_such_tool", {}), ("diagnose", {"question": QUESTION}),
         ("diagnose", {"question": QUESTION}),
         ("diagnose", {"question": "who owns 10.1.3.20?", "thread": "t1"}),
         ("diagnose", {"question": "and its upstream switch?", "thread": "t1"})]


def check_session(got: dict[str, Any], home: Path) -> None:
    tools = {t.name: t for t in got["tools"]}
    assert set(tools) == {*REGISTRY, "diagnose"}
    for name, t in REGISTRY.items():  # the planner's own schema, marked read-only
        assert tools[name].input_schema == t.schema()["parameters"]
        assert tools[name].annotations.read_only_hint is True
    trace, bad, unknown, diagnosis, again, owner, follow_up = got["results"]
    local = run_tool("traceroute", TRACE, lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")))
    assert not trace.is_error and trace.structured_content["rows"] == local.model_dump(mode="json")["rows"]
    assert trace.content[0].text.startswith(local.summary)
    assert bad.is_error and "'10.1.3.256' is not a valid IPv4 address" in bad.content[0].text
    assert unknown.is_error and "unknown tool 'no_such_tool'" in unknown.content[0].text
    assert "traceroute" in unknown.content[0].text  # it lists the tools there are
    rc = diagnosis.structured_content["root_cause"]
    assert (rc["label"], rc["device"]) == ("config.acl_block", "dc1-leaf-03")
    assert "[E1]" in diagnosis.content[0].text
    cited = {e["id"] for e in diagnosis.structured_content["evidence"]}
    assert set(diagnosis.structured_content["citations"]) <= cited
    # without a thread each question is a conversation of its own (its evidence starts at E1)
    assert again.structured_content["thread"] != diagnosis.structured_content["thread"]
    assert again.structured_content["evidence"][0]["id"] == "E1"
    # with one, a follow-up sees the earlier question: "its" is 10.1.3.20's host
    assert owner.structured_content["thread"] == follow_up.structured_content["thread"] == "t1"
    assert "dc1-host-03-1" in owner.content[0].text
    assert "dc1-leaf-03" in follow_up.content[0].text and follow_up.structured_content["intent"] != "unknown"


def test_stdio_the_client_starts_the_server(home: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "netopsai.cli", "mcp"],
                                   env=server_env(home))
    check_session(session(params, CALLS), home)


def test_streamable_http(home: Path, http_url: str, ide_token: str) -> None:
    check_session(session(bearer(http_url, ide_token), CALLS), home)


def test_http_refuses_a_foreign_host_header(http_url: str, ide_token: str) -> None:
    # DNS rebinding: a page elsewhere must not reach a loopback server through its own name
    # (with a valid token, so it is the Host that is refused, not the missing token)
    r = httpx.post(http_url, headers={"Host": "attacker.example", "Content-Type": "application/json",
                                      "Accept": "application/json, text/event-stream",
                                      "Authorization": f"Bearer {ide_token}"},
                   json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10)
    assert r.status_code in (403, 421), r.status_code
