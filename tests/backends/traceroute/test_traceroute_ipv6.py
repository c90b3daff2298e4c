"""IPv6 hops from the system traceroute (`traceroute -6` / traceroute6): the parser read only
IPv4 tokens, so an IPv6 path had no hop with an address and no device on it.

The line shapes below follow output pasted in public issues (addresses swapped for the
documentation range 2001:db8::/32 and fc00::/7):
- iputils/iputils#81 (traceroute6): ` 1  2604:a880:…:fff1 (2604:a880:…:fff1)  0.561 ms  1.541 ms
  3.577 ms`: the address as the name, then again in brackets;
- nmap/nmap#3210 (`traceroute -I` to an IPv6 host): ` 2  stricker.bandura.dn42
  (fd04:234e:fc31::8)  186.036 ms * *`: a name, the address in brackets, lost probes;
- NICMx/Jool#355 (traceroute6): ` 2  64:ff9b::6816:3069 (64:ff9b::6816:3069)  2.900 ms …`.
The `-n` form (what run.py asks for) prints the bare address, as in the IPv4 tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.traceroute.map import InventoryMap
from netopsai.backends.traceroute.parse import parse_hop, parse_output
from netopsai.backends.traceroute.run import Flow, FlowSpec
from netopsai.backends.traceroute.stop import flow_rows
from netopsai.store import tables as m
from netopsai.store.engine import create_all
from tests.store_helpers import empty_store

LEAF_V6, SPINE_V6, DST6 = "2001:db8:12::1", "2001:db8:12::", "2001:db8:99::9"


@pytest.mark.parametrize("line, ip, rtt, loss", [
    # traceroute6 without -n (iputils#81): the address, then the same in brackets
    (" 1  2001:db8:0:1010:ffff:ffff:ffff:fff1 (2001:db8:0:1010:ffff:ffff:ffff:fff1)  0.561 ms  "
     "1.541 ms  3.577 ms", "2001:db8:0:1010:ffff:ffff:ffff:fff1", 0.561, 0.0),
    # a name, the address in brackets, two probes lost (nmap#3210)
    (" 2  stricker.example.net (fd04:234e:fc31::8)  186.036 ms * *", "fd04:234e:fc31::8", 186.036,
     66.7),
    # an IPv4-embedding prefix (Jool#355)
    (" 2  64:ff9b::6816:3069 (64:ff9b::6816:3069)  2.900 ms  2.862 ms  2.950 ms",
     "64:ff9b::6816:3069", 2.862, 0.0),
    # -n, as run.py asks: the bare address
    (" 1  2001:db8::1  0.5 ms  0.4 ms  0.45 ms", "2001:db8::1", 0.4, 0.0),
    # a link-local hop with its zone: the zone is left off (the inventory holds bare addresses)
    (" 1  fe80::1%eth0  0.512 ms  0.401 ms  0.388 ms", "fe80::1", 0.388, 0.0),
    # an address ending in ::
    (" 3  fc00:0:11::  1.2 ms  1.1 ms  1.3 ms", "fc00:0:11::", 1.1, 0.0),
])
def test_an_ipv6_hop_line_yields_its_address(line: str, ip: str, rtt: float, loss: float) -> None:
    hop = parse_hop(line)
    assert hop is not None
    assert (hop.ip, hop.rtt_ms, hop.loss_pct) == (ip, rtt, loss)


def test_an_ipv6_stop_code_and_a_change_of_address_between_probes() -> None:
    hop = parse_hop(" 4  2001:db8::4  1.0 ms !N  2001:db8::5  1.1 ms !N  *")
    assert hop is not None
    assert [p.ip for p in hop.probes] == ["2001:db8::4", "2001:db8::5", None]
    assert hop.code == "!N"


@pytest.mark.parametrize("tok", ["12:34:56", "dead:beef", "2001:db8::1::2", "(link-local):"])
def test_a_colon_token_that_is_no_address_is_not_a_hop_address(tok: str) -> None:
    hop = parse_hop(f" 5  {tok}  0.7 ms")
    assert hop is not None and hop.ip is None


def test_ipv4_lines_read_as_before() -> None:
    hops = parse_output("traceroute to 10.0.0.9 (10.0.0.9), 30 hops max, 60 byte packets\n"
                        " 1  10.0.0.1  0.2 ms  0.3 ms\n 2  * 10.0.0.9  0.5 ms !X\n")
    assert [(h.hop, h.ip, h.rtt_ms, h.code, h.loss_pct) for h in hops] == [
        (1, "10.0.0.1", 0.2, None, 0.0), (2, "10.0.0.9", 0.5, "!X", 50.0)]


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    """A leaf and a spine joined by a link whose ports hold IPv6 addresses only in
    interfaceaddress (as discovery stores them)."""
    engine = empty_store(tmp_path)
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Device(name="dc9-leaf-01", role="leaf", site="dc9", loopback="10.254.9.1"))
        s.add(m.Device(name="dc9-spine-01", role="spine", site="dc9", loopback="10.254.9.9"))
        s.add(m.Interface(device="dc9-leaf-01", name="Ethernet1", ip="10.0.12.1/31"))
        s.add(m.Interface(device="dc9-spine-01", name="Ethernet7", ip="10.0.12.0/31"))
        s.add(m.Interface(device="dc9-spine-01", name="Loopback6"))
        for dev, port, ip, plen in (("dc9-leaf-01", "Ethernet1", LEAF_V6, 127),
                                    ("dc9-spine-01", "Ethernet7", SPINE_V6, 127),
                                    ("dc9-spine-01", "Loopback6", DST6, 128)):
            s.add(m.InterfaceAddress(device=dev, interface=port, ip=ip, prefixlen=plen))
        s.add(m.Link(a_device="dc9-leaf-01", a_interface="Ethernet1", b_device="dc9-spine-01",
                     b_interface="Ethernet7", kind="fabric"))
        s.commit()
    return engine


def test_an_ipv6_trace_places_each_hop_on_its_device_and_port(store: Engine) -> None:
    out = (f"traceroute to {DST6} ({DST6}), 30 hops max, 80 byte packets\n"
           f" 1  {LEAF_V6} ({LEAF_V6})  0.201 ms  0.180 ms  0.176 ms\n"
           f" 2  {SPINE_V6}%eth1  0.310 ms  0.290 ms  0.301 ms\n"
           f" 3  {DST6} ({DST6})  0.402 ms  0.398 ms  0.377 ms\n")
    rows = flow_rows(Flow(FlowSpec(dst=DST6, sport=33434), parse_output(out)), LEAF_V6, DST6,
                     InventoryMap(store))
    assert [(r["ip"], r["device"], r["interface"], r["status"]) for r in rows] == [
        (LEAF_V6, "dc9-leaf-01", "Ethernet1", "ok"),
        (SPINE_V6, "dc9-spine-01", "Ethernet7", "ok"),
        (DST6, "dc9-spine-01", "Loopback6", "reached")]
    assert rows[0]["out_interface"] == "Ethernet1"
