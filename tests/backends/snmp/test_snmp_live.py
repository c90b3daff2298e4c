"""Live SNMP telemetry and the `netopsai poll` command, against a real agent (snmpsim): devices
that time out or reject the community make the evidence partial and are named, never their
credentials; SNMPv3; `poll --once --target --community --json` end to end in a subprocess."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.poller import poll_and_store
from netopsai.backends.snmp.telemetry import SnmpTelemetry
from netopsai.backends.snmp.walk import poll_targets
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.snmpsim import CISCO, GENERATED, SnmpSim, free_udp_port, snmpsim  # noqa: F401

pytestmark = pytest.mark.integration
TIMEOUT = 30.0  # per request: snmpsim is slow on a loaded machine
WRONG = "not-the-community-x9"
_SCRIPT = Path(sys.executable).with_name("netopsai")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "netopsai.cli"]


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    eng = engine_for(f"sqlite:///{tmp_path / 'real.db'}")
    create_all(eng)
    return eng


def v2c(sim_port: int, community: str, name: str = "") -> SnmpTarget:
    return SnmpTarget(host="127.0.0.1", port=sim_port, name=name,
                      auth=SnmpAuth(community=SecretStr(community)))


def live_backends(engine: Engine, targets: list[SnmpTarget]) -> Backends:
    events = StoreEvents(engine)
    return Backends(inventory=StoreInventory(engine),
                    telemetry=SnmpTelemetry(engine, targets, timeout=15.0, retries=0),
                    paths=LabPaths(engine), changes=events, alarms=events)


def test_live_telemetry_reads_now_and_names_unreadable_devices(snmpsim: SnmpSim,  # noqa: F811
                                                               engine: Engine) -> None:
    name = "netopsai/partial"
    a = copy.deepcopy(GENERATED[name])
    a.ports[2].oper = 2
    snmpsim.write(name, a)
    dead = free_udp_port()
    targets = [v2c(snmpsim.port, name),
               v2c(snmpsim.port, WRONG, name="edge-wrong-community"),
               SnmpTarget(host="127.0.0.1", port=dead, name="",
                          auth=SnmpAuth(community=SecretStr("dead-port-secret")))]
    assert not poll_and_store(engine, targets[:1], timeout=TIMEOUT, retries=0).failures
    a.ports[1].oper = 2  # goes down after the first poll: only a live read sees it
    snmpsim.write(name, a)
    live = live_backends(engine, targets)  # one timeout for all: our small recording is quick
    ev = run_tool("telemetry", {"metric": "oper_status", "window": "1h"}, live)
    assert ev.partial
    assert ev.facts["unread_devices"] == sorted(["edge-wrong-community", f"127.0.0.1:{dead}"])
    assert any("edge-wrong-community" in e for e in ev.errors)
    assert any(f"127.0.0.1:{dead}" in e for e in ev.errors)
    assert "Not read: 127.0.0.1:" in ev.summary
    assert sorted((r["device"], r["interface"], r["state_at_start"], r["state_at_end"])
                  for r in ev.rows) == [("gen-partial", "Ethernet2", "up", "down"),
                                        ("gen-partial", "Ethernet3", "down", "down")]
    assert ev.facts["changed"] == 1 and ev.facts["down_now"] == 2
    text = ev.to_json()
    assert WRONG not in text and "dead-port-secret" not in text and name not in text


def test_snmpv3_user_reads_and_a_wrong_key_fails_without_leaking(snmpsim: SnmpSim) -> None:  # noqa: F811
    def v3(auth_key: str) -> SnmpTarget:
        return SnmpTarget(host="127.0.0.1", port=snmpsim.port, name="v3-switch", auth=SnmpAuth(
            version="3", user="simulator", auth_key=SecretStr(auth_key), auth_protocol="md5",
            priv_key=SecretStr("privatus"), priv_protocol="des", context=CISCO))
    good, bad = poll_targets([v3("auctoritas"), v3("wrong-auth-key-77")], timeout=TIMEOUT, retries=0)
    assert good.ok and good.sys_name == "DUMSYS-90" and len(good.interfaces) > 10
    assert not bad.ok and "v3-switch" in bad.error
    assert "wrong-auth-key-77" not in bad.error and "privatus" not in bad.error
    assert "wrong-auth-key-77" not in repr(bad.target) and "auctoritas" not in repr(good.target)


def test_dead_port_and_wrong_community_poll_as_failures(snmpsim: SnmpSim, engine: Engine) -> None:  # noqa: F811
    dead = free_udp_port()
    rep = poll_and_store(engine, [v2c(snmpsim.port, WRONG, "x-wrong"), v2c(dead, WRONG)],
                         timeout=0.5, retries=1)
    assert list(rep.failures) == ["x-wrong", f"127.0.0.1:{dead}"]
    assert all("no SNMP response" in e and "x 2 tries" in e for e in rep.failures.values())
    assert all(WRONG not in e for e in rep.failures.values())
    assert rep.devices == 0


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETOPSAI_HOME": str(home)}
    env.pop("DATABASE_URL", None)
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=env)


def test_poll_once_command_prints_and_stores(snmpsim: SnmpSim, tmp_path: Path) -> None:  # noqa: F811
    name = "netopsai/cli"
    snmpsim.write(name, GENERATED[name])
    args = ("poll", "--once", "--target", f"127.0.0.1:{snmpsim.port}", "--community", name,
            "--timeout", str(TIMEOUT), "--json")
    r = cli(tmp_path, *args)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    dev = out["device"]
    assert (dev["sys_name"], dev["name"], dev["ok"]) == ("gen-cli", "gen-cli", True)
    assert dev["sys_descr"].startswith("Cisco NX-OS") and dev["uptime_s"] == 86400
    want = [(p.index, p.name, "up", "up", p.speed_mbps, p.in_octets, p.out_octets, p.in_errors)
            for p in GENERATED[name].ports]
    assert [(i["index"], i["name"], i["oper_status"], i["admin_status"], i["speed_mbps"],
             i["in_octets"], i["out_octets"], i["in_errors"]) for i in out["interfaces"]] == want
    assert out["stored"]["interfaces"] == 4 and out["errors"] == []
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    with Session(engine) as s:
        assert {i.name for i in s.exec(select(m.Interface).where(m.Interface.device == "gen-cli"))} \
            == {p.name for p in GENERATED[name].ports}
    r = cli(tmp_path, "poll", "--once", "--target", f"127.0.0.1:{snmpsim.port}", "--community", name,
            "--timeout", str(TIMEOUT), "--sample-every", "0")  # the table; a second poll: samples
    assert r.returncode == 0 and "gen-cli" in r.stdout and "Ethernet4" in r.stdout
    assert "4 counter samples" in r.stdout
    dead = cli(tmp_path, "poll", "--once", "--target", f"127.0.0.1:{free_udp_port()}",
               "--community", WRONG, "--timeout", "0.3", "--json")
    assert dead.returncode == 1 and "no SNMP response" in dead.stderr
    assert WRONG not in dead.stdout + dead.stderr and "Traceback" not in dead.stderr
    bad = cli(tmp_path, "poll", "--once", "--target", "127.0.0.1:99999", "--community", "x")
    assert bad.returncode == 2 and "bad SNMP target" in bad.stderr


def test_poll_loop_reads_configured_targets_until_interrupted(snmpsim: SnmpSim,  # noqa: F811
                                                              tmp_path: Path) -> None:
    """`netopsai poll --interval` with targets and the community from config.yaml/secrets.yaml."""
    import signal

    name = "netopsai/live"
    snmpsim.write(name, GENERATED[name])
    (tmp_path / "config.yaml").write_text(
        f"snmp:\n  timeout: {TIMEOUT}\n  retries: 0\n  targets:\n"
        f"    - {{host: 127.0.0.1, port: {snmpsim.port}, device: cfg-leaf-01}}\n")
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text(f"snmp:\n  community: {name}\n")
    secrets.chmod(0o600)
    env = {**os.environ, "NETOPSAI_HOME": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([*CLI, "poll", "--interval", "1", "--sample-every", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        rounds = []
        for line in proc.stdout:
            if line.startswith("stored:"):
                rounds.append(line)
            if len(rounds) == 2:
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert rounds == ["stored: 1 devices, 4 interfaces, 0 state changes, 0 counter samples\n",
                      "stored: 1 devices, 4 interfaces, 0 state changes, 4 counter samples\n"]
    assert name not in out + err and "Traceback" not in err
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    with Session(engine) as s:
        assert s.get(m.Device, "cfg-leaf-01") is not None
        assert len(list(s.exec(select(m.CounterSample).where(m.CounterSample.device == "cfg-leaf-01")))) >= 4


def test_tool_reads_live_through_the_configured_snmp_backend(snmpsim: SnmpSim,  # noqa: F811
                                                             tmp_path: Path) -> None:
    """config.yaml selects the snmp telemetry backend: `netopsai tool telemetry` reads the agents
    now (a port that went down since the last poll shows), and a dead agent makes the evidence
    partial, named on stderr, while the command still succeeds."""
    name = "netopsai/tool"
    a = copy.deepcopy(GENERATED[name])
    snmpsim.write(name, a)
    dead = free_udp_port()
    (tmp_path / "config.yaml").write_text(
        f"backend:\n  telemetry: snmp\nsnmp:\n  timeout: 15\n  retries: 0\n  targets:\n"
        f"    - {{host: 127.0.0.1, port: {snmpsim.port}, device: tool-leaf-01}}\n"
        f"    - {{host: 127.0.0.1, port: {dead}, device: tool-leaf-02}}\n")
    secrets = tmp_path / "secrets.yaml"
    secrets.write_text(f"snmp:\n  community: {name}\n")
    secrets.chmod(0o600)
    first = cli(tmp_path, "poll", "--once", "--json")
    assert first.returncode == 0 and json.loads(first.stdout)["stored"]["devices"] == 1
    a.ports[3].oper = 2
    snmpsim.write(name, a)
    r = cli(tmp_path, "tool", "telemetry", '{"metric": "oper_status", "window": "1h"}', "--json")
    assert r.returncode == 0, r.stderr
    ev = json.loads(r.stdout)
    assert ev["partial"] and ev["facts"]["unread_devices"] == ["tool-leaf-02"]
    assert [(x["device"], x["interface"], x["state_at_end"]) for x in ev["rows"]] == [
        ("tool-leaf-01", "Ethernet4", "down")]
    assert "warning: no SNMP response from tool-leaf-02" in r.stderr
    assert name not in r.stdout + r.stderr + first.stdout + first.stderr
