"""The lean trap reader (netopsai.backends.traps.ber) against pysnmp's own decoding: the same
(OID, text) pairs for every value type an agent sends, SNMPv1 traps translated as RFC 3584 says
without the community, and nothing but BerError out of bytes that are no trap."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyasn1.codec.ber import decoder, encoder
from pysnmp.proto import api, rfc1902
from pysnmp.proto.rfc1902 import (
    Counter32,
    Counter64,
    Gauge32,
    Integer32,
    IpAddress,
    ObjectName,
    OctetString,
    TimeTicks,
)

from netopsai.backends.traps import ber
from netopsai.backends.traps.receiver import parser

V2 = api.PROTOCOL_MODULES[api.SNMP_VERSION_2C]
V1 = api.PROTOCOL_MODULES[api.SNMP_VERSION_1]
SECRET = "s3cret-community"
LINK_DOWN = "1.3.6.1.6.3.1.1.5.3"


def _message(proto: Any, pdu: Any, community: str = SECRET) -> bytes:
    msg = proto.Message()
    proto.apiMessage.set_defaults(msg)
    proto.apiMessage.set_community(msg, community)
    proto.apiMessage.set_pdu(msg, pdu)
    return bytes(encoder.encode(msg))


def _v2_trap(varbinds: list[tuple[str, Any]], inform: bool = False) -> bytes:
    pdu = V2.InformRequestPDU() if inform else V2.SNMPv2TrapPDU()
    V2.apiTrapPDU.set_defaults(pdu) if not inform else V2.apiPDU.set_defaults(pdu)
    V2.apiPDU.set_request_id(pdu, 4711)
    V2.apiPDU.set_varbinds(pdu, [(ObjectName(o), v) for o, v in varbinds])
    return _message(V2, pdu)


def _pysnmp_text(value: Any) -> str:
    """How the receiver worded a value when pysnmp decoded it (its former `_text`)."""
    if hasattr(value, "asOctets"):
        try:
            return str(value.asOctets().decode("utf-8"))
        except UnicodeDecodeError:
            return str(value.prettyPrint())
    return str(value.prettyPrint())


VALUES: list[tuple[str, Any]] = [
    ("1.3.6.1.2.1.1.3.0", TimeTicks(123456)),
    ("1.3.6.1.6.3.1.1.4.1.0", ObjectName(LINK_DOWN)),
    ("1.3.6.1.2.1.2.2.1.1.7", Integer32(-7)),
    ("1.3.6.1.2.1.2.2.1.2.7", OctetString("Ethernet7/1")),
    ("1.3.6.1.2.1.31.1.1.1.18.7", OctetString("uplink to spine-01 — dc1".encode())),  # UTF-8
    ("1.3.6.1.4.1.9.9.1.1", OctetString(b"\xff\x00\x10binary")),  # not UTF-8: hex
    ("1.3.6.1.4.1.9.9.1.2", OctetString("esc \x1b[2J inside")),  # made visible at the writer
    ("1.3.6.1.2.1.2.2.1.10.7", Counter32(4_294_967_295)),
    ("1.3.6.1.2.1.31.1.1.1.6.7", Counter64(2**64 - 1)),
    ("1.3.6.1.2.1.2.2.1.5.7", Gauge32(100_000_000)),
    ("1.3.6.1.2.1.1.2.0", ObjectName("1.3.6.1.4.1.30065.1.3011.7050")),
    ("1.3.6.1.4.1.9.9.1.3", rfc1902.Opaque(b"\x9f\x78\x04")),
]


def test_every_value_type_reads_as_pysnmp_worded_it() -> None:
    data = _v2_trap(VALUES)
    msg, _ = decoder.decode(data, asn1Spec=V2.Message())
    expected = [(str(o), _pysnmp_text(v)) for o, v in V2.apiPDU.get_varbinds(V2.apiMessage.get_pdu(msg))]
    head = ber.peek(data)
    assert (head.version, head.community, head.pdu) == (1, SECRET.encode(), ber.V2_TRAP)
    got = ber.decode(data)
    assert got.varbinds == expected and got.request_id == 4711
    assert ber.decode_kept(ber.without_community(data, head)) == got  # as spooled


def test_addresses_are_dotted_not_raw_octets() -> None:
    """pysnmp's text of an IpAddress held raw octets (127.0.0.1 as control characters)."""
    got = ber.decode(_v2_trap([("1.3.6.1.2.1.15.3.1.7.192.0.2.77", IpAddress("127.0.0.1"))]))
    assert got.varbinds == [("1.3.6.1.2.1.15.3.1.7.192.0.2.77", "127.0.0.1")]


def _v1_trap(generic: int, specific: int = 0) -> bytes:
    pdu = V1.TrapPDU()
    V1.apiTrapPDU.set_defaults(pdu)
    V1.apiTrapPDU.set_enterprise(pdu, (1, 3, 6, 1, 4, 1, 9, 1, 516))
    V1.apiTrapPDU.set_agent_address(pdu, "192.0.2.9")
    V1.apiTrapPDU.set_generic_trap(pdu, generic)
    V1.apiTrapPDU.set_specific_trap(pdu, specific)
    V1.apiTrapPDU.set_timestamp(pdu, 4242)
    V1.apiTrapPDU.set_varbinds(pdu, [(ObjectName("1.3.6.1.2.1.2.2.1.2.4"), OctetString("Ethernet4"))])
    return _message(V1, pdu)


def test_a_v1_trap_is_translated_without_its_community() -> None:
    got = ber.decode(_v1_trap(2)).varbinds  # generic 2: linkDown
    assert got[:2] == [(ber.SYS_UPTIME, "4242"), (ber.SNMP_TRAP_OID, LINK_DOWN)]
    assert (ber.TRAP_ADDRESS, "192.0.2.9") in got and (ber.TRAP_ENTERPRISE, "1.3.6.1.4.1.9.1.516") in got
    assert ("1.3.6.1.2.1.2.2.1.2.4", "Ethernet4") in got
    assert not any(SECRET in value for _, value in got)  # pysnmp added snmpTrapCommunity.0
    enterprise = dict(ber.decode(_v1_trap(6, 17)).varbinds)[ber.SNMP_TRAP_OID]
    assert enterprise == "1.3.6.1.4.1.9.1.516.0.17"
    kept = ber.without_community(_v1_trap(2), ber.peek(_v1_trap(2)))
    ev = parser()(kept, "192.0.2.9", datetime.now(UTC))
    assert (ev.kind, ev.action, ev.interface) == ("LINK_DOWN", "raise", "Ethernet4")
    assert SECRET not in ev.message and SECRET.encode() not in kept


def test_an_inform_is_answered_with_its_own_varbinds() -> None:
    data = _v2_trap(VALUES[:4], inform=True)
    head = ber.peek(data)
    assert head.pdu == ber.INFORM
    response, _ = decoder.decode(ber.inform_response(data, head), asn1Spec=V2.Message())
    pdu = V2.apiMessage.get_pdu(response)
    assert pdu.tagSet == V2.ResponsePDU.tagSet
    assert int(V2.apiPDU.get_request_id(pdu)) == 4711 and int(V2.apiPDU.get_error_status(pdu)) == 0
    assert len(V2.apiPDU.get_varbinds(pdu)) == 4


@pytest.mark.parametrize("cut", [1, 5, 12, 30, -1])
def test_truncated_messages_are_refused(cut: int) -> None:
    data = _v2_trap(VALUES[:4])
    with pytest.raises(ber.BerError):
        ber.decode(data[:cut])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_no_bytes_raise_anything_but_ber_error(data: bytes) -> None:
    with contextlib.suppress(ber.BerError):  # anything else fails the test
        ber.decode(data)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 400), st.binary(min_size=1, max_size=4))
def test_a_corrupted_trap_raises_only_ber_error(at: int, junk: bytes) -> None:
    data = bytearray(_v2_trap(VALUES))
    at %= len(data)
    data[at:at + len(junk)] = junk
    with contextlib.suppress(ber.BerError):  # anything else fails the test
        ber.decode(bytes(data))
