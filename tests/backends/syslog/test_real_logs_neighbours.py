"""Neighbours from the messages themselves (issue 24 item 5): a BGP session down names its peer
in the line (`neighbor 24.2.1.103`, `neighbor 2602:fed3:7025:d::3`, real FRR lines cited by
corpus id from bench/real_logs/), and the inventory has no session row for it — the alarm
still names the peer's address and, by any address of any of its interfaces (IPv4 and IPv6,
several a port, as `inventory import` keeps them all now), the device that holds it."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.syslog.files import load_files
from netopsai.common.timewin import Window
from netopsai.store import tables as m
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.store.inventory_import import import_files
from netopsai.store.naming import resolve_device
from netopsai.store.telemetry import StoreTelemetry
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.postgres import pg_url
from tests.paths import DATA, REPO
from tests.store_helpers import empty_store

__all__ = ["pg_url"]

NETBOX = DATA / "netbox"
CORPUS = REPO / "bench" / "real_logs"
V4_DOWN, V6_DOWN = "frr-0002", "frr-0009"  # FRRouting issues 15302 and 12737
# the peers' addresses as an operator's IPAM export would list them: a second IPv4 address and
# an IPv6 one (upper case, as some exports write it) on ports that already have an address
EXTRA = """address,vrf,tenant,status,role,device,interface,is_primary,dns_name,description
24.2.1.103/31,,AI Fabric,active,secondary,dc1-spine-01,Ethernet1,false,,
2602:FED3:7025:D::3/64,,AI Fabric,active,,dc1-spine-02,Ethernet2,false,,
2602:fed3:7025:d::2/64,,AI Fabric,active,,dc1-leaf-02,Ethernet50,false,,
"""


@cache
def line(corpus_id: str) -> str:
    for path in CORPUS.glob("*.jsonl"):
        for text in path.read_text().splitlines():
            row = json.loads(text)
            if row["id"] == corpus_id:
                return str(row["line"])
    raise KeyError(corpus_id)


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    (tmp_path / "more_addresses.csv").write_text(EXTRA)
    engine = empty_store(tmp_path)
    import_files(engine, [*sorted(NETBOX.glob("*.csv")), tmp_path / "more_addresses.csv"])
    return engine


def backends(engine: Engine) -> Backends:
    events = StoreEvents(engine)
    return Backends(inventory=StoreInventory(engine), telemetry=StoreTelemetry(engine),
                    paths=LabPaths(engine), changes=events, alarms=events)


def test_import_keeps_every_address_of_an_interface(store: Engine) -> None:
    inv = StoreInventory(store)
    for ip, device, port in (("172.16.0.0", "dc1-spine-01", "Ethernet1"),  # the first, kept
                             ("24.2.1.103", "dc1-spine-01", "Ethernet1"),  # its second
                             ("2602:fed3:7025:d::3", "dc1-spine-02", "Ethernet2"),
                             ("172.16.0.6", "dc1-spine-02", "Ethernet2")):
        owner = inv.ip_owner(ip)
        assert (owner["device"], owner["interface"]) == (device, port), ip
    shown = {i["name"]: i["ip"] for i in inv.interfaces("dc1-spine-01")}
    assert shown["Ethernet1"] == "172.16.0.0/31"  # the one shown is the first, not the last
    with Session(store) as s:  # an address is believed as the device's own, whichever it is
        assert resolve_device(s, "dc1-spine-02", "2602:fed3:7025:d::3").claimed is None
        assert resolve_device(s, "dc1-spine-01", "2602:fed3:7025:d::3").claimed == "dc1-spine-01"


def test_a_second_import_replaces_the_addresses_it_lists(store: Engine, tmp_path: Path) -> None:
    (tmp_path / "v6.csv").write_text(EXTRA.splitlines()[0] + "\n"
                                     "2602:fed3:7025:e::3/64,,AI Fabric,active,,dc1-spine-02,"
                                     "Ethernet2,false,,\n")
    import_files(store, [*sorted(NETBOX.glob("devices.csv")), *sorted(NETBOX.glob("interfaces.csv")),
                         tmp_path / "v6.csv"])
    with Session(store) as s:
        got = set(s.exec(select(m.InterfaceAddress.ip).where(
            m.InterfaceAddress.device == "dc1-spine-02", m.InterfaceAddress.interface == "Ethernet2")))
    assert got == {"2602:fed3:7025:e::3"}  # an import lists an interface's addresses whole


def _load(engine: Engine, tmp_path: Path, ids: list[str]) -> None:
    path = tmp_path / "leaf1.log"
    path.write_text("".join(line(i) + "\n" for i in ids))
    stamp = datetime(2024, 3, 20, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    load_files(str(engine.url), [path], device="dc1-leaf-01")


def test_a_bgp_session_down_names_its_peer_from_the_message(store: Engine, tmp_path: Path) -> None:
    _load(store, tmp_path, [V6_DOWN, V4_DOWN])
    window = Window(start=datetime(2023, 1, 1, tzinfo=UTC), end=datetime(2024, 1, 1, tzinfo=UTC))
    rows = StoreEvents(store).alarms("bgp", "any", ["dc1-leaf-01"], None, window)
    got = {(r["peer_address"], r["peer"]) for r in rows}
    assert got == {("24.2.1.103", "dc1-spine-01"), ("2602:fed3:7025:d::3", "dc1-spine-02")}
    ev = run_tool("alarms", {"category": "bgp", "devices": ["dc1-leaf-01"], "window": {
                             "start": "2023-12-22T10:00:00Z", "end": "2023-12-22T11:00:00Z"}},
                  backends(store))
    assert not ev.errors, ev.errors
    assert "24.2.1.103 (dc1-spine-01" in ev.summary and "?" not in ev.summary


def _session_alarm(engine: Engine, device: str, neighbor: str, at: datetime) -> None:
    with Session(engine) as s:
        s.add(m.Alarm(kind="ISIS_DOWN", category="routing", device=device, raised_at=at,
                      neighbor=neighbor, message=f"Adjacency to {neighbor} Down", source="syslog"))
        s.commit()


def test_an_isis_neighbour_by_its_system_name_and_an_unknown_one(store: Engine) -> None:
    at = datetime(2025, 11, 4, 19, 0, tzinfo=UTC)
    _session_alarm(store, "dc1-leaf-01", "DC1-SPINE-02", at)  # a system name, in another case
    _session_alarm(store, "dc1-leaf-01", "198.51.100.7", at)  # nobody's address
    rows = StoreEvents(store).alarms("routing", "any", None, None,
                                     Window(start=at - timedelta(hours=1), end=at + timedelta(hours=1)))
    got = {(r.get("peer_address"), r["peer"]) for r in rows}
    assert got == {(None, "dc1-spine-02"), ("198.51.100.7", None)}
    assert all("neighbor" not in r for r in rows)  # rows keep the Alarms contract's shape


# an IPv6 session over a port that flaps, seen from both ends (Arista EOS lines, in the form
# of tests/data/syslog/vendors/arista-eos.yaml): the port bounces four times in a minute; the
# session drops with the fourth Down, one the flap alarm absorbed, and the port comes back
LINK = "<187>{t:%b %d %H:%M:%S} {host} Ebra: %LINK-3-UPDOWN: Interface {port}, changed state to {s}"
BGP = ("<187>{t:%b %d %H:%M:%S} {host} Bgp: %BGP-5-ADJCHANGE: peer {peer} (VRF default AS 65100) "
       "old state Established event Stop new state Idle")
V6 = """address,vrf,tenant,status,role,device,interface,is_primary,dns_name,description
fc00:0:11::3/127,,AI Fabric,active,,dc1-leaf-01,Ethernet49,false,,
fc00:0:11::2/127,,AI Fabric,active,,dc1-spine-01,Ethernet1,false,,
"""
T0 = datetime(2025, 11, 4, 19, 0, tzinfo=UTC)


def _end(host: str, port: str, peer: str) -> list[str]:
    lines = []
    for i in range(4):
        at = T0 + timedelta(seconds=20 * i)
        lines.append(LINK.format(t=at, host=host, port=port, s="down"))
        if i == 3:
            lines.append(BGP.format(t=at, host=host, peer=peer))
        lines.append(LINK.format(t=at + timedelta(seconds=5), host=host, port=port, s="up"))
    return lines


@pytest.mark.parametrize("addresses", [True, False], ids=["v6-in-inventory", "v6-unknown"])
def test_a_session_over_a_flapping_port_is_in_the_ports_case(store: Engine, tmp_path: Path,
                                                              addresses: bool) -> None:
    """One case for the port event at both ends, not a case for each end's session: with the
    session's addresses in the inventory its alarm rides the link; without them it dropped in
    a second when the flap alarm of its device was bouncing the port (the one such link)."""
    if addresses:
        (tmp_path / "v6.csv").write_text(V6)
        import_files(store, [tmp_path / "v6.csv"])
    for host, port, peer in (("dc1-leaf-01", "Ethernet49", "fc00:0:11::2"),
                             ("dc1-spine-01", "Ethernet1", "fc00:0:11::3")):
        path = tmp_path / f"{host}.log"
        path.write_text("\n".join(_end(host, port, peer)) + "\n")
        stamp = (T0 + timedelta(days=1)).timestamp()
        os.utime(path, (stamp, stamp))
        load_files(str(store.url), [path], device=host)
    ev = run_tool("alarms", {"correlate": True, "window": {
        "start": "2025-11-04T18:00:00Z", "end": "2025-11-04T20:00:00Z"}}, backends(store))
    assert not ev.errors, ev.errors
    rows = [r for r in ev.rows if r["raised_at"].startswith("2025-11-04")]  # not older open ones
    sessions = [r for r in rows if r["kind"] == "BGP_DOWN"]
    assert sorted(r["device"] for r in sessions) == ["dc1-leaf-01", "dc1-spine-01"]
    assert any(r["kind"] == "LINK_FLAP" for r in rows)
    assert len({r["group"] for r in rows}) == 1, [(r["kind"], r["device"], r["group"]) for r in rows]
    if addresses:
        assert {(r["peer_address"], r["peer"]) for r in sessions} == {
            ("fc00:0:11::2", "dc1-spine-01"), ("fc00:0:11::3", "dc1-leaf-01")}


def test_the_alarms_answer_names_routing_neighbours_too(store: Engine) -> None:
    at = datetime(2025, 11, 4, 19, 0, tzinfo=UTC)
    _session_alarm(store, "dc1-leaf-01", "dc1-spine-02.example.net", at)  # with a domain
    _session_alarm(store, "dc1-leaf-01", "198.51.100.7", at)
    ev = run_tool("alarms", {"category": "routing", "window": {
        "start": "2025-11-04T18:00:00Z", "end": "2025-11-04T20:00:00Z"}}, backends(store))
    assert "OSPF/IS-IS neighbours: " in ev.summary
    assert "(dc1-spine-02)" in ev.summary and "198.51.100.7 (device unknown)" in ev.summary


@pytest.mark.integration
def test_on_postgresql_too(pg_url: str, tmp_path: Path) -> None:
    """The team store: every address imported, the peers named, the session in the port's case."""
    from netopsai.store.engine import engine_for
    from netopsai_testkit.peers.postgres import fresh_database

    (tmp_path / "more_addresses.csv").write_text(EXTRA)
    (tmp_path / "v6.csv").write_text(V6)
    engine = engine_for(fresh_database(pg_url, "neighbours"))
    import_files(engine, [*sorted(NETBOX.glob("*.csv")), tmp_path / "more_addresses.csv",
                          tmp_path / "v6.csv"])
    assert StoreInventory(engine).ip_owner("2602:fed3:7025:d::3")["device"] == "dc1-spine-02"
    assert StoreInventory(engine).ip_owner("172.16.0.0")["interface"] == "Ethernet1"
    test_a_bgp_session_down_names_its_peer_from_the_message(engine, tmp_path)
    test_a_session_over_a_flapping_port_is_in_the_ports_case(engine, tmp_path, addresses=False)
