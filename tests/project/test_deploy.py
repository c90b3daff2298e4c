"""deploy/ as a team runs it. The systemd units and compose.yaml describe the same services
(commands, environment file, the schema upgrade first); and the services started on loopback
exactly as the units say (their ExecStart, their environment file) on one PostgreSQL: the
migrate unit, poll against snmpsim's real Cisco recording, ingest taking an Alertmanager alert,
the API answering a question about it end to end, and the web app up. (The Slack unit needs
Slack's Socket Mode: it is checked for its command only.)"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlmodel import Session, select

from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.postgres import fresh_database, pg_url
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from netopsai_testkit.peers.snmpsim import CISCO, SnmpSim, snmpsim
from tests.paths import REPO

__all__ = ["pg_url", "snmpsim"]
DEPLOY = REPO / "deploy"
SERVICES = ("api", "serve", "slack", "ingest", "poll")
BIN = "/opt/netopsai/bin/netopsai"


def unit(name: str) -> dict[str, list[str]]:
    """A unit file's keys (a key may repeat) and values."""
    keys: dict[str, list[str]] = {}
    for line in (DEPLOY / "systemd" / f"netopsai-{name}.service").read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            k, v = line.split("=", 1)
            keys.setdefault(k.strip(), []).append(v.strip())
    return keys


def exec_args(name: str) -> list[str]:
    [cmd] = unit(name)["ExecStart"]
    argv = shlex.split(cmd)
    assert argv[0] == BIN
    return argv[1:]


def test_units_and_compose_describe_the_same_services() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for name in SERVICES:
        u = unit(name)
        assert u["EnvironmentFile"] == ["/etc/netopsai/netopsai.env"]
        assert "netopsai-migrate.service" in u["Requires"][0] and "netopsai-migrate.service" in u["After"][0]
        args = exec_args(name)
        service = compose["services"][name]
        # the same command and flags; compose binds 0.0.0.0 inside its container
        strip = [a for a in args if not re.fullmatch(r"127\.0\.0\.1", a)]
        assert [a for a in service["command"] if a != "0.0.0.0"] == strip, name
        assert service["env_file"] == ["netopsai.env"]
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert exec_args("migrate") == ["db", "upgrade"] == compose["services"]["migrate"]["command"]
    assert unit("ingest")["KillSignal"] == ["SIGINT"]  # its Ctrl-C: the spool is flushed


def environment(home: Path, url: str) -> dict[str, str]:
    """The units' environment file, as the units read it, pointed at this test's store."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL", "SLACK_"))}
    for line in (DEPLOY / "netopsai.env").read_text().splitlines():
        if line and not line.startswith("#"):
            k, v = line.split("=", 1)
            env[k] = v
    assert env["DATABASE_URL"].startswith("postgresql+psycopg://")
    env.update(DATABASE_URL=url, NETOPSAI_HOME=str(home), NO_PROXY="127.0.0.1,localhost")
    env.pop("NETOPSAI_UI_USERS")  # no users file here; login is tested elsewhere
    return env


def start(name: str, env: dict[str, str], log: Path, **swap: str) -> subprocess.Popen[bytes]:
    """The unit's ExecStart, the binary being this interpreter's netopsai, `swap` replacing a
    flag's value (a free port for the unit's fixed one)."""
    args = exec_args(name)
    for flag, value in swap.items():
        args[args.index(f"--{flag}") + 1] = value
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "netopsai.cli", *args], env=env,
                                stdout=out, stderr=subprocess.STDOUT)


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for p in started:
        stop(p)


def wait_for(pred: Any, what: str, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}:\n{log.read_text()[-3000:]}")


@pytest.mark.integration
def test_the_units_run_a_question_end_to_end(pg_url: str, snmpsim: SnmpSim, tmp_path: Path,  # noqa: F811
                                             procs: list[subprocess.Popen[bytes]]) -> None:
    url = fresh_database(pg_url, "deploy")
    home = tmp_path / "netopsai"
    home.mkdir()
    webhook = free_port()
    (home / "config.yaml").write_text(yaml.safe_dump({
        "snmp": {"targets": [{"host": "127.0.0.1", "port": snmpsim.port, "device": "core-sw-01"}],
                 "timeout": 30},
        "ingest": {"host": "127.0.0.1", "webhook_port": webhook, "trap_port": free_port(socket.SOCK_DGRAM),
                   "syslog_port": free_port(socket.SOCK_DGRAM)}}))
    (home / "secrets.yaml").write_text(yaml.safe_dump({"snmp": {"community": CISCO}}))
    (home / "secrets.yaml").chmod(0o600)
    env = environment(home, url)
    migrate = subprocess.run([sys.executable, "-m", "netopsai.cli", *exec_args("migrate")], env=env,
                             capture_output=True, text=True, timeout=120)
    assert migrate.returncode == 0 and migrate.stdout.startswith("schema at"), migrate.stderr
    engine = engine_for(url)
    procs.append(start("poll", env, tmp_path / "poll.log"))
    wait_for(lambda: _device(engine, "core-sw-01"), "the first poll to register core-sw-01",
             tmp_path / "poll.log")
    procs.append(start("ingest", env, tmp_path / "ingest.log"))
    wait_listening(webhook, procs[-1], tmp_path / "ingest.log")
    alert = {"version": "4", "status": "firing", "alerts": [{
        "status": "firing", "startsAt": "2026-11-25T10:00:00Z", "fingerprint": "deploy0001",
        "labels": {"alertname": "CoreUplinkDown", "device": "core-sw-01", "ifName": "Gi1/0/1",
                   "severity": "critical"}}]}
    assert httpx.post(f"http://127.0.0.1:{webhook}/", json=alert, trust_env=False).status_code == 200
    token = subprocess.run([sys.executable, "-m", "netopsai.cli", "tokens", "create", "oncall"], env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    api_port, web_port = free_port(), free_port()
    procs.append(start("api", env, tmp_path / "api.log", port=str(api_port)))
    procs.append(start("serve", env, tmp_path / "serve.log", port=str(web_port)))
    wait_listening(api_port, procs[-2], tmp_path / "api.log")
    answer = httpx.post(f"http://127.0.0.1:{api_port}/api/ask", trust_env=False, timeout=120,
                        headers={"Authorization": f"Bearer {token}"},
                        json={"question": "any alarms on core-sw-01 in the last 7 days?"}).json()
    assert "CoreUplinkDown" in answer["answer"] and answer["citations"], answer["answer"][:500]
    wait_listening(web_port, procs[-1], tmp_path / "serve.log")
    assert httpx.get(f"http://127.0.0.1:{web_port}/", trust_env=False, timeout=60).status_code == 200
    ingest = procs[1]
    ingest.send_signal(signal.SIGINT)  # KillSignal=SIGINT, as systemd stops it
    assert ingest.wait(60) == 0


def _device(engine: Any, name: str) -> bool:
    with Session(engine) as s:
        return s.exec(select(m.Device).where(m.Device.name == name)).first() is not None
