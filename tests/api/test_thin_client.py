"""The thin `ask` and `tool`: with NETOPSAI_URL set they send the work to a running `netopsai
api` and print what the standalone commands print; a refused token is a one-line error; a
server that does not answer means working standalone, said on stderr. (`api` also answers on the
home's socket, tests/api/test_thin_socket.py: the standalone reference runs in a copy of the home.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from netopsai_testkit.peers.process import free_port
from tests.api.test_api import QUESTION, TRACE, home, tokens, url

pytestmark = pytest.mark.integration
__all__ = ["home", "tokens", "url"]  # fixtures pytest finds by name


def netopsai(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env={**base, "NETOPSAI_HOME": str(home), **env}, timeout=300)


@pytest.fixture(scope="module")
def alone(home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the home taken before the server starts: no socket, so the CLI works here."""
    copy = tmp_path_factory.mktemp("thin-alone") / "home"
    shutil.copytree(home, copy, ignore=shutil.ignore_patterns("api.sock", "*.log"))
    return copy


def test_ask_through_the_server_matches_standalone(alone: Path, home: Path, tokens: dict[str, str],
                                                    url: str) -> None:
    server = {"NETOPSAI_URL": url, "NETOPSAI_TOKEN": tokens["reader"]}
    thin = netopsai(home, "ask", QUESTION, "--json", **server)
    alone_r = netopsai(alone, "ask", QUESTION, "--json")
    assert thin.returncode == alone_r.returncode == 0, thin.stderr + alone_r.stderr
    a, b = json.loads(thin.stdout), json.loads(alone_r.stdout)
    assert a["root_cause"] == b["root_cause"] and a["root_cause"]["label"] == "config.acl_block"
    assert a["answer"].split("\n")[0] == b["answer"].split("\n")[0]
    assert "not reachable" not in thin.stderr
    # --continue follows up in the same conversation, on the server
    first = netopsai(home, "ask", "who owns 10.1.3.20?", **server)
    follow = netopsai(home, "ask", "and its upstream switch?", "--continue", **server)
    assert "dc1-host-03-1" in first.stdout and "dc1-leaf-03" in follow.stdout
    bad = netopsai(home, "ask", "10.1.3.256 to 10.2.1.40 not communicating", **server)
    assert bad.returncode == 2 and "not a valid" in bad.stdout.split("\n")[0]


def test_tool_through_the_server(alone: Path, home: Path, tokens: dict[str, str], url: str) -> None:
    server = {"NETOPSAI_URL": url, "NETOPSAI_TOKEN": tokens["reader"]}
    thin = netopsai(home, "tool", "traceroute", json.dumps(TRACE), "--json", **server)
    alone_r = netopsai(alone, "tool", "traceroute", json.dumps(TRACE), "--json")
    assert json.loads(thin.stdout)["rows"] == json.loads(alone_r.stdout)["rows"]
    args = ("tool", "traceroute", '{"src": "10.1.3.256", "dst": "10.2.1.40"}')
    bad, bad_alone = netopsai(home, *args, **server), netopsai(alone, *args)
    assert bad.returncode == bad_alone.returncode != 0 and bad.stderr == bad_alone.stderr
    assert "not a valid IPv4 address" in bad.stderr
    assert bad.stderr.strip().count("\n") == 0 and "Traceback" not in bad.stderr


def test_a_refused_token_is_one_line(home: Path, url: str) -> None:
    r = netopsai(home, "ask", "who owns 10.1.3.20?", NETOPSAI_URL=url, NETOPSAI_TOKEN="nops_wrong")
    assert r.returncode != 0 and "refused the token" in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0


def test_no_server_means_standalone(home: Path) -> None:
    nobody = f"http://127.0.0.1:{free_port()}"
    r = netopsai(home, "ask", "who owns 10.1.3.20?", NETOPSAI_URL=nobody, NETOPSAI_TOKEN="x")
    assert r.returncode == 0 and "dc1-host-03-1" in r.stdout
    assert f"netopsai server at {nobody} not reachable" in r.stderr
