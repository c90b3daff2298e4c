"""SNMPv1/v2c notifications straight from their BER bytes (X.690), without pysnmp's engine.

pysnmp's notification receiver builds a pyasn1 object for every tag of every message and runs
each one through message processing, the community table and access control: about a
millisecond a trap on this machine. A trap is a handful of TLVs, so this module reads them
with slices and `int.from_bytes` (the lean decoder x690 or python-asn1 would be, without a new
dependency): `peek` reads the header the receiving path needs (version, community, PDU type)
and `decode` the varbinds, behind the spool, as (OID, text) pairs worded as pysnmp prints them.

SNMPv1 Trap-PDUs are translated as RFC 3584 3.1 says (pysnmp does the same): sysUpTime.0 and
snmpTrapOID.0 first, then snmpTrapAddress.0 and snmpTrapEnterprise.0 — but not
snmpTrapCommunity.0, which pysnmp added with the community in clear: the community is a secret.
An InformRequest is answered by `inform_response`: the same message with the Response tag.
What is kept of a message (`without_community`) is its version and PDU: the community is checked
on receipt and never reaches the spool."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

V1_TRAP, INFORM, V2_TRAP, RESPONSE = 0xA4, 0xA6, 0xA7, 0xA2
NOTIFICATIONS = frozenset({V1_TRAP, INFORM, V2_TRAP})
SYS_UPTIME, SNMP_TRAP_OID = "1.3.6.1.2.1.1.3.0", "1.3.6.1.6.3.1.1.4.1.0"
TRAP_ADDRESS, TRAP_ENTERPRISE = "1.3.6.1.6.3.18.1.3.0", "1.3.6.1.6.3.1.1.4.3.0"
GENERIC_TRAPS = "1.3.6.1.6.3.1.1.5."  # coldStart .1 ... egpNeighborLoss .6 (generic-trap + 1)
_UNSIGNED = frozenset({0x41, 0x42, 0x43, 0x46})  # Counter32, Gauge32, TimeTicks, Counter64
_EXCEPTIONS = {0x80: "No Such Object currently exists at this OID",
               0x81: "No Such Instance currently exists at this OID",
               0x82: "No more variables left in this MIB View"}


class BerError(ValueError):
    """Not a well-formed SNMPv1/v2c notification."""


@dataclass(frozen=True)
class Header:
    version: int  # 0: SNMPv1, 1: SNMPv2c
    community: bytes
    pdu: int  # the PDU's tag (V1_TRAP, V2_TRAP, INFORM, ...)
    at: int  # where the PDU's tag is
    start: int  # where the PDU's own contents begin
    end: int


@dataclass(frozen=True)
class Notification:
    version: int
    pdu: int
    request_id: int | None  # None for an SNMPv1 trap
    varbinds: list[tuple[str, str]]


def _tlv(data: bytes, pos: int, end: int) -> tuple[int, int, int]:
    """(tag, start of the value, end of the value) of the TLV at `pos`."""
    if pos + 2 > end:
        raise BerError("truncated")
    tag, first = data[pos], data[pos + 1]
    pos += 2
    if first & 0x80:
        n = first & 0x7F
        if n == 0 or n > 4 or pos + n > end:  # indefinite lengths are not SNMP
            raise BerError("bad length")
        first, pos = int.from_bytes(data[pos:pos + n], "big"), pos + n
    if pos + first > end:
        raise BerError("truncated")
    return tag, pos, pos + first


def _int(data: bytes, pos: int, end: int, tag: int = 0x02) -> tuple[int, int]:
    got, start, stop = _tlv(data, pos, end)
    if got != tag:
        raise BerError(f"expected tag {tag:#x}, got {got:#x}")
    return int.from_bytes(data[start:stop], "big", signed=True), stop


def oid_text(raw: bytes) -> str:
    """An OBJECT IDENTIFIER's contents as dotted text; an OID of a usual length is cached."""
    return _oid_text(raw) if len(raw) <= 64 else _oid_text.__wrapped__(raw)


@lru_cache(maxsize=4096)  # the key's size bounded by oid_text: a sender's OIDs may be any length
def _oid_text(raw: bytes) -> str:
    """An OBJECT IDENTIFIER's contents as dotted text. Cached (a pure function of the bytes):
    a storm's traps repeat the same few OIDs (sysUpTime, snmpTrapOID, linkDown, ifDescr's
    column), and this loop over their bytes was a third of a trap's decoding."""
    if not raw:
        raise BerError("empty OID")
    arcs: list[int] = []
    value = 0
    for byte in raw:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            arcs.append(value)
            value = 0
    if raw[-1] & 0x80:
        raise BerError("unterminated OID arc")
    first = min(arcs[0] // 40, 2)
    return ".".join(map(str, (first, arcs[0] - 40 * first, *arcs[1:])))


def _octets(raw: bytes) -> str:
    """An OCTET STRING as pysnmp's text: UTF-8 when it is, else hex (0x...)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + raw.hex()


def value_text(tag: int, raw: bytes) -> str:
    """A varbind's value as text, worded as pysnmp's prettyPrint (addresses dotted)."""
    if tag in (0x04, 0x44):  # OCTET STRING, Opaque
        return _octets(raw)
    if tag == 0x02:
        return str(int.from_bytes(raw, "big", signed=True))
    if tag in _UNSIGNED:
        return str(int.from_bytes(raw, "big"))
    if tag == 0x06:
        return oid_text(raw)
    if tag == 0x40:  # IpAddress
        return ".".join(map(str, raw)) if len(raw) == 4 else "0x" + raw.hex()
    if tag == 0x05:
        return ""
    if tag in _EXCEPTIONS:
        return _EXCEPTIONS[tag]
    return "0x" + raw.hex()


def peek(data: bytes) -> Header:
    """The message's version, community and PDU type: what the receiving path checks."""
    tag, pos, end = _tlv(data, 0, len(data))
    if tag != 0x30:
        raise BerError("not a SEQUENCE")
    version, pos = _int(data, pos, end)
    tag, start, stop = _tlv(data, pos, end)
    if tag != 0x04 or version not in (0, 1):
        raise BerError("not SNMPv1/v2c")
    pdu, pdu_start, pdu_end = _tlv(data, stop, end)
    return Header(version, bytes(data[start:stop]), pdu, stop, pdu_start, pdu_end)


def _varbinds(data: bytes, pos: int, end: int) -> list[tuple[str, str]]:
    tag, pos, end = _tlv(data, pos, end)
    if tag != 0x30:
        raise BerError("varbinds are not a SEQUENCE")
    out: list[tuple[str, str]] = []
    while pos < end:
        tag, start, stop = _tlv(data, pos, end)
        if tag != 0x30:
            raise BerError("a varbind is not a SEQUENCE")
        tag, o_start, o_stop = _tlv(data, start, stop)
        if tag != 0x06:
            raise BerError("a varbind's name is not an OID")
        v_tag, v_start, v_stop = _tlv(data, o_stop, stop)
        out.append((oid_text(data[o_start:o_stop]), value_text(v_tag, data[v_start:v_stop])))
        pos = stop
    return out


def _v1(data: bytes, head: Header) -> Notification:
    """An SNMPv1 Trap-PDU translated to SNMPv2 varbinds (RFC 3584 3.1), community left out."""
    tag, start, pos = _tlv(data, head.start, head.end)
    if tag != 0x06:
        raise BerError("no enterprise OID")
    enterprise = oid_text(data[start:pos])
    tag, start, pos = _tlv(data, pos, head.end)
    agent = value_text(0x40, data[start:pos])
    generic, pos = _int(data, pos, head.end)
    specific, pos = _int(data, pos, head.end)
    tag, start, pos = _tlv(data, pos, head.end)
    stamp = str(int.from_bytes(data[start:pos], "big"))
    trap_oid = f"{enterprise}.0.{specific}" if generic == 6 else f"{GENERIC_TRAPS}{generic + 1}"
    lead = [(SYS_UPTIME, stamp), (SNMP_TRAP_OID, trap_oid), (TRAP_ADDRESS, agent),
            (TRAP_ENTERPRISE, enterprise)]
    return Notification(0, V1_TRAP, None, lead + _varbinds(data, pos, head.end))


def decode(data: bytes, head: Header | None = None) -> Notification:
    """The notification's varbinds; BerError when the bytes are not one."""
    head = head or peek(data)
    if head.pdu == V1_TRAP and head.version == 0:
        return _v1(data, head)
    if head.pdu not in (V2_TRAP, INFORM) or head.version != 1:
        raise BerError(f"PDU {head.pdu:#x} is not a notification")
    request_id, pos = _int(data, head.start, head.end)
    _status, pos = _int(data, pos, head.end)
    _index, pos = _int(data, pos, head.end)
    return Notification(1, head.pdu, request_id, _varbinds(data, pos, head.end))


def inform_response(data: bytes, head: Header) -> bytes:
    """The Response to an InformRequest: the same message (request-id, error-status and index
    0, the varbinds) under the Response tag (RFC 3416 4.2.7)."""
    return data[:head.at] + bytes([RESPONSE]) + data[head.at + 1:]


def without_community(data: bytes, head: Header) -> bytes:
    """The message as kept: one byte of version, then the PDU, community left out."""
    return bytes([head.version]) + data[head.at:head.end]


def decode_kept(kept: bytes) -> Notification:
    """A notification from `without_community`'s bytes."""
    if not kept:
        raise BerError("empty")
    pdu, start, end = _tlv(kept, 1, len(kept))
    return decode(kept, Header(kept[0], b"", pdu, 1, start, end))
