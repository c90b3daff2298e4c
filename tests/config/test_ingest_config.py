"""`netopsai ingest` reads its address and ports from config.yaml's ingest section (flags win)
and the trap community from secrets.yaml's snmp.community (NETOPSAI_TRAP_COMMUNITY overrides it);
the community never shows in output, logs or the store. Real UDP/HTTP on 127.0.0.1."""

from __future__ import annotations

import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from pydantic import SecretStr
from pysnmp.proto.rfc1902 import OctetString

from netopsai.backends.receivers import BackgroundIngest, from_config
from netopsai.config.load import load_netconfig
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.process import free_port
from tests.ingest_helpers import raw_events, send_trap, send_udp, settle, wait_until

SECRET = "cfg-tr4p-s3cret-q9"  # the community in secrets.yaml: never to be seen
OTHER = "env-tr4p-0verride-k2"
LINK_DOWN = "1.3.6.1.6.3.1.1.5.3"
READY = "storing alarms and raw events; Ctrl-C stops"
SYSLOG = b"<187>12: Nov 23 03:10:00.000 UTC: %LINK-3-UPDOWN: Interface Gi0/7, changed state to down"
ALERT = {"version": "4", "status": "firing", "alerts": [
    {"status": "firing", "labels": {"alertname": "PortDown", "device": "edge-r1", "ifName": "Et1"},
     "startsAt": "2026-11-23T03:00:00Z", "fingerprint": "cfg0001"}]}


def _home(tmp_path: Path, ingest: dict[str, Any] | None = None, community: str | None = None) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    if ingest is not None:
        (home / "config.yaml").write_text(yaml.safe_dump({"ingest": ingest}))
    if community is not None:
        secrets = home / "secrets.yaml"
        secrets.write_text(yaml.safe_dump({"snmp": {"community": community}}))
        secrets.chmod(0o600)
    return home


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "NETOPSAI_TRAP_COMMUNITY") and not k.startswith("NETOPSAI_INGEST")}
    return env | {"NETOPSAI_HOME": str(home)} | extra


class _Cli:
    """`netopsai ingest` as a process: the receivers it announced, then Ctrl-C and its output."""

    def __init__(self, home: Path, *args: str, **env: str) -> None:
        self.home = home
        self.proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "ingest", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=_env(home, **env))
        watchdog = threading.Timer(120, self.proc.kill)  # never hang the suite
        watchdog.daemon = True
        watchdog.start()
        self.ports: dict[str, int] = {}
        self.head = ""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, f"ingest exited early: {self.proc.stderr.read() if self.proc.stderr else ''}"
            self.head += line
            if line.strip() == READY:
                break
            found = re.search(r"^listening: (\S+).* on (?:udp |http://)127\.0\.0\.1:(\d+)", line)
            if found:
                self.ports[found.group(1)] = int(found.group(2))

    def stop(self) -> str:
        """Ctrl-C; everything it printed (stdout and stderr)."""
        self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return self.head + out + err

    def store_bytes(self) -> bytes:
        """The raw database files: a secret must be in none of them."""
        return b"".join(p.read_bytes() for p in self.home.glob("netopsai.db*"))


@pytest.fixture
def cli_runs() -> Any:
    started: list[_Cli] = []
    yield started
    for c in started:  # a failed test still stops its receivers
        if c.proc.poll() is None:
            c.proc.kill()
            c.proc.wait(30)


@pytest.mark.integration
def test_receivers_listen_on_the_config_ports(tmp_path: Path, cli_runs: list[_Cli]) -> None:
    ports = {"trap_port": free_port(socket.SOCK_DGRAM), "syslog_port": free_port(socket.SOCK_DGRAM),
             "webhook_port": free_port(socket.SOCK_STREAM)}
    home = _home(tmp_path, {"host": "127.0.0.1", **ports})
    cli = _Cli(home)
    cli_runs.append(cli)
    assert cli.ports == {"SNMP": ports["trap_port"], "syslog": ports["syslog_port"],
                         "Alertmanager": ports["webhook_port"]}
    send_udp(ports["syslog_port"], SYSLOG)
    assert httpx.post(f"http://127.0.0.1:{ports['webhook_port']}/", json=ALERT).status_code == 200
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    wait_until(lambda: len(raw_events(engine)) == 2, "the syslog line and the alert stored")
    assert "stopped: 2 events received, 2 written" in cli.stop()
    assert sorted(r.source for r in raw_events(engine)) == ["alertmanager", "syslog"]


@pytest.mark.integration
def test_flags_win_over_the_config(tmp_path: Path, cli_runs: list[_Cli]) -> None:
    trap, syslog, flag_syslog = (free_port(socket.SOCK_DGRAM) for _ in range(3))
    home = _home(tmp_path, {"trap_port": trap, "syslog_port": syslog,
                            "webhook_port": free_port(socket.SOCK_STREAM)})
    cli = _Cli(home, "--syslog-port", str(flag_syslog), "--webhook-port", "-1")
    cli_runs.append(cli)
    assert cli.ports == {"SNMP": trap, "syslog": flag_syslog}  # the webhook turned off by its flag
    send_udp(flag_syslog, SYSLOG)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    wait_until(lambda: len(raw_events(engine, "syslog")) == 1, "the syslog line stored")
    assert "stopped: 1 events received" in cli.stop()


def _link(i: int, device: str) -> list[tuple[str, Any]]:
    return [(f"1.3.6.1.2.1.2.2.1.2.{i}", OctetString(f"Ethernet{i}")),
            ("1.3.6.1.2.1.1.5.0", OctetString(device))]


@pytest.mark.integration
@pytest.mark.parametrize(("env", "accepted", "refused"), [
    ({}, SECRET, "public"),  # secrets.yaml's community, not the old default
    ({"NETOPSAI_TRAP_COMMUNITY": OTHER}, OTHER, SECRET),  # the environment overrides the file
])
def test_trap_community_comes_from_the_secrets_file(tmp_path: Path, cli_runs: list[_Cli],
                                                    env: dict[str, str], accepted: str,
                                                    refused: str) -> None:
    home = _home(tmp_path, {"trap_port": 0, "syslog_port": 0, "webhook_port": 0}, community=SECRET)
    cli = _Cli(home, **env)
    cli_runs.append(cli)
    send_trap(cli.ports["SNMP"], LINK_DOWN, _link(1, "intruder"), community=refused)
    send_trap(cli.ports["SNMP"], LINK_DOWN, _link(2, "edge-r9"), community=accepted)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    # sent after the refused one, on the same socket: once it is stored, the other was dropped
    wait_until(lambda: len(raw_events(engine, "trap")) == 1, "the accepted trap stored")
    out = cli.stop()
    assert "stopped: 1 events received, 1 written" in out
    assert "edge-r9" in raw_events(engine, "trap")[0].message
    for secret in (SECRET, OTHER):
        assert secret not in out
        assert secret.encode() not in cli.store_bytes()


def test_config_is_merged_with_the_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home(tmp_path, {"host": "127.0.0.9", "trap_port": 2162, "syslog_port": 2514,
                            "webhook_port": 2095}, community=SECRET)
    monkeypatch.setenv("NETOPSAI_INGEST_SYSLOG_PORT", "3514")  # an env override of the file
    cfg = load_netconfig(home)
    s = from_config(cfg, ports={"webhook": None, "trap": 0}, env={})
    assert (s.host, s.trap_port, s.syslog_port, s.webhook_port) == ("127.0.0.9", 0, 3514, None)
    assert isinstance(s.community, SecretStr) and s.community.get_secret_value() == SECRET
    assert SECRET not in repr(s) and SECRET not in str(cfg.settings)
    overridden = from_config(cfg, host="127.0.0.1", env={"NETOPSAI_TRAP_COMMUNITY": OTHER})
    assert overridden.host == "127.0.0.1" and overridden.community.get_secret_value() == OTHER
    monkeypatch.delenv("NETOPSAI_INGEST_SYSLOG_PORT")
    bare = from_config(load_netconfig(tmp_path / "empty"), env={})
    assert bare.community.get_secret_value() == "public"
    assert (bare.trap_port, bare.syslog_port, bare.webhook_port) == (1162, 1514, 9095)


@pytest.mark.integration
def test_in_process_receiver_never_logs_the_community(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    home = _home(tmp_path, {"trap_port": 0, "syslog_port": 0, "webhook_port": 0}, community=SECRET)
    url = f"sqlite:///{tmp_path / 'ingest.db'}"
    with BackgroundIngest(url, from_config(load_netconfig(home), env={})) as ingest:
        assert ingest.traps is not None
        send_trap(ingest.traps.port, LINK_DOWN, _link(1, "guess"), community="public")
        send_trap(ingest.traps.port, LINK_DOWN, _link(3, "edge-r3"), community=SECRET)
        settle(ingest, 1)
    assert [r.source for r in raw_events(engine_for(url))] == ["trap"]
    assert SECRET not in caplog.text
    assert all(SECRET not in r.message for r in raw_events(engine_for(url)))


@pytest.mark.parametrize(("ingest", "needle"), [
    ({"host": "localhost"}, "ingest.host in the config 'localhost' is not an IP address"),
    ({"trap_port": 70000}, "ingest.trap_port"),
    ({"syslog": 1514}, "unknown field"),
])
def test_a_bad_ingest_section_is_one_line(tmp_path: Path, ingest: dict[str, Any], needle: str) -> None:
    home = _home(tmp_path, ingest, community=SECRET)
    done = subprocess.run([sys.executable, "-m", "netopsai.cli", "ingest"], env=_env(home),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert needle in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and SECRET not in done.stdout + done.stderr
