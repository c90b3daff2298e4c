"""Inventory import: NetBox CSV exports and YAML specs into the store, all or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect
from sqlmodel import Session, func, select

from netopsai.common.errors import NetopsError
from netopsai.lab.inventory_yaml import import_files as import_with_specs
from netopsai.store import tables as m
from netopsai.store.engine import engine_for, get_meta
from netopsai.store.inventory import StoreInventory
from netopsai.store.inventory_import import import_files
from netopsai.store.inventory_sync import InventoryBatch, sync_inventory
from tests.paths import DATA, REPO
from tests.store_helpers import dump, empty_store

NETBOX = DATA / "netbox"
CSVS = sorted(NETBOX.glob("*.csv"))
SPEC = REPO / "inventory" / "default.yaml"


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    return empty_store(tmp_path)


def count(engine: Engine, table: type) -> int:
    with Session(engine) as s:
        return int(s.exec(select(func.count()).select_from(table)).one())


def test_netbox_exports_build_devices_interfaces_links_segments_and_hosts(store: Engine) -> None:
    result = import_files(store, CSVS)
    assert result.skipped == Counter({"container or pool prefixes": 3,
                                      "cables not between two interfaces": 1})
    inv = StoreInventory(store)
    devs = {d["name"]: d for d in inv.devices(None, None, None, None)}
    assert sorted(devs) == ["dc1-border-01", "dc1-dci-01", "dc1-leaf-01", "dc1-leaf-02",
                            "dc1-spine-01", "dc1-spine-02", "dc2-dci-01"]  # servers are hosts
    spine = devs["dc1-spine-01"]
    assert (spine["role"], spine["vendor"], spine["model"], spine["asn"], spine["pod"]) == \
        ("spine", "Arista", "DCS-7280CR3-32P4", 65101, "dc1-pod1")
    assert (spine["mgmt_ip"], spine["loopback"]) == ("10.250.0.11", "10.254.0.1")
    ifaces = {i["name"]: i for i in inv.interfaces("dc1-leaf-02")}
    assert ifaces["Ethernet49"]["speed_mbps"] == 100_000  # NetBox speaks kbit/s
    assert ifaces["Ethernet50"]["admin_status"] == "down" and ifaces["Vlan102"]["ip"] == "10.1.2.1/24"
    with Session(store) as s:
        links = s.exec(select(m.Link)).all()
        assert Counter(lk.kind for lk in links) == Counter(
            {"fabric": 6, "host": 2, "backbone": 1, "dci": 1})
        assert {(lk.a_interface, lk.status) for lk in links if lk.a_device == "dc1-leaf-02"} == \
            {("Ethernet49", "up"), ("Ethernet50", "down")}  # a planned cable carries nothing
        assert (get_meta(s, "network"), get_meta(s, "source")) == ("real", "netbox")
    segs = {sg["cidr"]: sg for sg in inv.segments("dc1", None)}
    assert set(segs) == {"10.1.1.0/24", "10.1.2.0/24", "10.250.0.0/24"}
    assert (segs["10.1.1.0/24"]["tor"], segs["10.1.1.0/24"]["gateway"], segs["10.1.1.0/24"]["vlan"],
            segs["10.1.1.0/24"]["pod"]) == ("dc1-leaf-01", "10.1.1.1", 101, "dc1-pod1")
    assert segs["10.250.0.0/24"]["tor"] is None  # management ports are nobody's gateway
    owner = inv.ip_owner("10.1.1.20")
    assert (owner["device"], owner["tor"], owner["tor_interface"], owner["segment"]) == \
        ("dc1-srv-01-1", "dc1-leaf-01", "Ethernet1", "10.1.1.0/24")
    assert [u["neighbor"] for u in inv.upstream("dc1-leaf-01", None)] == ["dc1-spine-01", "dc1-spine-02"]


def test_importing_the_same_export_twice_changes_nothing_the_second_time(store: Engine) -> None:
    import_files(store, CSVS)
    before = dump(store).replace(_updated(store), "")
    again = import_files(store, CSVS).report
    assert sum(again.added.values()) == 0 and sum(again.updated.values()) == 0
    assert dump(store).replace(_updated(store), "") == before


def _updated(engine: Engine) -> str:
    with Session(engine) as s:
        return get_meta(s, "inventory_updated") or ""


def test_a_later_partial_row_keeps_what_it_does_not_mention(store: Engine) -> None:
    import_files(store, CSVS)
    sync_inventory(store, InventoryBatch(source="napalm", devices=[
        {"name": "dc1-leaf-01", "os_version": "4.31.2F", "role": "router", "site": "nowhere"}],
        device_insert_only={"role", "site"}))
    d = StoreInventory(store).device("dc1-leaf-01")
    assert (d["os_version"], d["role"], d["site"], d["mgmt_ip"]) == \
        ("4.31.2F", "leaf", "dc1", "10.250.0.21")


def test_yaml_spec_import_builds_the_lab_topology_without_its_history(
        store: Engine, lab_engine: Engine) -> None:
    import_with_specs(store, [SPEC], scale="small", seed=7)
    for table in (m.Site, m.Pod, m.Segment, m.Device, m.Interface, m.Link, m.HostAddress):
        assert count(store, table) == count(lab_engine, table) > 0, table
    for table in (m.Alarm, m.Change, m.InterfaceEvent, m.CounterSample):
        assert count(store, table) == 0, table
    imported, lab = StoreInventory(store), StoreInventory(lab_engine)
    assert imported.ip_owner("10.1.3.20") == lab.ip_owner("10.1.3.20")
    assert imported.neighbors("dc1-spine-01") == lab.neighbors("dc1-spine-01")
    with Session(store) as s:
        assert (get_meta(s, "network"), get_meta(s, "source")) == ("real", "yaml")


def edited(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the sample export `name` with one edit."""
    dst = tmp_path / name
    text = (NETBOX / name).read_text()
    assert old in text
    dst.write_text(text.replace(old, new, 1))
    return dst


BAD = [
    ("devices.csv", ",Spine,Arista,DCS-7280CR3-32P4", ",Spline,Arista,DCS-7280CR3-32P4",
     "devices.csv:2: field 'role': role 'Spline' is not a known role; closest: spine"),
    ("interfaces.csv", "dc1-leaf-02,Ethernet1,", "dc1-leaf-2,Ethernet1,",
     "interfaces.csv:18: field 'device': unknown device 'dc1-leaf-2'; closest: dc1-leaf-02"),
    ("cables.csv", "Ethernet50,dc1-spine-02,dcim.interface,Ethernet1,smf,connected",
     "Ethernet5O,dc1-spine-02,dcim.interface,Ethernet1,smf,connected",
     "cables.csv:3: field 'side_a_name': unknown interface 'Ethernet5O' on dc1-leaf-01; "
     "closest: Ethernet50"),
    ("cables.csv", "et-0/0/0,smf,connected", "et-0/0/0,smf,conected",
     "cables.csv:6: field 'status': status 'conected' is not valid; closest: connected"),
    ("ip_addresses.csv", "10.1.2.20/24", "10.1.2.320/24", "ip_addresses.csv:15: field 'address'"),
    ("prefixes.csv", "10.1.2.0/24", "10.1.2.1/24", "prefixes.csv:4: field 'prefix'"),
    ("interfaces.csv", "true,9214,25000000", "maybe,9214,25000000",
     "interfaces.csv:12: field 'enabled': 'maybe' is not true/false"),
]


@pytest.mark.parametrize(("name", "old", "new", "message"), BAD)
def test_validation_errors_name_the_file_line_and_field(tmp_path: Path, store: Engine, name: str,
                                                        old: str, new: str, message: str) -> None:
    files = [edited(tmp_path, p.name, old, new) if p.name == name else p for p in CSVS]
    with pytest.raises(NetopsError) as err:
        import_files(store, files)
    assert str(err.value).startswith(f"{tmp_path}/{message}"), str(err.value)
    assert not inspect(store).has_table("device")  # nothing was written, not even the tables


@pytest.mark.parametrize(("old", "new", "message"), [
    ("scales:", "scale:", ":13: field 'scales': Field required; closest key present: scale"),
    ("pods_per_site: 2", "pods_per_site: two", ":15: field 'scales.small.pods_per_site'"),
])
def test_yaml_errors_point_at_the_line(tmp_path: Path, store: Engine, old: str, new: str,
                                       message: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.read_text().replace(old, new, 1))
    with pytest.raises(NetopsError) as err:
        import_with_specs(store, [spec])
    assert str(err.value).startswith(f"{spec}{message}"), str(err.value)


def test_the_store_reads_no_spec_itself(store: Engine) -> None:
    """The lab builds a spec's rows (issue 27 item 6): the store's importer, given no reader,
    refuses a spec in one line, before anything is written, and names the door that reads it."""
    with pytest.raises(NetopsError) as err:
        import_files(store, [*CSVS, SPEC])
    assert str(err.value) == (f"{SPEC}: a YAML lab spec is read by the lab: import it with "
                              "netopsai.lab.inventory_yaml.import_files")
    assert not inspect(store).has_table("device")


def test_a_failed_import_changes_nothing_in_a_filled_store(tmp_path: Path, store: Engine) -> None:
    import_files(store, CSVS)
    before = dump(store)
    bad_ips = edited(tmp_path, "ip_addresses.csv", "dc1-leaf-02,Vlan102", "dc1-leaf-02,Vlan120")
    with pytest.raises(NetopsError, match="unknown interface 'Vlan120' on dc1-leaf-02"):
        import_files(store, [bad_ips if p.name == bad_ips.name else p for p in CSVS])
    assert dump(store) == before


def test_a_write_that_fails_halfway_is_rolled_back(store: Engine) -> None:
    import_files(store, CSVS)
    before = dump(store)
    broken = InventoryBatch(source="netbox", sites=[{"name": "dc3"}],
                            devices=[{"name": "dc3-leaf-01", "role": "leaf", "site": "dc3"}],
                            links=[{"a_device": "dc3-leaf-01", "a_interface": "Ethernet1",
                                    "b_device": "dc1-spine-01", "b_interface": "Ethernet9",
                                    "kind": None}])  # sites and devices are written before this fails
    with pytest.raises(ValueError, match="kind"):
        sync_inventory(store, broken)
    assert dump(store) == before


def test_the_lab_store_is_only_replaced_on_request(make_lab: Callable[..., Engine]) -> None:
    lab = make_lab()
    before = dump(lab)
    with pytest.raises(NetopsError, match="embedded lab; import with --replace"):
        import_files(lab, CSVS)
    assert dump(lab) == before
    import_files(lab, CSVS, replace=True)
    assert count(lab, m.Device) == 9 and count(lab, m.Alarm) == 0
    with Session(lab) as s:
        assert get_meta(s, "clock") is None and get_meta(s, "network") == "real"


def run_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NETOPSAI_HOME": str(home)}
    env.pop("DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "netopsai.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120, check=False)


def test_metadata_tool_answers_from_an_imported_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = run_cli(home, "inventory", "import", *map(str, CSVS))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("imported 5 file(s): site: +2, pod: +1, device: +9")
    owner = run_cli(home, "tool", "metadata", '{"query": "ip", "ip": "10.1.2.20"}', "--json")
    assert owner.returncode == 0, owner.stderr
    ev = json.loads(owner.stdout)
    assert ev["errors"] == [] and ev["rows"][0]["device"] == "dc1-srv-02-1"
    assert ev["rows"][0]["tor"] == "dc1-leaf-02"
    pods = json.loads(run_cli(home, "tool", "metadata", '{"query": "pods", "site": "dc1"}',
                              "--json").stdout)
    assert pods["rows"][0]["segments"] == ["10.1.1.0/24", "10.1.2.0/24"]


def test_cli_import_of_a_bad_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = edited(tmp_path, "devices.csv", "dc2,,,DCI", "dc2,,,Core")
    done = run_cli(tmp_path / "home", "inventory", "import", str(bad), str(NETBOX / "interfaces.csv"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}:8: field 'role': role 'Core' "
                                                   "is not a known role"), lines
    assert not (tmp_path / "home" / "netopsai.db").exists() or \
        not inspect(engine_for(f"sqlite:///{tmp_path / 'home' / 'netopsai.db'}")).has_table("device")


def test_the_table_export_headers_of_netbox_are_understood(tmp_path: Path, store: Engine) -> None:
    """NetBox's table export names columns for people: 'Side A', 'Termination A' ..."""
    cables = tmp_path / "cables_export.csv"
    cables.write_text("\ufeffID,Label,Side A,Termination A,Side B,Termination B,Status,Type\n"
                      "11,C-0001,dc1-leaf-01,Ethernet49,dc1-spine-01,Ethernet1,Connected,SMF\n"
                      "12,C-0003,dc1-leaf-02,Ethernet49,dc1-spine-01,Ethernet2,Planned,SMF\n")
    import_files(store, [NETBOX / "devices.csv", NETBOX / "interfaces.csv", cables])
    assert [(n["interface"], n["neighbor"], n["neighbor_interface"], n["status"])
            for n in StoreInventory(store).neighbors("dc1-spine-01")] == [
        ("Ethernet1", "dc1-leaf-01", "Ethernet49", "up"),
        ("Ethernet2", "dc1-leaf-02", "Ethernet49", "down")]
