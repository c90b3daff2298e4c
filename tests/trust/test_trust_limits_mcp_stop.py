"""The MCP HTTP server stops promptly (issue 23, B6): `netopsai mcp --transport http` told to
stop (SIGTERM) while a `diagnose` call is running used to wait for the call, however long it
took (the call held a worker thread uvicorn and the interpreter both waited for). Now the
running call is answered at once with an error result saying the server is stopping, the call
stops at its next step, and the process exits within seconds — as a process on loopback, with
a planning step that would take two minutes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from netopsai_testkit.peers.process import free_port, stop, wait_listening
from tests.cli_helpers import run_cli, small_lab_home

pytestmark = pytest.mark.integration
SLOW_PLAN = """
import sys, time
from pathlib import Path
import netopsai.copilot.nodes as nodes
marker = Path(sys.argv.pop(1))
def plan(*args, **kwargs):  # a planning step that would take two minutes
    marker.write_text("planning")
    time.sleep(120)
nodes.plan = plan
from netopsai.launch.app import run
run()
"""
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rpc(url: str, token: str, body: dict[str, Any], session: str | None = None,
        timeout: float = 30) -> httpx.Response:
    headers = {**HEADERS, "Authorization": f"Bearer {token}"}
    if session:
        headers["mcp-session-id"] = session
    return httpx.post(url, json=body, headers=headers, timeout=timeout, trust_env=False)


def session(url: str, token: str) -> str:
    """An initialised MCP session (the handshake a client makes), by its id."""
    init = rpc(url, token, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "stop-probe", "version": "1"}}})
    assert init.status_code == 200, init.text
    sid = init.headers["mcp-session-id"]
    done = rpc(url, token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    assert done.status_code == 202, done.text
    return sid


def test_sigterm_stops_the_mcp_server_while_a_call_runs(tmp_path: Path) -> None:
    home = small_lab_home(tmp_path)
    token = run_cli(home, "tokens", "create", "ci").stdout.strip()
    launcher, marker, log = tmp_path / "slow_mcp.py", tmp_path / "planning", tmp_path / "mcp.log"
    launcher.write_text(SLOW_PLAN)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, str(launcher), str(marker), "mcp", "--transport",
                                 "http", "--port", str(port)], env={**env, "NETOPSAI_HOME": str(home)},
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc, log)
        sid = session(url, token)
        got: dict[str, Any] = {}

        def diagnose() -> None:
            got["r"] = rpc(url, token, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "diagnose", "arguments": {"question": "alarms on dc1-leaf-03"}}}, sid, 60)
        caller = threading.Thread(target=diagnose)
        caller.start()
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()[-2000:]
            time.sleep(0.1)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)  # the planning step alone had two minutes to go
        took = time.monotonic() - t0
        caller.join(10)
        assert took < 8, f"{took:.1f} s: the server waited rather than answering the call"
        reply = got["r"]
        assert reply.status_code == 200, reply.text
        assert '"isError":true' in reply.text.replace(" ", "") and "server is stopping" in reply.text
        assert "Traceback" not in log.read_text()
    finally:
        stop(proc)
