"""Work stops when nobody waits for it (issue 23, B6): an answer has a time budget, checked
between the graph's steps; `/api/ask` stops its answer when the caller hangs up (JSON or
server-sent events); and `netopsai api` exits promptly on SIGTERM while an answer is still
running (it used to wait for the answer, a minute and more)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.copilot.service import AskLimits, Copilot, Stopped
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from tests.cli_helpers import run_cli, small_lab_home

STEPS = 200
STEP_S = 0.05  # the whole scripted answer: 10 s


class SlowGraph:
    """Stands in for the compiled graph: many short steps, each counted, so a test sees
    whether work goes on after the caller has gone."""

    def __init__(self) -> None:
        self.ran = 0
        self.closed = threading.Event()  # the run was ended (its generator closed)

    def stream(self, inputs: Any, config: Any, stream_mode: str) -> Iterator[dict[str, Any]]:
        try:
            for i in range(STEPS):
                time.sleep(STEP_S)
                self.ran += 1
                yield {f"step{i}": {}}
        finally:
            self.closed.set()

    def get_state(self, config: Any) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(values={})


def _copilot(backends: Backends, budget: float = 300) -> tuple[Copilot, SlowGraph]:
    cp = Copilot(backends, limits=AskLimits(ask_budget_s=budget))
    graph = SlowGraph()
    cp.graph = graph  # type: ignore[assignment]
    return cp, graph


def _settled(graph: SlowGraph) -> int:
    """The step count once it stops moving (or the scripted answer has run out)."""
    before = -1
    while graph.ran != before:
        before = graph.ran
        time.sleep(10 * STEP_S)
    return graph.ran


def test_an_answer_stops_when_its_budget_is_spent(backends: Backends) -> None:
    cp, graph = _copilot(backends, budget=0.3)
    with pytest.raises(Stopped, match="time budget") as err:
        cp.answer("alarms on dc1-leaf-03", "t1")
    assert "\n" not in str(err.value)
    assert graph.closed.is_set() and _settled(graph) < STEPS // 4
    asked = {"n": 0}

    def stop() -> bool:  # a caller that gives up after three steps
        asked["n"] += 1
        return asked["n"] > 3
    cp, graph = _copilot(backends)
    with pytest.raises(Stopped, match="stopped"):
        cp.answer("alarms on dc1-leaf-03", "t2", stop=stop)
    assert graph.ran == 3 and graph.closed.is_set()


def test_api_ask_says_when_the_budget_is_spent(backends: Backends, lab_engine: Engine) -> None:
    from fastapi.testclient import TestClient

    from netopsai.api.http import build_api

    cp, graph = _copilot(backends, budget=0.3)
    r = TestClient(build_api(cp, lab_engine, local=True)).post(
        "/api/ask", json={"question": "alarms on dc1-leaf-03"})
    assert r.status_code == 503 and "0.3 s, the time budget" in r.json()["error"]
    assert graph.closed.is_set() and _settled(graph) < STEPS // 4


@pytest.fixture
def served(backends: Backends, lab_engine: Engine) -> Iterator[tuple[str, SlowGraph]]:
    """The API (the owner's instance: no token) over the slow graph, on loopback."""
    from netopsai.api.http import build_api

    cp, graph = _copilot(backends)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(build_api(cp, lab_engine, local=True), host="127.0.0.1",
                                           port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive()
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", graph
    finally:
        server.should_exit = True
        thread.join(10)


def test_a_caller_that_hangs_up_stops_the_answer(served: tuple[str, SlowGraph]) -> None:
    url, graph = served
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{url}/api/ask", json={"question": "alarms on dc1-leaf-03"}, timeout=0.5,
                   trust_env=False)
    assert graph.closed.wait(5)
    assert _settled(graph) < STEPS // 2  # the scripted answer had 10 s to go


def test_a_stream_that_is_closed_stops_the_answer(served: tuple[str, SlowGraph]) -> None:
    url, graph = served
    with httpx.Client(trust_env=False, timeout=10) as client, client.stream(
            "POST", f"{url}/api/ask", json={"question": "alarms on dc1-leaf-03"},
            headers={"Accept": "text/event-stream"}) as r:
        assert r.status_code == 200
        lines = r.iter_lines()
        assert next(line for line in lines if line.startswith("event:")) == "event: step"
    assert graph.closed.wait(5)
    assert _settled(graph) < STEPS // 2


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


def test_sigterm_stops_the_api_while_an_answer_runs(tmp_path: Path) -> None:
    home = small_lab_home(tmp_path)
    token = run_cli(home, "tokens", "create", "ci").stdout.strip()
    launcher, marker, log = tmp_path / "slow_api.py", tmp_path / "planning", tmp_path / "api.log"
    launcher.write_text(SLOW_PLAN)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, str(launcher), str(marker), "api", "--port",
                                 str(port)], env={**env, "NETOPSAI_HOME": str(home)},
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_listening(port, proc, log)
        got: dict[str, Any] = {}

        def ask() -> None:
            got["r"] = httpx.post(f"http://127.0.0.1:{port}/api/ask", timeout=60, trust_env=False,
                                  json={"question": "alarms on dc1-leaf-03"},
                                  headers={"Authorization": f"Bearer {token}"})
        asker = threading.Thread(target=ask)
        asker.start()
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()[-2000:]
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)  # the planning step alone had two minutes to go
        asker.join(10)
        assert got["r"].status_code == 503 and "stopping" in got["r"].json()["error"]
        assert not (home / "api.sock").exists()  # an orderly exit: its socket file removed
    finally:
        stop(proc)
