"""Traceroute hops on any address of a port (issue 24 item 5): a router answers a probe from the
address of the port the probe came in on, which may be a secondary IPv4 address or an IPv6 one
(kept in interfaceaddress since migration 0007, not in interface.ip). Both traceroute backends —
the system one (map.py) and NAPALM's device-side one (paths.py) — place such a hop on its
device and port, through the same lookup as ip_owner."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.napalm.paths import owner_of, trace_row
from netopsai.backends.traceroute.map import InventoryMap
from netopsai.backends.traceroute.parse import parse_output
from netopsai.backends.traceroute.run import Flow, FlowSpec
from netopsai.backends.traceroute.stop import flow_rows
from netopsai.store import tables as m
from netopsai.store.engine import create_all
from netopsai.store.inventory import StoreInventory
from tests.store_helpers import empty_store

SECONDARY, V6, V6_SPINE = "10.77.0.1", "fc00:0:11::1", "fc00:0:11::"
DST = "10.254.9.9"


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    """A leaf and a spine: each fabric port's first address in interface.ip (as every store
    has it), a secondary IPv4 and IPv6 addresses only in interfaceaddress."""
    engine = empty_store(tmp_path)
    create_all(engine)  # the schema as every command opens it (migrations to 0007 and on)
    with Session(engine) as s:
        for name, role, loop in (("dc9-leaf-01", "leaf", "10.254.9.1"),
                                 ("dc9-spine-01", "spine", DST)):
            s.add(m.Device(name=name, role=role, site="dc9", loopback=loop))
        s.add(m.Interface(device="dc9-leaf-01", name="Ethernet1", ip="10.0.12.1/31"))
        s.add(m.Interface(device="dc9-spine-01", name="Ethernet7", ip="10.0.12.0/31"))
        for dev, port, ip, plen in (("dc9-leaf-01", "Ethernet1", "10.0.12.1", 31),
                                    ("dc9-spine-01", "Ethernet7", "10.0.12.0", 31),
                                    ("dc9-spine-01", "Ethernet7", SECONDARY, 24),
                                    ("dc9-spine-01", "Ethernet7", V6, 64),
                                    ("dc9-leaf-01", "Ethernet1", V6_SPINE, 127)):
            s.add(m.InterfaceAddress(device=dev, interface=port, ip=ip, prefixlen=plen))
        s.add(m.Link(a_device="dc9-leaf-01", a_interface="Ethernet1", b_device="dc9-spine-01",
                     b_interface="Ethernet7", kind="fabric"))
        s.commit()
    return engine


@pytest.mark.parametrize("ip, want", [
    ("10.0.12.0", ("dc9-spine-01", "Ethernet7")),  # the first address, as before
    (SECONDARY, ("dc9-spine-01", "Ethernet7")),  # a secondary IPv4 address
    (V6, ("dc9-spine-01", "Ethernet7")),  # an IPv6 one
    ("FC00:0:11::1", ("dc9-spine-01", "Ethernet7")),  # printed in upper case
    (V6_SPINE, ("dc9-leaf-01", "Ethernet1")),  # an address ending in ::
    (DST, ("dc9-spine-01", "Loopback0")),
    ("10.99.0.1", (None, None)),
])
def test_the_system_backend_places_a_hop_on_any_address_of_a_port(store: Engine, ip: str,
                                                                   want: tuple[str | None, ...]) -> None:
    assert InventoryMap(store).owner(ip) == want


@pytest.mark.parametrize("ip", [SECONDARY, V6])
def test_both_backends_agree_with_ip_owner(store: Engine, ip: str) -> None:
    owner = StoreInventory(store).ip_owner(ip)
    expected = (owner["device"], owner["interface"])
    assert InventoryMap(store).owner(ip) == expected == owner_of(store, ip)


def test_a_system_trace_through_a_secondary_address_names_the_device_and_its_way_out(
        store: Engine) -> None:
    hops = parse_output(f" 1  10.0.12.1  0.20 ms\n 2  {SECONDARY}  0.31 ms\n 3  {DST}  0.40 ms\n")
    rows = flow_rows(Flow(FlowSpec(dst=DST, sport=33434), hops), "10.0.12.1", DST,
                     InventoryMap(store))
    assert [(r["device"], r["interface"], r["status"]) for r in rows] == [
        ("dc9-leaf-01", "Ethernet1", "ok"), ("dc9-spine-01", "Ethernet7", "ok"),
        ("dc9-spine-01", "Loopback0", "reached")]
    assert rows[0]["out_interface"] == "Ethernet1"  # the link to the spine, found by its name


def test_a_device_side_trace_over_ipv6_and_a_secondary_names_each_hop(store: Engine) -> None:
    def probe(ip: str) -> dict[str, object]:
        return {"probes": {1: {"ip_address": ip, "rtt": 1.0}, 2: {"ip_address": ip, "rtt": 2.0}}}

    trace = trace_row(store, "dc9-leaf-01", DST, {"1": probe(V6), "2": probe(SECONDARY),
                                                  "3": probe(DST)})
    assert [(h["device"], h["interface"]) for h in trace["hops"]] == [
        ("dc9-spine-01", "Ethernet7"), ("dc9-spine-01", "Ethernet7"), ("dc9-spine-01", None)]
    assert trace["path_devices"] == ["dc9-leaf-01", "dc9-spine-01", "dc9-spine-01", "dc9-spine-01"]
    assert trace["reached"] is True
