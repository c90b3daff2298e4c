"""The ingest writer and runner: nothing received is lost while another connection holds the
store's write lock, and `netopsai ingest` listens, stores, and stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from pysnmp.proto.rfc1902 import Integer32, OctetString
from sqlalchemy import Engine

from netopsai.store.engine import engine_for
from tests.ingest_helpers import (
    COMMUNITY,
    alarms,
    lab_with_senders,
    raw_events,
    running,
    send_trap,
    send_udp,
    settle,
    wait_until,
)

LINK_DOWN = "1.3.6.1.6.3.1.1.5.3"


def _syslog(i: int) -> bytes:
    return (f"<187>{i}: Nov 23 03:10:{i % 60:02d}.000 UTC: %LINK-3-UPDOWN: Interface "
            f"GigabitEthernet0/{i}, changed state to down").encode()


def _alert(i: int) -> dict[str, object]:
    return {"status": "firing", "labels": {"alertname": "PortDown", "device": "dc1-leaf-02",
                                           "ifName": f"Ethernet{i}"},
            "startsAt": "2026-11-23T03:00:00Z", "fingerprint": f"fp{i:04d}"}


@pytest.mark.integration
def test_nothing_is_lost_while_the_store_is_locked(make_lab: Callable[..., Engine]) -> None:
    engine, url = lab_with_senders(make_lab)
    path = url.removeprefix("sqlite:///")
    n_syslog, n_traps, n_alerts = 40, 3, 5
    total = n_syslog + n_traps + n_alerts
    with running(url) as ingest:
        assert ingest.writer and ingest.syslog and ingest.traps and ingest.webhook
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process writing: the store is locked
        try:
            for i in range(n_syslog):
                send_udp(ingest.syslog.port, _syslog(i))
            for i in range(n_traps):
                send_trap(ingest.traps.port, LINK_DOWN, [
                    (f"1.3.6.1.2.1.2.2.1.1.{i}", Integer32(i)),
                    (f"1.3.6.1.2.1.2.2.1.2.{i}", OctetString(f"Ethernet{i}")),
                    ("1.3.6.1.2.1.1.5.0", OctetString("edge-r1"))])
            payload = {"version": "4", "status": "firing", "alerts": [_alert(i) for i in range(n_alerts)]}
            r = httpx.post(f"http://127.0.0.1:{ingest.webhook.port}/", json=payload)
            assert r.status_code == 200
            writer = ingest.writer
            wait_until(lambda: writer.stats.received == total and writer.stats.retries >= 2,
                       "every event received and writes retried against the lock")
            assert raw_events(engine) == []  # nothing could be written yet (WAL readers still read)
        finally:
            holder.execute("COMMIT")
            holder.close()
        settle(ingest, total)
        assert ingest.writer.stats.lost == 0 and ingest.writer.stats.failed == 0
    raw = raw_events(engine)
    assert len(raw) == total and all(r.count == 1 for r in raw)  # each exactly once
    assert len({r.message for r in raw if r.source == "syslog"}) == n_syslog
    assert sorted(r.source for r in raw) == sorted(
        ["syslog"] * n_syslog + ["trap"] * n_traps + ["alertmanager"] * n_alerts)
    assert len(alarms(engine)) == total  # every one a different port going down


def _start_cli(home: Path) -> tuple[subprocess.Popen[str], dict[str, int]]:
    env = {**os.environ, "NETOPSAI_HOME": str(home), "NETOPSAI_TRAP_COMMUNITY": COMMUNITY}
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "netopsai.cli", "ingest", "--trap-port", "0", "--syslog-port", "0",
         "--webhook-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    watchdog = threading.Timer(120, proc.kill)  # never hang the suite
    watchdog.daemon = True
    watchdog.start()
    ports: dict[str, int] = {}
    assert proc.stdout is not None
    while len(ports) < 3:
        line = proc.stdout.readline()
        assert line, f"ingest exited early: {proc.stderr.read() if proc.stderr else ''}"
        m = re.search(r"^listening: (\S+).* on (?:udp |http://)127\.0\.0\.1:(\d+)", line)
        if m:
            ports[m.group(1)] = int(m.group(2))
    return proc, ports


@pytest.mark.integration
def test_cli_ingest_runs_stores_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    proc, ports = _start_cli(tmp_path)
    try:
        assert set(ports) == {"SNMP", "syslog", "Alertmanager"}
        send_udp(ports["syslog"], _syslog(1))
        send_trap(ports["SNMP"], LINK_DOWN, [("1.3.6.1.2.1.2.2.1.2.2", OctetString("Ethernet2")),
                                             ("1.3.6.1.2.1.1.5.0", OctetString("edge-r2"))])
        r = httpx.post(f"http://127.0.0.1:{ports['Alertmanager']}/",
                       json={"version": "4", "status": "firing", "alerts": [_alert(3)]})
        assert r.status_code == 200
        engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
        wait_until(lambda: len(raw_events(engine)) == 3, "three events in the store")
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "stopped: 3 events received, 3 written, 0 repeats, 0 lost" in out
    assert COMMUNITY not in out + err
    assert sorted(a.source for a in alarms(engine)) == ["alertmanager", "syslog", "trap"]


@pytest.mark.parametrize(("args", "message"), [
    (["--trap-port", "70000"], "--trap-port 70000 is not a port"),
    (["--host", "localhost"], "is not an IP address"),
    (["--trap-port", "-1", "--syslog-port", "-1", "--webhook-port", "-1"], "every receiver is off"),
])
def test_cli_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    env = {**os.environ, "NETOPSAI_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "netopsai.cli", "ingest", *args], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.integration
def test_cli_port_in_use_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        env = {**os.environ, "NETOPSAI_HOME": str(tmp_path)}
        done = subprocess.run([sys.executable, "-m", "netopsai.cli", "ingest", "--syslog-port",
                               str(port), "--trap-port", "0", "--webhook-port", "0"], env=env,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "cannot listen" in done.stderr
    assert "Traceback" not in done.stderr
