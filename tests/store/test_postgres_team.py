"""The team's processes on one PostgreSQL (issue 14 §1): `netopsai ingest` takes Alertmanager
alerts at full rate while an SNMP poll (against snmpsim's real Cisco recording) writes samples
and `netopsai api` answers alarm queries; every acknowledged alert is stored, the poll loses
no sample, and the API sees the new alarms without a restart."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from sqlmodel import Session, func, select

from netopsai.store import tables as m
from netopsai_testkit.peers.postgres import fresh_database, pg_url
from netopsai_testkit.peers.process import free_port, stop, wait_listening
from netopsai_testkit.peers.snmpsim import CISCO, SnmpSim, snmpsim
from tests.backends.snmp.test_snmp_poll import poll
from tests.config.test_ingest_config import _Cli, _env, _home, cli_runs
from tests.contract.stores import DEVICES, real_store

pytestmark = pytest.mark.integration
__all__ = ["cli_runs", "pg_url", "snmpsim"]
BATCHES, PER_BATCH, POLLS = 20, 50, 4
BEARER = "team-alertmanager-" + "x" * 24


def alerts(batch: int) -> dict[str, Any]:
    start = "2026-11-25T10:00:00Z"
    return {"version": "4", "status": "firing", "alerts": [
        {"status": "firing", "startsAt": start, "fingerprint": f"team{batch:03d}{i:03d}",
         "labels": {"alertname": "PortDown", "device": DEVICES[i % len(DEVICES)],
                    "ifName": f"Ethernet{i + 1}", "severity": "major"}}
        for i in range(PER_BATCH)]}


def count(engine: Any, table: Any, *where: Any) -> int:
    with Session(engine) as s:
        return int(s.exec(select(func.count()).select_from(table).where(*where)).one())


def stored(engine: Any) -> int:
    return count(engine, m.Alarm, m.Alarm.source == "alertmanager")


def test_ingest_poll_and_api_share_one_postgresql(pg_url: str, snmpsim: SnmpSim,  # noqa: F811
                                                  tmp_path: Path, cli_runs: list[_Cli]) -> None:  # noqa: F811
    url = fresh_database(pg_url, "team")
    engine = real_store(url)  # a real network's store: poll refuses the lab
    webhook = free_port(socket.SOCK_STREAM)
    home = _home(tmp_path, {"host": "127.0.0.1", "webhook_port": webhook,
                            "trap_port": free_port(socket.SOCK_DGRAM),
                            "syslog_port": free_port(socket.SOCK_DGRAM)})
    secrets = home / "secrets.yaml"  # the team's Alertmanager authenticates (issue 23 B11)
    secrets.write_text(yaml.safe_dump({"webhook": {"bearer_token": BEARER}}))
    secrets.chmod(0o600)
    ingest = _Cli(home, DATABASE_URL=url)
    cli_runs.append(ingest)
    token = subprocess.run([sys.executable, "-m", "netopsai.cli", "tokens", "create", "ui"],
                           env=_env(home, DATABASE_URL=url), capture_output=True, text=True,
                           check=True).stdout.strip()
    port = free_port()
    log = tmp_path / "api.log"
    with log.open("wb") as out:
        api = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "api", "--port", str(port)],
                               env=_env(home, DATABASE_URL=url), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_listening(port, api, log)
        reads: list[int] = []
        polled: list[str] = []

        def read_loop(done: threading.Event) -> None:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=60,
                              headers={"Authorization": f"Bearer {token}"}) as c:
                while not done.is_set():
                    r = c.get("/api/alarms", params={"window": "7d", "state": "open"})
                    reads.append(r.status_code)

        def poll_loop() -> None:
            for _ in range(POLLS):
                poll(engine, snmpsim, CISCO)
                polled.append("ok")

        done = threading.Event()
        threads = [threading.Thread(target=read_loop, args=(done,)), threading.Thread(target=poll_loop)]
        for t in threads:
            t.start()
        acked = 0
        with httpx.Client(trust_env=False, timeout=60,
                          headers={"Authorization": f"Bearer {BEARER}"}) as c:
            for b in range(BATCHES):  # full rate: the next POST as soon as one is acknowledged
                r = c.post(f"http://127.0.0.1:{webhook}/", json=alerts(b))
                acked += PER_BATCH if r.status_code == 200 else 0
        threads[1].join(300)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and stored(engine) < acked:
            time.sleep(0.2)
        done.set()
        threads[0].join(60)
        assert acked == BATCHES * PER_BATCH
        assert stored(engine) == acked  # nothing lost
        assert polled == ["ok"] * POLLS
        assert count(engine, m.CounterSample, m.CounterSample.source == "snmp") > 0
        assert reads and set(reads) == {200}
        final = httpx.get(f"http://127.0.0.1:{port}/api/alarms", params={"window": "7d", "state": "open"},
                          headers={"Authorization": f"Bearer {token}"}, trust_env=False, timeout=60).json()
        ours = [r for r in final["rows"] if r["kind"] == "PortDown"]
        assert len(ours) == acked  # the API process sees what ingest stored, no restart
    finally:
        stop(api)
    assert f"{acked} written" in ingest.stop()
