"""SNMP trap ingest: real traps sent by pysnmp (send_notification, and a BER-encoded SNMPv2-Trap
retransmitted byte for byte) to the receiver on loopback."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from pyasn1.codec.ber import encoder
from pysnmp.proto import api
from pysnmp.proto.rfc1902 import Integer32, IpAddress, ObjectName, OctetString, TimeTicks
from sqlalchemy import Engine

from netopsai.backends.traps.receiver import trap_event
from tests import ingest_helpers as ih

LINK_DOWN, LINK_UP = "1.3.6.1.6.3.1.1.5.3", "1.3.6.1.6.3.1.1.5.4"
COLD_START, WARM_START = "1.3.6.1.6.3.1.1.5.1", "1.3.6.1.6.3.1.1.5.2"
BGP_BACKWARD, BGP_ESTABLISHED = "1.3.6.1.2.1.15.0.2", "1.3.6.1.2.1.15.0.1"
SYS_NAME = "1.3.6.1.2.1.1.5.0"
PEER = "192.0.2.77"


def _link(index: int, descr: str, sys_name: str | None = None) -> list[tuple[str, object]]:
    vbs: list[tuple[str, object]] = [(f"1.3.6.1.2.1.2.2.1.1.{index}", Integer32(index)),
                                     (f"1.3.6.1.2.1.2.2.1.2.{index}", OctetString(descr))]
    return vbs + ([(SYS_NAME, OctetString(sys_name))] if sys_name else [])


def _bgp(state: int) -> list[tuple[str, object]]:
    return [(f"1.3.6.1.2.1.15.3.1.7.{PEER}", IpAddress(PEER)),
            (f"1.3.6.1.2.1.15.3.1.14.{PEER}", OctetString(b"\x04\x00")),
            (f"1.3.6.1.2.1.15.3.1.2.{PEER}", Integer32(state))]


@pytest.mark.integration
def test_link_down_up_and_device_naming(make_lab: Callable[..., Engine],
                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    engine, url = ih.lab_with_senders(make_lab)
    since = datetime.now(UTC)
    with ih.running(url) as ingest:
        assert ingest.traps is not None
        port = ingest.traps.port
        # sysName given, unknown to the inventory: the alarm carries the sysName
        ih.send_trap(port, LINK_DOWN, _link(3, "GigabitEthernet0/3", "edge-r9"))
        ih.send_trap(port, LINK_UP, _link(3, "GigabitEthernet0/3", "edge-r9"))
        # no sysName, from the DCI router's address: the inventory names it, and its link
        ih.send_trap(port, LINK_DOWN, _link(20, "HundredGigE0/0/0/20"), source=ih.SENDERS["dc1-dci-01"])
        # no sysName, from an address nobody owns: the address is the name
        ih.send_trap(port, LINK_DOWN, _link(7, "Ethernet7"), source="127.0.0.99")
        # a sysName in another case and with a domain still names the inventory's device
        ih.send_trap(port, LINK_DOWN, _link(8, "Ethernet8", "DC1-LEAF-01.example.net"))
        ih.settle(ingest, 5)
    got = [(a.device, a.kind, a.interface, a.category, a.state) for a in ih.alarms(engine, "trap")]
    assert got == [("edge-r9", "LINK_DOWN", "GigabitEthernet0/3", "link", "closed"),
                   ("dc1-dci-01", "LINK_DOWN", "HundredGigE0/0/0/20", "dci", "open"),
                   ("127.0.0.99", "LINK_DOWN", "Ethernet7", "link", "open"),
                   ("dc1-leaf-01", "LINK_DOWN", "Ethernet8", "link", "open")]
    first = ih.alarms(engine, "trap")[0]
    assert first.cleared_at is not None and first.cleared_at >= first.raised_at
    assert [r.host for r in ih.raw_events(engine, "trap")] == [
        "127.0.0.1", "127.0.0.1", ih.SENDERS["dc1-dci-01"], "127.0.0.99", "127.0.0.1"]
    ev = ih.alarms_tool(engine, since, category="dci", state="open")
    assert not ev.errors
    rows = [r for r in ev.rows if r["kind"] == "LINK_DOWN" and r["device"] == "dc1-dci-01"]
    assert len(rows) == 1 and rows[0]["peer"] == "dc2-dci-01"
    assert ih.COMMUNITY not in caplog.text


@pytest.mark.integration
def test_bgp_backward_transition_then_established(make_lab: Callable[..., Engine]) -> None:
    engine, url = ih.lab_with_senders(make_lab)
    since = datetime.now(UTC)
    with ih.running(url) as ingest:
        assert ingest.traps is not None
        ih.send_trap(ingest.traps.port, BGP_BACKWARD, _bgp(1), source=ih.SENDERS["dc1-leaf-02"])
        ih.settle(ingest, 1)
        assert [(a.device, a.kind, a.state) for a in ih.alarms(engine, "trap")] == [
            ("dc1-leaf-02", "BGP_DOWN", "open")]
        ev = ih.alarms_tool(engine, since, category="bgp", devices=["dc1-leaf-02"], state="open")
        assert [r["kind"] for r in ev.rows] == ["BGP_DOWN"] and PEER in ev.rows[0]["message"]
        ih.send_trap(ingest.traps.port, BGP_ESTABLISHED, _bgp(6), source=ih.SENDERS["dc1-leaf-02"])
        ih.settle(ingest, 2)
    found = ih.alarms(engine, "trap")
    assert [(a.kind, a.state) for a in found] == [("BGP_DOWN", "closed")]
    assert [r.key for r in ih.raw_events(engine, "trap")] == [f"BGP_DOWN|dc1-leaf-02|{PEER}"] * 2


@pytest.mark.integration
def test_cold_start_and_unknown_traps(make_lab: Callable[..., Engine]) -> None:
    engine, url = ih.lab_with_senders(make_lab)
    with ih.running(url) as ingest:
        assert ingest.traps is not None
        ih.send_trap(ingest.traps.port, COLD_START, [], source=ih.SENDERS["dc1-leaf-01"])
        ih.send_trap(ingest.traps.port, "1.3.6.1.4.1.99999.0.1", [("1.3.6.1.4.1.99999.1.1.0",
                                                                OctetString("fan tray 2 failed"))])
        ih.send_trap(ingest.traps.port, WARM_START, [], source=ih.SENDERS["dc1-leaf-01"])
        ih.settle(ingest, 3)
    # a restart is over when its trap arrives: each one a closed alarm of its own
    assert [(a.device, a.kind, a.category, a.state) for a in ih.alarms(engine, "trap")] == [
        ("dc1-leaf-01", "DEVICE_REBOOT", "device", "closed")] * 2
    raw = ih.raw_events(engine, "trap")
    assert [r.kind for r in raw] == ["DEVICE_REBOOT", None, "DEVICE_REBOOT"]
    assert "fan tray 2 failed" in raw[1].message and raw[1].alarm_id is None
    assert raw[0].message.startswith("coldStart") and raw[2].message.startswith("warmStart")


@pytest.mark.integration
def test_wrong_community_is_not_accepted(make_lab: Callable[..., Engine],
                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    engine, url = ih.lab_with_senders(make_lab)
    with ih.running(url) as ingest:
        assert ingest.traps is not None
        ih.send_trap(ingest.traps.port, LINK_DOWN, _link(1, "Ethernet1", "intruder"),
                  community="guess")
        ih.send_trap(ingest.traps.port, LINK_DOWN, _link(2, "Ethernet2", "edge-r9"))
        ih.settle(ingest, 1)  # sent after the bad one: once it is in, the bad one was refused
        assert ingest.traps.received == 1
    assert [a.device for a in ih.alarms(engine, "trap")] == ["edge-r9"]
    assert ih.COMMUNITY not in caplog.text
    assert all(ih.COMMUNITY not in r.message for r in ih.raw_events(engine))


@pytest.mark.integration
def test_v1_trap_and_v2c_inform(make_lab: Callable[..., Engine]) -> None:
    engine, url = ih.lab_with_senders(make_lab)
    with ih.running(url) as ingest:
        assert ingest.traps is not None
        ih.send_trap(ingest.traps.port, LINK_DOWN, _link(4, "Ethernet4", "edge-v1"), version=1)
        # an inform waits for the receiver's response: send_trap asserts it came
        ih.send_trap(ingest.traps.port, LINK_DOWN, _link(5, "Ethernet5", "edge-inform"),
                  notify_type="inform")
        ih.settle(ingest, 2)
    assert [(a.device, a.interface, a.state) for a in ih.alarms(engine, "trap")] == [
        ("edge-v1", "Ethernet4", "open"), ("edge-inform", "Ethernet5", "open")]


def _v2c_trap_bytes(request_id: int, uptime: int) -> bytes:
    """One SNMPv2-Trap message, BER-encoded, as an agent puts it on the wire."""
    proto = api.PROTOCOL_MODULES[api.SNMP_VERSION_2C]
    pdu = proto.SNMPv2TrapPDU()
    proto.apiTrapPDU.set_defaults(pdu)
    proto.apiPDU.set_request_id(pdu, request_id)
    proto.apiPDU.set_varbinds(pdu, [
        (ObjectName("1.3.6.1.2.1.1.3.0"), TimeTicks(uptime)),
        (ObjectName("1.3.6.1.6.3.1.1.4.1.0"), ObjectName(LINK_DOWN)),
        (ObjectName("1.3.6.1.2.1.2.2.1.1.5"), Integer32(5)),
        (ObjectName("1.3.6.1.2.1.2.2.1.2.5"), OctetString("Ethernet5")),
        (ObjectName(SYS_NAME), OctetString("edge-r5"))])
    msg = proto.Message()
    proto.apiMessage.set_defaults(msg)
    proto.apiMessage.set_community(msg, ih.COMMUNITY)
    proto.apiMessage.set_pdu(msg, pdu)
    return bytes(encoder.encode(msg))


@pytest.mark.integration
def test_retransmitted_trap_is_one_event(make_lab: Callable[..., Engine]) -> None:
    engine, url = ih.lab_with_senders(make_lab)
    first, later = _v2c_trap_bytes(4711, 1000), _v2c_trap_bytes(4712, 1500)
    with ih.running(url) as ingest:
        assert ingest.traps is not None
        for data in (first, first, first, later):  # a later linkDown: still the same outage
            ih.send_udp(ingest.traps.port, data)
        ih.settle(ingest, 4)
    raw = ih.raw_events(engine, "trap")
    assert [r.count for r in raw] == [3, 1]
    found = ih.alarms(engine, "trap")
    assert [(a.device, a.interface, a.state) for a in found] == [("edge-r5", "Ethernet5", "open")]
    assert {r.alarm_id for r in raw} == {found[0].id}


def test_trap_event_mapping() -> None:
    ev = trap_event([("1.3.6.1.6.3.1.1.4.1.0", LINK_DOWN), ("1.3.6.1.2.1.31.1.1.1.1.4", "Gi0/4"),
                     ("1.3.6.1.2.1.2.2.1.1.4", "4")], "127.0.0.1")
    assert (ev.kind, ev.action, ev.interface, ev.name) == ("LINK_DOWN", "raise", "Gi0/4", None)
    cisco = trap_event([("1.3.6.1.6.3.1.1.4.1.0", "1.3.6.1.4.1.9.9.187.0.8"),
                        ("1.3.6.1.4.1.9.9.187.1.2.5.1.3.1.4.192.0.2.9", "1")], "127.0.0.1")
    assert (cisco.kind, cisco.action, cisco.subject) == ("BGP_DOWN", "raise", "192.0.2.9")
    index_only = trap_event([("1.3.6.1.6.3.1.1.4.1.0", LINK_UP), ("1.3.6.1.2.1.2.2.1.1.9", "9")],
                            "127.0.0.1")
    assert (index_only.action, index_only.interface) == ("clear", "ifIndex 9")
