"""The thin `ask` and `tool` over the home's Unix socket (issue 14 §5): a running `netopsai serve`
or `netopsai api` answers on $NETOPSAI_HOME/api.sock (0600, no token); with no NETOPSAI_URL the
CLI sends the work there and prints what the standalone commands print. The proof that the
socket answered: the client process never imports langgraph (`-X importtime`), which the
standalone one does. A stale socket file means standalone, silently; the next server replaces
it; a live one is left to its server; a clean exit removes it; TCP still needs a token."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from netopsai.api.socket_server import answers
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from tests.store_helpers import acl_home

pytestmark = pytest.mark.integration
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
TRACE = json.dumps({"src": "10.1.3.20", "dst": "10.2.1.40"})


def netopsai(home: Path, *args: str, trace: bool = False) -> subprocess.CompletedProcess[str]:
    """The CLI with no NETOPSAI_URL; `trace`: with -X importtime (the module list on stderr)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    flags = ["-X", "importtime"] if trace else []
    return subprocess.run([sys.executable, *flags, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env={**base, "NETOPSAI_HOME": str(home)}, timeout=300)


def imported(r: subprocess.CompletedProcess[str]) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def start(home: Path, command: str) -> tuple[subprocess.Popen[bytes], int]:
    """`netopsai serve` or `api` on a free port, once its TCP port and the socket answer."""
    port, log = free_port(), home / f"{command}.log"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    with log.open("ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", command, "--port", str(port)],
                                env={**base, "NETOPSAI_HOME": str(home)}, stdout=out,
                                stderr=subprocess.STDOUT)
    wait_listening(port, proc, log)
    for _ in range(100):  # bound before the TCP listener starts: normally there already
        if answers(home / "api.sock"):
            break
        time.sleep(0.1)
    return proc, port


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The served home and a copy of it no server ever touches (the standalone reference)."""
    home = acl_home(tmp_path_factory.mktemp("sock-home"), "sock-acl")
    home.chmod(0o700)
    alone = tmp_path_factory.mktemp("sock-alone") / "home"
    shutil.copytree(home, alone)
    return home, alone


@pytest.fixture(scope="module")
def served(homes: tuple[Path, Path]) -> Iterator[Path]:
    proc, _port = start(homes[0], "serve")
    try:
        yield homes[0]
    finally:
        stop(proc)


def same_answer(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in ("answer", "root_cause", "ruled_out", "citations", "evidence", "intent",
                "input_errors", "llm_calls"):
        assert a[key] == b[key], key
    assert [s["node"] for s in a["steps"]] == [s["node"] for s in b["steps"]]


def test_ask_through_the_socket_matches_standalone(homes: tuple[Path, Path], served: Path) -> None:
    sock = served / "api.sock"
    assert sock.is_socket() and (sock.stat().st_mode & 0o777) == 0o600
    thin, alone = netopsai(served, "ask", QUESTION, "--json"), netopsai(homes[1], "ask", QUESTION, "--json")
    assert thin.returncode == alone.returncode == 0, thin.stderr + alone.stderr
    a, b = json.loads(thin.stdout), json.loads(alone.stdout)
    same_answer(a, b)
    assert a["root_cause"]["label"] == "config.acl_block" and thin.stderr == ""
    assert "langgraph" not in imported(netopsai(served, "ask", QUESTION, trace=True))
    assert "langgraph" in imported(netopsai(homes[1], "ask", QUESTION, trace=True))  # the control
    first = netopsai(served, "ask", "who owns 10.1.3.20?")
    follow = netopsai(served, "ask", "and its upstream switch?", "--continue")
    assert "dc1-host-03-1" in first.stdout and "dc1-leaf-03" in follow.stdout
    bad_q = "10.1.3.256 to 10.2.1.40 not communicating"
    bad, bad_alone = netopsai(served, "ask", bad_q), netopsai(homes[1], "ask", bad_q)
    assert bad.returncode == bad_alone.returncode == 2 and bad.stdout == bad_alone.stdout


def test_tool_through_the_socket(homes: tuple[Path, Path], served: Path) -> None:
    thin = netopsai(served, "tool", "traceroute", TRACE, "--json", trace=True)
    alone = netopsai(homes[1], "tool", "traceroute", TRACE, "--json")
    assert thin.returncode == alone.returncode == 0
    assert json.loads(thin.stdout) == json.loads(alone.stdout)
    assert "langgraph" not in imported(thin) and "netopsai.tools.registry" not in imported(thin)
    for args in (("tool", "traceroute", '{"src": "10.1.3.256", "dst": "10.2.1.40"}'),
                 ("tool", "traceroute", TRACE)):
        t, s = netopsai(served, *args), netopsai(homes[1], *args)
        assert (t.returncode, t.stdout, t.stderr) == (s.returncode, s.stdout, s.stderr)


def test_a_live_socket_is_not_stolen_and_tcp_needs_a_token(served: Path) -> None:
    sock = served / "api.sock"
    inode = sock.stat().st_ino
    api, port = start(served, "api")
    try:
        assert "left to it" in (served / "api.log").read_text()
        assert sock.stat().st_ino == inode
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as c:
            assert c.post("/api/tools/traceroute", json=json.loads(TRACE)).status_code == 401
            bad = c.post("/api/ask", json={"question": QUESTION},
                         headers={"Authorization": "Bearer nops_wrong"})
            assert bad.status_code == 401
    finally:
        stop(api)
    # had the api taken the socket, its exit would have removed it
    assert sock.stat().st_ino == inode and answers(sock)


def test_stale_socket_then_replaced_then_removed_on_exit(homes: tuple[Path, Path],
                                                 tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(homes[1], home)
    sock = home / "api.sock"
    serve, _port = start(home, "serve")
    serve.send_signal(signal.SIGKILL)
    serve.wait()
    assert sock.is_socket() and not answers(sock)  # a crashed server's file
    r = netopsai(home, "ask", "who owns 10.1.3.20?", trace=True)
    assert r.returncode == 0 and "dc1-host-03-1" in r.stdout and "langgraph" in imported(r)
    assert "not reachable" not in r.stderr
    api, port = start(home, "api")
    try:
        assert answers(sock)  # replaced (an inode number may be reused: not a proof)
        assert (sock.stat().st_mode & 0o777) == 0o600
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as c:
            assert c.post("/api/tools/traceroute", json=json.loads(TRACE)).status_code == 401
        thin = netopsai(home, "tool", "traceroute", TRACE, "--json", trace=True)
        assert thin.returncode == 0 and "netopsai.tools.registry" not in imported(thin)
    finally:
        stop(api)
    assert api.returncode == 0 and not sock.exists()
    serve, _port = start(home, "serve")  # the web app's own clean exit (SIGTERM) removes it too
    assert answers(sock)
    stop(serve)
    assert serve.returncode == 0 and not sock.exists()
