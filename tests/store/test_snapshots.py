"""Snapshots when an alarm opens (issue 15 §4): alarms received by the real ingest path (syslog
over UDP to a running BackgroundIngest) make the Snapshotter log into a FakeNOS Cisco IOS
device over real SSH with NAPALM's ios driver, or read a snmpsim agent for a device with no
NAPALM entry; a storm is one login; a failing getter is a line of errors; no secret is kept."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest
from napalm.ios.ios import IOSDriver
from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.napalm.device import DeviceTarget
from netopsai.backends.receivers import BackgroundIngest, IngestSettings
from netopsai.backends.snapshot.snapshotter import Snapshotter
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.store import tables as m
from netopsai.store.inventory import StoreInventory
from netopsai_testkit.peers.fakenos import FakeIosNetwork, IosDevice
from netopsai_testkit.peers.process import free_port
from netopsai_testkit.peers.snmpsim import Agent, SnmpSim, ports, start_snmpsim
from tests.ingest_helpers import send_udp, settle, wait_until
from tests.store_helpers import dump, empty_store

PASSWORD = "ssh-pass-Zq81"
COMMUNITY_IN_CONFIG = "S3cr3tC0mm"  # a secret inside the running config: masked when stored
SNMP_COMMUNITY = "netopsai/snapshot"
POLLED = "netopsai/snapshot-poll"  # rewritten by its test: a port goes down between polls
LEAF = "dc9-leaf-01"


def leaf_device() -> IosDevice:
    leaf = IosDevice(LEAF)
    leaf.add_port("GigabitEthernet0/0", ip="10.0.12.1/31", description="to dc9-spine-01 Gi0/0")
    leaf.add_port("GigabitEthernet0/1", up=False, description="spare")
    leaf.add_port("Loopback0", ip="10.254.9.1/32")
    leaf.lldp = [("Gi0/0", "dc9-spine-01", "Gi0/0")]
    leaf.config = [f"snmp-server community {COMMUNITY_IN_CONFIG} RO",
                   "ip route 0.0.0.0 0.0.0.0 10.0.12.0", "!"]
    return leaf


class CountingIOS(IOSDriver):
    """NAPALM's ios driver, counting its logins (each open is one SSH session)."""

    opens: ClassVar[int] = 0

    def open(self) -> None:
        type(self).opens += 1
        super().open()


class Clock:
    """The Snapshotter's clock, moved by the test (no sleeping through a rate window)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ios_net() -> Iterator[FakeIosNetwork]:
    net = FakeIosNetwork([leaf_device()], password=PASSWORD).start()
    yield net
    net.stop()


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    return empty_store(tmp_path)


def target(net: FakeIosNetwork) -> DeviceTarget:
    return DeviceTarget(host="127.0.0.1", port=net.ports[LEAF], username=net.username,
                        password=SecretStr(PASSWORD), timeout=20, name=LEAF)


def link_down(device: str, port: str) -> bytes:
    """A Cisco IOS syslog line (RFC 3164, the device's name in the header)."""
    stamp = datetime.now(UTC).strftime("%b %d %H:%M:%S")
    return (f"<187>{stamp} {device} 12: {stamp}: %LINK-3-UPDOWN: Interface {port}, changed state "
            "to down").encode()


def alarms_with_snapshots(store: Engine, snaps: Snapshotter, lines: list[bytes]) -> None:
    """Send the lines to a running ingest whose writer tells `snaps` of opened alarms; wait
    until the events are stored and the snapshots they asked for are taken."""
    settings = IngestSettings(trap_port=None, syslog_port=0, webhook_port=None)
    with BackgroundIngest(str(store.url), settings, on_open=snaps.on_opened) as ingest:
        assert ingest.syslog is not None
        for line in lines:
            send_udp(ingest.syslog.port, line)
        settle(ingest, len(lines))
    assert snaps.wait_idle(180), "the snapshots were not taken"


def rows(store: Engine) -> tuple[list[m.Alarm], list[m.DeviceSnapshot]]:
    with Session(store) as s:
        return (list(s.exec(select(m.Alarm).order_by(col(m.Alarm.id)))),
                list(s.exec(select(m.DeviceSnapshot).order_by(col(m.DeviceSnapshot.id)))))


@pytest.mark.integration
def test_an_alarm_snapshots_its_device_and_the_next_one_shows_the_config_diff(
        ios_net: FakeIosNetwork, store: Engine) -> None:
    clock = Clock()
    snaps = Snapshotter(store, {LEAF: target(ios_net)}, clock=clock)
    alarms_with_snapshots(store, snaps, [link_down(LEAF, "GigabitEthernet0/1")])
    alarms, snapshots = rows(store)
    assert [(a.device, a.interface, a.state) for a in alarms] == [(LEAF, "GigabitEthernet0/1", "open")]
    assert len(snapshots) == 1
    first = snapshots[0]
    assert (first.device, first.alarm_id, first.source) == (LEAF, alarms[0].id, "napalm")
    assert first.data["interfaces"]["GigabitEthernet0/1"]["is_up"] is False
    assert first.data["interfaces"]["GigabitEthernet0/0"]["description"] == "to dc9-spine-01 Gi0/0"
    assert first.data["lldp_neighbors"]["GigabitEthernet0/0"] == [
        {"hostname": "dc9-spine-01", "port": "Gi0/0"}]
    assert first.data["facts"]["hostname"] == LEAF
    assert (first.data["config_status"], first.config_diff) == ("first", "")

    leaf = ios_net.devices[LEAF]  # someone changes the device between the two alarms
    leaf.config[1] = "ip route 0.0.0.0 0.0.0.0 10.0.12.2"
    leaf.ports["GigabitEthernet0/0"].up = False
    clock.now += 601  # past the rate window
    alarms_with_snapshots(store, snaps, [link_down(LEAF, "GigabitEthernet0/0")])
    snaps.close()
    alarms, snapshots = rows(store)
    second = snapshots[-1]
    assert len(snapshots) == 2 and second.alarm_id == alarms[-1].id != first.alarm_id
    assert second.data["config_status"] == "changed"
    assert second.config_diff.splitlines() == ["-ip route 0.0.0.0 0.0.0.0 10.0.12.0",
                                               "+ip route 0.0.0.0 0.0.0.0 10.0.12.2"]
    assert second.data["interfaces"]["GigabitEthernet0/0"]["is_up"] is False
    # the same change became an unrecorded-change record, as `devices snapshot` makes them
    with Session(store) as s:
        assert [c.kind for c in s.exec(select(m.Change))] == ["unrecorded"]
    listed = StoreInventory(store).snapshots(LEAF)
    assert [r["alarm_id"] for r in listed] == [second.alarm_id, first.alarm_id]
    assert listed[0]["interfaces_down"] == ["GigabitEthernet0/0", "GigabitEthernet0/1"]
    stored = dump(store)
    assert PASSWORD not in stored and COMMUNITY_IN_CONFIG not in stored


@pytest.mark.integration
def test_fifty_alarms_on_one_device_are_one_login_and_one_snapshot(
        ios_net: FakeIosNetwork, store: Engine) -> None:
    CountingIOS.opens = 0
    snaps = Snapshotter(store, {LEAF: target(ios_net)}, driver_cls=CountingIOS)
    storm = [link_down(LEAF, f"GigabitEthernet1/{n}") for n in range(50)]
    alarms_with_snapshots(store, snaps, storm)
    snaps.close()
    alarms, snapshots = rows(store)
    assert len(alarms) == 50 and {a.state for a in alarms} == {"open"}
    assert CountingIOS.opens == 1
    assert len(snapshots) == 1 and snapshots[0].alarm_id == alarms[0].id
    assert (snaps.stats.requested, snaps.stats.rate_limited, snaps.stats.taken) == (50, 49, 1)


@pytest.mark.integration
def test_a_failing_getter_is_a_line_of_errors_and_the_rest_is_kept(
        ios_net: FakeIosNetwork, store: Engine) -> None:
    """FakeNOS answers no `show memory`: NAPALM's ios get_environment fails on it, for real."""
    snaps = Snapshotter(store, {LEAF: target(ios_net)})
    snap = snaps.take(LEAF)
    snaps.close()
    failed = [e for e in snap.errors if e.startswith("get_environment: ")]
    assert len(failed) == 1 and f"{LEAF}: " in failed[0], snap.errors
    assert "environment" not in snap.data
    assert {"facts", "interfaces", "lldp_neighbors"} <= set(snap.data)
    assert snap.alarm_id is None and snap.id is not None
    assert PASSWORD not in json.dumps(snap.errors) + json.dumps(snap.data)


@pytest.mark.integration
def test_a_login_that_fails_is_one_error_naming_the_device_without_the_password(
        ios_net: FakeIosNetwork, store: Engine) -> None:
    wrong = target(ios_net).model_copy(update={"password": SecretStr("wrong-" + PASSWORD)})
    snap = Snapshotter(store, {LEAF: wrong}).take(LEAF)
    assert snap.data == {} and len(snap.errors) == 1
    assert snap.errors[0].startswith(f"{LEAF}: authentication failed")
    assert PASSWORD not in dump(store)


@pytest.fixture(scope="module")
def sim() -> Iterator[SnmpSim]:
    yield from start_snmpsim(real=(), generated={
        SNMP_COMMUNITY: Agent(sys_name="gen-edge", ports=ports(3)),
        POLLED: Agent(sys_name="gen-poll", ports=ports(3))})


@pytest.mark.integration
def test_a_device_with_only_snmp_gets_an_snmp_snapshot(sim: SnmpSim, store: Engine) -> None:
    agent = SnmpTarget(host="127.0.0.1", port=sim.port, name="edge-sw1",
                       auth=SnmpAuth(community=SecretStr(SNMP_COMMUNITY)))
    snaps = Snapshotter(store, {}, {"edge-sw1": agent}, snmp_timeout=5)
    alarms_with_snapshots(store, snaps, [link_down("edge-sw1", "Ethernet2"),
                                         link_down("not-configured-9", "Ethernet1")])
    snaps.close()
    alarms, snapshots = rows(store)
    assert len(alarms) == 2 and snaps.stats.unknown == 1
    assert len(snapshots) == 1
    snap = snapshots[0]
    assert (snap.device, snap.source, snap.errors) == ("edge-sw1", "snmp", [])
    assert snap.alarm_id == next(a.id for a in alarms if a.device == "edge-sw1")
    assert snap.data["facts"]["hostname"] == "gen-edge"
    assert sorted(snap.data["interfaces"]) == ["Ethernet1", "Ethernet2", "Ethernet3"]
    assert snap.data["interfaces_counters"]["Ethernet2"]["rx_octets"] == 2_000_000
    assert SNMP_COMMUNITY not in dump(store)


def netopsai(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETOPSAI_HOME": str(home)}
    env.pop("DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


@pytest.mark.integration
def test_cli_takes_and_lists_snapshots_and_the_metadata_tool_cites_them(
        ios_net: FakeIosNetwork, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"napalm:\n  - {{name: {LEAF}, host: 127.0.0.1, port: {ios_net.ports[LEAF]}, driver: ios}}\n")
    secrets = home / "secrets.yaml"
    secrets.write_text(f"ssh: {{username: {ios_net.username}, password: {PASSWORD}}}\n")
    secrets.chmod(0o600)
    taken = netopsai(home, "snapshot", LEAF)
    assert taken.returncode == 0, taken.stderr
    assert taken.stdout.startswith(f"snapshot 1 of {LEAF} at ")
    assert "by napalm: 3 interfaces (1 down), 1 LLDP neighbour, 0 BGP peers, config first" \
        in taken.stdout
    assert "not read: get_environment: " in taken.stdout
    listed = netopsai(home, "snapshots", LEAF, "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert (row["id"], row["source"], row["interfaces_down"]) == (1, "napalm", ["GigabitEthernet0/1"])
    tool = netopsai(home, "tool", "metadata", json.dumps({"query": "snapshots", "name": LEAF}),
                    "--json")
    assert tool.returncode == 0, tool.stderr
    ev: dict[str, Any] = json.loads(tool.stdout)
    assert ev["rows"][0]["id"] == 1
    assert ev["summary"].startswith(f"{LEAF} has 1 snapshot; the latest, at ")
    assert "down: GigabitEthernet0/1" in ev["summary"]
    unknown = netopsai(home, "snapshot", "dc9-nope-01")
    assert unknown.returncode != 0 and "Traceback" not in unknown.stderr
    assert "dc9-nope-01 has no NAPALM entry nor SNMP target" in unknown.stderr
    outputs = "".join(p.stdout + p.stderr for p in (taken, listed, tool, unknown))
    assert PASSWORD not in outputs and COMMUNITY_IN_CONFIG not in outputs


@pytest.mark.integration
def test_a_port_that_goes_down_between_polls_asks_for_a_snapshot(sim: SnmpSim, store: Engine) -> None:
    from netopsai.backends.snmp.poller import poll_and_store

    agent = Agent(sys_name="gen-poll", ports=ports(3))
    polled = SnmpTarget(host="127.0.0.1", port=sim.port, name="edge-sw2",
                        auth=SnmpAuth(community=SecretStr(POLLED)))
    snaps = Snapshotter(store, {}, {"edge-sw2": polled}, snmp_timeout=5)
    first = poll_and_store(store, [polled], timeout=5)
    assert first.failures == {} and first.went_down == []
    agent.ports[2].oper = 2  # Ethernet3 goes down
    sim.write(POLLED, agent)
    second = poll_and_store(store, [polled], timeout=5)
    assert second.went_down == [("edge-sw2", "Ethernet3")]
    snaps.on_poll(second.went_down)
    assert snaps.wait_idle(120)
    snaps.close()
    [snap] = rows(store)[1]
    assert (snap.device, snap.source, snap.alarm_id) == ("edge-sw2", "snmp", None)
    assert snap.data["interfaces"]["Ethernet3"]["is_up"] is False


def test_a_device_diagnosis_cites_the_devices_latest_snapshot(make_lab: Any) -> None:
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.service import Copilot
    from netopsai.lab.manage import lab_info
    from netopsai.store.snapshots import save

    engine = make_lab()
    save(engine, m.DeviceSnapshot(
        device="dc1-leaf-01", taken_at=lab_info(engine).clock, alarm_id=7, source="napalm",
        data={"interfaces": {"Ethernet1": {"is_up": False}, "Ethernet2": {"is_up": True}},
              "config_status": "changed"},
        config_diff="-ip route 0.0.0.0/0 10.0.0.1\n+ip route 0.0.0.0/0 10.0.0.9"))
    r = Copilot(lab_backends(engine)).answer("what is wrong with dc1-leaf-01?", "t")
    ev = next(e for e in r["evidence"] if e["tool"] == "metadata"
              and e["args"].get("query") == "snapshots")
    assert ev["rows"][0]["alarm_id"] == 7 and ev["id"] in r["citations"], r["answer"][:1500]
    assert "state captured at" in r["answer"] and "when alarm 7 opened" in r["answer"]
    assert "ports down: Ethernet1" in r["answer"]


def test_the_device_page_shows_the_snapshots(make_lab: Any) -> None:
    from netopsai.backends.lab import lab_backends
    from netopsai.lab.manage import lab_info
    from netopsai.store.snapshots import save
    from netopsai.ui.gradio.device import device_page

    engine = make_lab()
    page = device_page(lab_backends(engine), "dc1-leaf-01")
    assert page.errors == [] and len(page.snapshots) == 0  # none yet: the panel stays hidden
    save(engine, m.DeviceSnapshot(
        device="dc1-leaf-01", taken_at=lab_info(engine).clock, alarm_id=7, source="napalm",
        data={"interfaces": {"Ethernet1": {"is_up": False}}, "config_status": "changed"},
        config_diff="+ip route 0.0.0.0/0 10.0.0.9", errors=["get_optics: not supported"]))
    page = device_page(lab_backends(engine), "dc1-leaf-01")
    [row] = page.snapshots.to_dict("records")
    assert (row["alarm"], row["by"], row["ports down"]) == ("7", "napalm", "Ethernet1")
    assert row["config"] == "changed: +ip route 0.0.0.0/0 10.0.0.9"
    assert row["not read"] == "get_optics: not supported"


class ConcurrentIOS(IOSDriver):
    """NAPALM's ios driver, keeping the most sessions it had open at once."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    active: ClassVar[int] = 0
    most: ClassVar[int] = 0

    def open(self) -> None:
        with self.lock:
            type(self).active += 1
            type(self).most = max(type(self).most, type(self).active)
        super().open()

    def close(self) -> None:
        try:
            super().close()
        finally:
            with self.lock:
                type(self).active -= 1


@pytest.mark.integration
def test_alarms_on_many_devices_log_in_at_most_workers_at_once(store: Engine) -> None:
    names = [f"dc9-leaf-0{n}" for n in range(1, 5)]
    devices = []
    for name in names:
        dev = IosDevice(name)
        dev.add_port("GigabitEthernet0/0", ip="10.0.12.1/31")
        devices.append(dev)
    net = FakeIosNetwork(devices, password=PASSWORD).start()
    try:
        found = {n: DeviceTarget(host="127.0.0.1", port=net.ports[n], username=net.username,
                                 password=SecretStr(PASSWORD), timeout=20, name=n) for n in names}
        ConcurrentIOS.most = 0
        snaps = Snapshotter(store, found, workers=2, driver_cls=ConcurrentIOS)
        storm = [link_down(n, f"GigabitEthernet1/{k}") for k in range(5) for n in names]
        alarms_with_snapshots(store, snaps, storm)
        snaps.close()
    finally:
        net.stop()
    alarms, snapshots = rows(store)
    assert len(alarms) == 20 and sorted(s.device for s in snapshots) == names
    assert 1 <= ConcurrentIOS.most <= 2
    assert (snaps.stats.taken, snaps.stats.rate_limited) == (4, 16)


@pytest.mark.integration
def test_netopsai_ingest_snapshots_configured_devices_when_alarms_open(
        ios_net: FakeIosNetwork, tmp_path: Path) -> None:
    from tests.config.test_ingest_config import _Cli

    home = tmp_path / "home"
    home.mkdir()
    syslog = free_port(socket.SOCK_DGRAM)
    (home / "config.yaml").write_text(
        f"napalm:\n  - {{name: {LEAF}, host: 127.0.0.1, port: {ios_net.ports[LEAF]}, driver: ios}}\n")
    secrets = home / "secrets.yaml"
    secrets.write_text(f"ssh: {{username: {ios_net.username}, password: {PASSWORD}}}\n")
    secrets.chmod(0o600)
    cli = _Cli(home, "--syslog-port", str(syslog), "--trap-port", "-1", "--webhook-port", "-1")
    try:
        assert "snapshots of 1 configured devices when an alarm opens on one" in cli.head
        send_udp(syslog, link_down(LEAF, "GigabitEthernet0/1"))
        engine = empty_store(home)
        wait_until(lambda: len(rows(engine)[1]) == 1, "the snapshot", timeout=120)
    finally:
        out = cli.stop()
    alarms, [snap] = rows(engine)
    assert snap.alarm_id == alarms[0].id and snap.source == "napalm"
    assert PASSWORD not in out and PASSWORD.encode() not in cli.store_bytes()
