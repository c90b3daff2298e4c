"""BGP peers at IPv6 addresses in every form the vendors print (issue 24 item 5): an address
ending in `::` (fc00:0:11::), a short one (fc00::1), a link-local one with its zone
(fe80::1%Ethernet1) and an IPv4-mapped one (::ffff:10.0.0.1). The rules' address pattern only
finds a candidate; the ipaddress module judges it, so `fc00:0:11::` is a peer (it used to be
no subject at all, so no alarm) and a time or 999.1.1.1 is not."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.backends.syslog.files import load_files
from netopsai.backends.syslog.rules import classify
from netopsai.common.timewin import Window
from netopsai.store.events import StoreEvents
from netopsai.store.inventory_import import import_files
from tests.paths import DATA
from tests.store_helpers import empty_store

# as written in the line, and the peer the alarm keeps (the zone left out, as the rules that
# skip a zone after the peer always stored it)
PEERS = [("fc00:0:11::", "fc00:0:11::"), ("FC00:0:11::", "FC00:0:11::"), ("fc00::1", "fc00::1"),
         ("fe80::1%Ethernet1", "fe80::1"), ("::ffff:10.0.0.1", "::ffff:10.0.0.1")]
# (down, up) per NOS, in the forms of tests/data/syslog/vendors/ (VRFs, AS numbers, reasons)
LINES = {
    "cisco-ios": ("%BGP-5-ADJCHANGE: neighbor {p} vpn vrf X Down BGP Notification sent",
                  "%BGP-5-ADJCHANGE: neighbor {p} vpn vrf X Up"),
    "cisco-iosxr": ("%ROUTING-BGP-5-ADJCHANGE : neighbor {p} Down - BGP Notification sent, "
                    "hold time expired (VRF: X) (AS: 65001)",
                    "%ROUTING-BGP-5-ADJCHANGE : neighbor {p} Up (VRF: X) (AS: 65001)"),
    "cisco-nxos": ("%BGP-5-ADJCHANGE:  bgp-65001 [4021] (X) neighbor {p} Down - holdtimer expired "
                   "error", "%BGP-5-ADJCHANGE:  bgp-65001 [4021] (X) neighbor {p} Up"),
    "arista-eos": ("%BGP-5-ADJCHANGE: peer {p} (VRF X AS 65001) old state Established event Stop "
                   "new state Idle",
                   "%BGP-5-ADJCHANGE: peer {p} (VRF X AS 65001) old state OpenConfirm event "
                   "RecvKeepAlive new state Established"),
    "linux-frr": ("%ADJCHANGE: neighbor {p}(spine1) in vrf X Down Peer closed the session",
                  "%ADJCHANGE: neighbor {p}(spine1) in vrf X Up"),
}


@pytest.mark.parametrize("family", sorted(LINES))
def test_a_v6_peer_raises_and_clears_its_session_and_is_named(family: str) -> None:
    down, up = LINES[family]
    for written, peer in PEERS:
        raised, cleared = classify(down.format(p=written)), classify(up.format(p=written))
        assert raised is not None and cleared is not None, (family, written)
        assert (raised.kind, raised.action, raised.peer) == ("BGP_DOWN", "raise", peer), written
        assert (cleared.kind, cleared.action, cleared.peer) == ("BGP_DOWN", "clear", peer), written
        assert raised.subject == cleared.subject == peer  # the clear closes that raise
        assert raised.rule.startswith(family + "/")


@pytest.mark.parametrize("text", [
    "%BGP-5-ADJCHANGE: neighbor 10:20:30 Down",  # a time, not an address
    "%BGP-5-ADJCHANGE: neighbor 999.1.1.1 Down",
    "%ROUTING-BGP-5-ADJCHANGE : neighbor 00:1b:54:aa:bb:cc Down - hold time expired",  # a MAC
])
def test_a_candidate_that_is_no_address_is_never_a_peer(text: str) -> None:
    found = classify(text)
    assert found is None or found.peer is None


def test_punctuation_after_an_address_stays_out_of_it() -> None:
    # SR OS puts a colon right after the peer; an address ending in `::` then reads `:::`
    sros = ("BGP-MINOR-tBgpPeerNgBackwardTransition-2002 [Peer 1: {p}]:  VR 1: Group X: Peer "
            "{p}: moved from higher state ESTABLISHED to lower state IDLE due to event HOLD TIME")
    for peer in ("fc00:0:11::", "2001:db8::1"):
        found = classify(sros.format(p=peer))
        assert found is not None and (found.action, found.peer) == ("raise", peer)


V6 = """address,vrf,tenant,status,role,device,interface,is_primary,dns_name,description
fc00:0:11::/127,,AI Fabric,active,,dc1-spine-01,Ethernet1,false,,
fc00:0:11::1/127,,AI Fabric,active,,dc1-leaf-01,Ethernet49,false,,
"""
NETBOX = DATA / "netbox"
T0 = datetime(2025, 11, 4, 19, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    (tmp_path / "v6.csv").write_text(V6)
    engine = empty_store(tmp_path)
    import_files(engine, [*sorted(NETBOX.glob("*.csv")), tmp_path / "v6.csv"])
    return engine


@pytest.mark.parametrize("family", sorted(LINES))
def test_the_session_alarm_opens_closes_and_names_the_peer_device(store: Engine, tmp_path: Path,
                                                                  family: str) -> None:
    down, up = LINES[family]
    stamps = (T0, T0 + timedelta(minutes=3))
    path = tmp_path / "leaf1.log"
    path.write_text("".join(f"<189>{at:%b %d %H:%M:%S} dc1-leaf-01 bgpd: {text.format(p='fc00:0:11::')}\n"
                            for at, text in zip(stamps, (down, up), strict=True)))
    later = (T0 + timedelta(days=1)).timestamp()
    os.utime(path, (later, later))
    load_files(str(store.url), [path], device="dc1-leaf-01")
    rows = StoreEvents(store).alarms("bgp", "any", ["dc1-leaf-01"], None,
                                     Window(start=T0 - timedelta(hours=1), end=T0 + timedelta(hours=1)))
    assert [(r["kind"], r["state"], r["peer_address"], r["peer"]) for r in rows] == [
        ("BGP_DOWN", "closed", "fc00:0:11::", "dc1-spine-01")]
    assert rows[0]["raised_at"].startswith("2025-11-04T19:00:00")
    assert str(rows[0]["cleared_at"]).startswith("2025-11-04T19:03:00")
