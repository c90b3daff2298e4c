"""`netopsai api` as a client sees it: a real server process on loopback, tokens made with the
CLI, every call over HTTP. Read-only calls need the `read` scope, confirming a diagnosis the
`confirm` scope; a caller's threads are its own; answers stream as server-sent events."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from netopsai.backends.lab import lab_backends
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from tests.store_helpers import acl_home

pytestmark = pytest.mark.integration
QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
TRACE = {"src": "10.1.3.20", "dst": "10.2.1.40"}


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env={**env, "NETOPSAI_HOME": str(home)}, timeout=120)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return acl_home(tmp_path_factory.mktemp("api-home"), "api-acl")


@pytest.fixture(scope="module")
def tokens(home: Path) -> dict[str, str]:
    made = {}
    for name, scopes in (("reader", ["read"]), ("other", ["read"]), ("lead", ["read", "confirm"])):
        r = cli(home, "tokens", "create", name, *(x for s in scopes for x in ("--scope", s)))
        assert r.returncode == 0, r.stderr
        made[name] = r.stdout.strip()
    return made


@pytest.fixture(scope="module")
def url(home: Path, tokens: dict[str, str]) -> Iterator[str]:
    port = free_port()
    log = home / "api.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "api", "--port", str(port)],
                                env={**env, "NETOPSAI_HOME": str(home)}, stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)


def client(url: str, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=url, headers=headers, timeout=60, trust_env=False)


def test_tokens_cli(home: Path, tokens: dict[str, str]) -> None:
    assert all(t.startswith("nops_") and len(t) > 40 for t in tokens.values())
    listed = cli(home, "tokens", "list").stdout
    assert "reader\tread\tactive" in listed and "lead\tread,confirm\tactive" in listed
    assert not any(t in listed for t in tokens.values())  # only hashes are kept
    again = cli(home, "tokens", "create", "reader")
    assert again.returncode != 0 and again.stderr.strip().count("\n") == 0
    assert "exists" in again.stderr and "Traceback" not in again.stderr
    bad = cli(home, "tokens", "create", "x", "--scope", "write")
    assert bad.returncode != 0 and "unknown scope 'write'" in bad.stderr


def test_every_call_but_health_needs_a_valid_token(url: str, home: Path) -> None:
    with client(url, None) as anon, client(url, "nops_not-a-token") as wrong:
        assert anon.get("/api/health").json()["status"] == "ok"
        assert anon.post("/api/tools/alarms", json={}).status_code == 401
        assert wrong.post("/api/ask", json={"question": "who owns 10.1.3.20?"}).status_code == 401
    made = cli(home, "tokens", "create", "temp").stdout.strip()
    with client(url, made) as temp:
        assert temp.post("/api/tools/alarms", json={"window": "1h"}).status_code == 200
        assert cli(home, "tokens", "revoke", "temp").returncode == 0
        assert temp.post("/api/tools/alarms", json={"window": "1h"}).status_code == 401  # at once


def test_tools_return_the_clis_evidence(url: str, home: Path, tokens: dict[str, str]) -> None:
    local = run_tool("traceroute", TRACE, lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")))
    with client(url, tokens["reader"]) as c:
        got = c.post("/api/tools/traceroute", json=TRACE)
        assert got.status_code == 200 and got.json()["rows"] == local.model_dump(mode="json")["rows"]
        bad = c.post("/api/tools/traceroute", json={"src": "10.1.3.256", "dst": "10.2.1.40"})
        assert bad.status_code == 422 and "not a valid IPv4 address" in bad.json()["errors"][0]
        missing = c.post("/api/tools/nope", json={})
        assert missing.status_code == 404 and "traceroute" in missing.json()["detail"]
        cases = c.get("/api/alarms", params={"window": "2h"}).json()
        assert cases["tool"] == "alarms" and "cases" in cases["facts"]
        assert "/api/ask" in c.get("/openapi.json").json()["paths"]


def test_ask_as_json_and_as_events(url: str, tokens: dict[str, str]) -> None:
    with client(url, tokens["reader"]) as c:
        whole = c.post("/api/ask", json={"question": QUESTION}).json()
        assert (whole["root_cause"]["label"], whole["root_cause"]["device"]) == \
            ("config.acl_block", "dc1-leaf-03")
        assert set(whole["citations"]) <= {e["id"] for e in whole["evidence"]} and whole["steps"]
        events: list[tuple[str, Any]] = []
        with c.stream("POST", "/api/ask", json={"question": QUESTION},
                      headers={"Accept": "text/event-stream"}) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            kind = ""
            for line in r.iter_lines():
                if line.startswith("event:"):
                    kind = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    events.append((kind, json.loads(line.split(":", 1)[1])))
    kinds = [k for k, _ in events]
    assert kinds[0] == "step" and kinds[-1] == "answer" and kinds.count("answer") == 1
    assert events[0][1]["node"] == "planner" and events[0][1]["intent"] == "diagnose.connectivity"
    assert any(d.get("node") == "diagnose" for _, d in events)
    final = events[-1][1]
    assert final["root_cause"] == whole["root_cause"] and final["answer"] == whole["answer"]


def test_threads_follow_up_and_stay_with_their_caller(url: str, tokens: dict[str, str]) -> None:
    with client(url, tokens["reader"]) as a, client(url, tokens["other"]) as b:
        first = a.post("/api/ask", json={"question": "who owns 10.1.3.20?"}).json()
        thread = first["thread"]
        follow = a.post("/api/ask", json={"question": "and its upstream switch?", "thread": thread})
        assert "dc1-leaf-03" in follow.json()["answer"] and follow.json()["intent"] != "unknown"
        stranger = b.post("/api/ask", json={"question": "and its upstream switch?", "thread": thread})
        assert stranger.json()["evidence"] == [] or stranger.json()["evidence"][0]["id"] == "E1"
        assert "dc1-host-03-1" not in stranger.json()["answer"]  # nothing of a's conversation


def test_confirm_needs_its_scope(url: str, tokens: dict[str, str]) -> None:
    with client(url, tokens["reader"]) as reader, client(url, tokens["lead"]) as lead:
        t = lead.post("/api/ask", json={"question": QUESTION}).json()["thread"]
        assert reader.post("/api/incidents/confirm", json={"thread": t}).status_code == 403
        ok = lead.post("/api/incidents/confirm", json={"thread": t})
        assert ok.status_code == 200 and ok.json()["label"] == "config.acl_block"
        none = lead.post("/api/incidents/confirm", json={"thread": "never-asked"})
        assert none.status_code == 400 and none.json()["error"]


def test_batch_job_progress_and_csv_in_input_order(url: str, home: Path, tokens: dict[str, str]) -> None:
    inv = lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")).inventory
    dst = [h["ip"] for h in inv.hosts("dc2", None, None)][:12]
    lines = [f"10.1.3.20,{d}" for d in dst] + ["not-an-ip,10.2.1.40"]
    with client(url, tokens["reader"]) as c:
        job = c.post("/api/batch", json={"pairs": "\n".join(lines)})
        assert job.status_code == 202 and job.json()["total"] == len(dst)
        assert "not-an-ip" in job.json()["notes"][0]
        status = job.json()
        for _ in range(300):
            status = c.get(f"/api/batch/{status['job']}").json()
            if status["state"] != "running":
                break
            time.sleep(0.1)
        assert status["state"] == "done" and status["done"] == len(dst)
        rows = c.get(f"/api/batch/{status['job']}/csv").text.splitlines()
        assert rows[0].startswith("line,src,dst") and len(rows) == 1 + len(dst)
        assert [r.split(",")[2] for r in rows[1:]] == dst  # input order
        blocked = [d for d in dst if d.startswith("10.2.1.")]
        assert status["summary"]["status"].get("unreachable", 0) == len(blocked)
        assert c.get("/api/batch/nope").status_code == 404  # unknown, or another token's
        assert c.post("/api/batch", json={"pairs": "nonsense"}).status_code == 400
