"""NAPALM backend: discovery, config snapshots and device-side traceroute over real SSH to
FakeNOS (Cisco IOS), error paths with NAPALM's mock driver, and the read-only guarantee."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from napalm.ios.ios import IOSDriver
from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.napalm.config import snapshot
from netopsai.backends.napalm.device import DeviceTarget, ReadOnlyViolation, connect
from netopsai.backends.napalm.discovery import discover
from netopsai.backends.napalm.paths import NapalmPaths
from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.engine import get_meta
from netopsai.store.inventory import StoreInventory
from netopsai_testkit.peers.fakenos import FakeIosNetwork, IosDevice
from tests.paths import DATA as TEST_DATA
from tests.store_helpers import dump, empty_store

DATA = TEST_DATA / "napalm"
PASSWORD = "fake-pass-7Qx"
TRACE = "traceroute 10.254.9.9 source 10.254.9.1 ttl 0 30 timeout 2"
PING = "ping 10.254.9.2 timeout 2 size 100 repeat 5 source 10.254.9.1"
FORBIDDEN = {"load_merge_candidate", "load_replace_candidate", "commit_config", "discard_config",
             "rollback", "compare_config", "confirm_commit", "load_template", "cli",
             "_load_candidate", "_commit_handler", "_send_config"}


def two_devices() -> tuple[IosDevice, IosDevice]:
    leaf, spine = IosDevice("dc9-leaf-01"), IosDevice("dc9-spine-01")
    leaf.add_port("GigabitEthernet0/0", ip="10.0.12.1/31", description="to dc9-spine-01 Gi0/0")
    leaf.add_port("GigabitEthernet0/1", up=False, description="spare", bw_kbit=100_000)
    leaf.add_port("Vlan101", ip="10.9.1.1/24", description="rack 1 hosts", mtu=9000)
    leaf.add_port("Loopback0", ip="10.254.9.1/32")
    spine.add_port("GigabitEthernet0/0", ip="10.0.12.0/31", description="to dc9-leaf-01")
    spine.add_port("Loopback0", ip="10.254.9.2/32")
    leaf.lldp = [("Gi0/0", "dc9-spine-01.lab.example.net", "Gi0/0")]
    spine.lldp = [("Gi0/0", "dc9-leaf-01", "Gi0/0")]
    leaf.config = ["snmp-server community S3cr3tC0mm RO", "ip route 0.0.0.0 0.0.0.0 10.0.12.0", "!"]
    leaf.traces = {TRACE: ["  1 10.0.12.0 1 msec 1 msec 2 msec", "  2 10.254.9.9 3 msec *  4 msec"]}
    leaf.pings = {PING: "Success rate is 100 percent (5/5), round-trip min/avg/max = 1/2/4 ms"}
    return leaf, spine


@pytest.fixture
def ios_net() -> Iterator[FakeIosNetwork]:
    net = FakeIosNetwork(list(two_devices()), password=PASSWORD).start()
    yield net
    net.stop()


def targets(net: FakeIosNetwork, password: str = PASSWORD) -> list[DeviceTarget]:
    return [DeviceTarget(host="127.0.0.1", port=port, username=net.username,
                         password=SecretStr(password), timeout=10, name=name)
            for name, port in net.ports.items()]


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    return empty_store(tmp_path)


@pytest.mark.integration
def test_discovery_fills_the_inventory_from_parsed_device_output(ios_net: FakeIosNetwork,
                                                                  store: Engine) -> None:
    result = discover(store, targets(ios_net))
    assert result.errors == [] and sorted(result.devices) == ["dc9-leaf-01", "dc9-spine-01"]
    inv = StoreInventory(store)
    leaf = next(d for d in inv.devices(None, None, None, None) if d["name"] == "dc9-leaf-01")
    assert (leaf["vendor"], leaf["model"], leaf["role"]) == ("Cisco", "IOSv", "leaf")
    assert "Version 15.9(3)M4" in leaf["os_version"] and leaf["loopback"] == "10.254.9.1"
    ifaces = {i["name"]: i for i in inv.interfaces("dc9-leaf-01")}
    assert set(ifaces) == {"GigabitEthernet0/0", "GigabitEthernet0/1", "Vlan101", "Loopback0"}
    assert ifaces["GigabitEthernet0/0"]["ip"] == "10.0.12.1/31"
    assert (ifaces["GigabitEthernet0/1"]["oper_status"], ifaces["GigabitEthernet0/1"]["speed_mbps"]) \
        == ("down", 100)
    assert ifaces["Vlan101"]["mtu"] == 9000
    # the link is seen from both ends (one by FQDN, short port names) and stored once
    assert inv.neighbors("dc9-leaf-01") == [{
        "interface": "GigabitEthernet0/0", "neighbor": "dc9-spine-01",
        "neighbor_interface": "GigabitEthernet0/0", "kind": "fabric", "status": "up",
        "circuit_id": None, "provider": None}]
    seg = inv.segments(None, None)
    assert [(s["cidr"], s["tor"], s["gateway"], s["vlan"]) for s in seg] == \
        [("10.9.1.0/24", "dc9-leaf-01", "10.9.1.1", 101)]
    assert inv.ip_owner("10.0.12.0")["device"] == "dc9-spine-01"
    with Session(store) as s:
        assert (get_meta(s, "network"), get_meta(s, "source")) == ("real", "napalm")


@pytest.mark.integration
def test_refresh_follows_a_port_that_went_down_and_one_removed(ios_net: FakeIosNetwork,
                                                               store: Engine) -> None:
    discover(store, targets(ios_net))
    leaf = ios_net.devices["dc9-leaf-01"]
    leaf.ports["GigabitEthernet0/0"].up = False
    del leaf.ports["GigabitEthernet0/1"]
    result = discover(store, targets(ios_net)[:1])
    assert result.report is not None and result.report.removed["interface"] == 1
    inv = StoreInventory(store)
    ifaces = {i["name"]: i for i in inv.interfaces("dc9-leaf-01")}
    assert "GigabitEthernet0/1" not in ifaces
    assert ifaces["GigabitEthernet0/0"]["oper_status"] == "down"
    assert inv.neighbors("dc9-spine-01")[0]["status"] == "down"


@pytest.mark.integration
def test_a_changed_running_config_becomes_an_unrecorded_change(ios_net: FakeIosNetwork,
                                                              store: Engine) -> None:
    leaf_target = targets(ios_net)[:1]
    discover(store, leaf_target, site="dc9")
    first = snapshot(store, leaf_target)
    assert first.taken == [f"dc9-leaf-01: first snapshot ({first_lines(store)} lines)"]
    leaf = ios_net.devices["dc9-leaf-01"]
    leaf.config[1] = "ip route 0.0.0.0 0.0.0.0 10.0.12.2"
    leaf.config[0] = "snmp-server community N3wS3cr3t RO"
    leaf.ports["GigabitEthernet0/1"].enabled = False
    second = snapshot(store, leaf_target)
    assert second.taken == ["dc9-leaf-01: changed"]
    with Session(store) as s:
        changes = s.exec(select(m.Change)).all()
        snaps = s.exec(select(m.ConfigSnapshot)).all()
    assert len(changes) == 1 and len(snaps) == 2
    c = changes[0]
    assert (c.kind, c.device, c.site) == ("unrecorded", "dc9-leaf-01", "dc9")
    assert c.summary.startswith("unrecorded change detected on dc9-leaf-01: 2 line(s) added, 1 removed")
    for line in ("- ip route 0.0.0.0 0.0.0.0 10.0.12.0", "+ ip route 0.0.0.0 0.0.0.0 10.0.12.2",
                 "+ shutdown"):
        assert line in c.summary
    stored_text = " ".join(sn.running for sn in snaps) + c.summary
    assert "S3cr3tC0mm" not in stored_text and "N3wS3cr3t" not in stored_text
    third = snapshot(store, leaf_target)
    assert third.taken[0].startswith("dc9-leaf-01: unchanged since")
    with Session(store) as s:
        assert len(s.exec(select(m.Change)).all()) == 1


def first_lines(store: Engine) -> int:
    with Session(store) as s:
        snap = s.exec(select(m.ConfigSnapshot)).one()
    return len(snap.running.splitlines())


@pytest.mark.integration
def test_device_side_traceroute_and_ping_parse_the_device_output(ios_net: FakeIosNetwork,
                                                                 store: Engine) -> None:
    from netopsai.backends.base import Backends
    from netopsai.store.events import StoreEvents
    from netopsai.tools.registry import run_tool

    discover(store, targets(ios_net))
    paths = NapalmPaths(store, {t.name or "": t for t in targets(ios_net)})
    events = StoreEvents(store)
    backends = Backends(inventory=StoreInventory(store), telemetry=None,  # type: ignore[arg-type]
                        paths=paths, changes=events, alarms=events)
    ev = run_tool("traceroute", '{"src": "10.254.9.1", "dst": "10.254.9.9"}', backends)
    assert ev.errors == []
    assert [(h["hop"], h["ip"], h["device"], h["status"]) for h in ev.rows] == [
        (1, "10.0.12.0", "dc9-spine-01", "ok"), (2, "10.254.9.9", "10.254.9.9", "reached")]
    assert ev.rows[0]["rtt_ms"] == pytest.approx(4 / 3, abs=0.01)
    assert ev.rows[1]["loss_pct"] == pytest.approx(33.3)
    assert ev.facts["reached"] is True
    assert ev.facts["path_devices"] == ["dc9-leaf-01", "dc9-spine-01", "10.254.9.9"]
    ping = paths.ping("10.254.9.1", "10.254.9.2")
    assert (ping["sent"], ping["lost"], ping["rtt_avg_ms"]) == (5, 0, 2.0)
    assert TRACE in ios_net.devices["dc9-leaf-01"].seen


class RecordingIOS(IOSDriver):  # type: ignore[misc]
    """The real ios driver, recording every attribute looked up on it."""

    accessed: set[str] = set()

    def __getattribute__(self, name: str) -> Any:
        RecordingIOS.accessed.add(name)
        return super().__getattribute__(name)


@pytest.mark.integration
def test_only_read_only_methods_reach_the_driver(ios_net: FakeIosNetwork, store: Engine) -> None:
    RecordingIOS.accessed = set()
    ts = targets(ios_net)
    discover(store, ts, driver_cls=RecordingIOS)
    snapshot(store, ts[:1], driver_cls=RecordingIOS)
    paths = NapalmPaths(store, {"dc9-leaf-01": ts[0]}, driver_cls=RecordingIOS)
    paths.traceroute("10.254.9.1", "10.254.9.9", 60, None)
    paths.ping("10.254.9.1", "10.254.9.2")
    with pytest.raises(ReadOnlyViolation, match="load_merge_candidate refused on dc9-leaf-01"), \
            connect(ts[0], RecordingIOS) as dev:
        dev.load_merge_candidate(config="hostname pwned")
    seen = RecordingIOS.accessed
    assert {"get_facts", "get_interfaces", "get_interfaces_ip", "get_lldp_neighbors",
            "get_config", "traceroute", "ping"} <= seen  # the recorder saw the real calls
    assert not seen & FORBIDDEN, seen & FORBIDDEN
    assert not any(c.startswith(("conf", "copy", "write", "reload")) for c in
                   ios_net.devices["dc9-leaf-01"].seen)


@pytest.mark.integration
# FakeNOS's server thread trips over the rejected login (its own bug, not ours)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_wrong_password_is_one_clear_line_and_changes_nothing(
        ios_net: FakeIosNetwork, store: Engine, caplog: pytest.LogCaptureFixture) -> None:
    discover(store, targets(ios_net))
    before = dump(store)
    wrong = "not-the-Pa55word"
    with caplog.at_level(logging.DEBUG):
        result = discover(store, targets(ios_net, password=wrong))
        snap = snapshot(store, targets(ios_net, password=wrong)[:1])
    port = ios_net.ports["dc9-leaf-01"]
    assert result.devices == [] and result.report is None
    assert result.errors[0] == f"dc9-leaf-01: authentication failed (127.0.0.1:{port}, driver ios)"
    assert snap.errors == [result.errors[0]] and snap.taken == []
    assert dump(store) == before
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert wrong not in logged and wrong not in " ".join(result.errors)


def mock_target(name: str, folder: str) -> DeviceTarget:
    return DeviceTarget(host=f"{name}.lab.example.net", driver="mock", username="netops",
                        password=SecretStr(PASSWORD), name=name,
                        optional_args={"path": str(DATA / folder)})


def test_mock_auth_failure_and_timeout_give_partial_results_naming_the_devices(
        store: Engine) -> None:
    ts = [mock_target("edge-r1", "ok"), mock_target("edge-r5", "auth_failure"),
          mock_target("edge-r7", "timeout"), mock_target("edge-r9", "unreachable")]
    result = discover(store, ts, site="edge")
    assert result.devices == ["edge-r1"] and result.partial
    assert result.errors == [
        "edge-r5: authentication failed (edge-r5.lab.example.net:22, driver mock)",
        "edge-r7: timed out (edge-r7.lab.example.net:22, driver mock)",
        "edge-r9: cannot connect (edge-r9.lab.example.net:22, driver mock)"]
    inv = StoreInventory(store)
    assert [d["name"] for d in inv.devices(None, None, None, None)] == ["edge-r1"]
    # edge-r7 answered two getters before timing out: none of it is stored
    with Session(store) as s:
        assert s.exec(select(m.Interface).where(m.Interface.device == "edge-r7")).all() == []
    assert inv.neighbors("edge-r1")[0]["neighbor"] == "edge-r7"  # LLDP named it by its FQDN
    assert PASSWORD not in " ".join(result.errors)


def test_mock_errors_leave_the_store_unchanged(store: Engine) -> None:
    discover(store, [mock_target("edge-r1", "ok")])
    snapshot(store, [mock_target("edge-r1", "ok")])
    before = dump(store)
    bad = [mock_target("edge-r5", "auth_failure"), mock_target("edge-r7", "timeout")]
    result = discover(store, bad)
    snap = snapshot(store, bad)
    assert result.report is None and len(result.errors) == 2
    assert [e.split(":")[0] for e in snap.errors] == ["edge-r5", "edge-r7"]
    assert dump(store) == before


def test_the_guard_refuses_config_methods_before_they_reach_the_driver() -> None:
    with connect(mock_target("edge-r1", "ok")) as dev:
        for name in ("load_replace_candidate", "commit_config", "rollback", "discard_config",
                     "compare_config", "cli"):
            with pytest.raises(ReadOnlyViolation, match=f"{name} refused on edge-r1"):
                getattr(dev, name)
        assert dev.get_facts()["hostname"] == "edge-r1"


def test_a_device_that_times_out_mid_trace_is_named_in_the_evidence(store: Engine) -> None:
    from netopsai.backends.base import Backends
    from netopsai.store.events import StoreEvents
    from netopsai.tools.registry import run_tool

    discover(store, [mock_target("edge-r1", "ok")])
    r7 = mock_target("edge-r7", "timeout").model_copy(update={"host": "192.0.2.7"})
    events = StoreEvents(store)
    backends = Backends(inventory=StoreInventory(store), telemetry=None,  # type: ignore[arg-type]
                        paths=NapalmPaths(store, {"edge-r7": r7}), changes=events, alarms=events)
    ev = run_tool("traceroute", '{"src": "192.0.2.7", "dst": "192.0.2.1"}', backends)
    assert ev.errors == ["edge-r7: timed out (192.0.2.7:22, driver mock)"] and ev.rows == []
    unknown = run_tool("traceroute", '{"src": "192.0.2.99", "dst": "192.0.2.1"}', backends)
    assert unknown.errors == ["192.0.2.99 is not an address of a device netopsai can log into "
                              "(edge-r7)"]


def netopsai(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "NETOPSAI_HOME": str(home), **env}
    full.pop("DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env=full, timeout=300, check=False)


@pytest.mark.integration
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_cli_discover_and_snapshot_over_ssh(ios_net: FakeIosNetwork, tmp_path: Path) -> None:
    leaf, spine = (str(ios_net.ports[n]) for n in ("dc9-leaf-01", "dc9-spine-01"))
    home = tmp_path / "home"
    common = ["--username", ios_net.username, "--password-env", "NETOPS_TEST_PW"]
    done = netopsai(home, "devices", "discover", "--host", "127.0.0.1", "--port", leaf, *common,
                    "--site", "dc9", NETOPS_TEST_PW=PASSWORD)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("discovered 1 device(s) (dc9-leaf-01): site: +1")
    snap = netopsai(home, "devices", "snapshot", "--host", "127.0.0.1", "--port", leaf, *common,
                    NETOPS_TEST_PW=PASSWORD)
    assert snap.returncode == 0 and snap.stdout.startswith("dc9-leaf-01: first snapshot")
    meta = netopsai(home, "tool", "metadata", '{"query": "device", "name": "dc9-leaf-01"}', "--json")
    assert json.loads(meta.stdout)["rows"][0]["model"] == "IOSv", meta.stderr
    bad = netopsai(home, "devices", "discover", "--host", "127.0.0.1", "--port", spine, *common,
                   NETOPS_TEST_PW="wrong-" + PASSWORD)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip() == (f"error: 127.0.0.1: authentication failed (127.0.0.1:{spine}, "
                                  "driver ios)")
    assert PASSWORD not in bad.stdout + bad.stderr + done.stdout + done.stderr
    unset = netopsai(home, "devices", "discover", "--host", "127.0.0.1", *common)
    assert unset.returncode == 2 and "NETOPS_TEST_PW is not set" in unset.stderr
    # no --host: the devices of config.yaml, with the SSH credentials of secrets.yaml
    (home / "config.yaml").write_text(
        f"napalm:\n  - {{name: dc9-spine-01, host: 127.0.0.1, port: {spine}, driver: ios}}\n")
    secrets = home / "secrets.yaml"
    secrets.write_text(f"ssh: {{username: {ios_net.username}, password: {PASSWORD}}}\n")
    secrets.chmod(0o600)
    configured = netopsai(home, "devices", "discover")
    assert configured.returncode == 0, configured.stderr
    assert configured.stdout.startswith("discovered 1 device(s) (dc9-spine-01)")
    assert PASSWORD not in configured.stdout + configured.stderr


def test_snapshots_refuse_the_lab_and_credentials_stay_hidden(make_lab: Any) -> None:
    target = mock_target("edge-r1", "ok")
    assert PASSWORD not in repr(target) + str(target) + target.model_dump_json()
    lab = make_lab()
    before = dump(lab)
    with pytest.raises(NetopsError, match="the store holds the embedded lab"):
        snapshot(lab, [target])
    with pytest.raises(NetopsError, match="the store holds the embedded lab"):
        discover(lab, [target])
    assert dump(lab) == before
