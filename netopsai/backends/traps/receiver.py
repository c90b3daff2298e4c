"""An SNMP trap receiver (SNMPv1/v2c traps and v2c informs): linkDown/linkUp (IF-MIB), BGP
backward transition and established (BGP4-MIB, and Cisco's CISCO-BGP4-MIB), coldStart and
warmStart become Events for the queued writer; other traps are kept as raw events. A sysName
in the trap names the device only when the trap comes from that device's address (or from a
relay in `relays`): netopsai.store.naming decides, as for syslog.

Receiving (netopsai.backends.udp) reads only a message's header (netopsai.backends.traps.ber):
a wrong community or a message that is no notification is refused there, an inform answered
once spooled; the varbinds are decoded behind the spool, by `parser`. The community is a
SecretStr compared on receipt only: it is never logged, spooled or stored."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import SecretStr

from netopsai.backends.traps import ber
from netopsai.backends.udp import Address, Datagrams, UdpIntake
from netopsai.store.apply import Event
from netopsai.store.naming import is_relay

log = logging.getLogger("netopsai.ingest")

SNMP_TRAP_OID = "1.3.6.1.6.3.1.1.4.1.0"
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
SYS_NAME = "1.3.6.1.2.1.1.5.0"
IF_DESCR, IF_NAME = "1.3.6.1.2.1.2.2.1.2.", "1.3.6.1.2.1.31.1.1.1.1."
IF_INDEX = "1.3.6.1.2.1.2.2.1.1."
BGP_PEER_ROW = "1.3.6.1.2.1.15.3.1."  # bgpPeerEntry: the peer's address is the row index
CBGP_PEER2_ROW = "1.3.6.1.4.1.9.9.187.1.2.5.1."  # cbgpPeer2Entry: index type.len.address
# trap OID -> (kind, action, category); a linkUp or an established clears its raise
TRAPS: dict[str, tuple[str, str, str]] = {
    "1.3.6.1.6.3.1.1.5.3": ("LINK_DOWN", "raise", "link"),
    "1.3.6.1.6.3.1.1.5.4": ("LINK_DOWN", "clear", "link"),
    "1.3.6.1.6.3.1.1.5.1": ("DEVICE_REBOOT", "raise", "device"),  # coldStart
    "1.3.6.1.6.3.1.1.5.2": ("DEVICE_REBOOT", "raise", "device"),  # warmStart
    "1.3.6.1.2.1.15.0.1": ("BGP_DOWN", "clear", "bgp"),  # bgpEstablishedNotification
    "1.3.6.1.2.1.15.0.2": ("BGP_DOWN", "raise", "bgp"),  # bgpBackwardTransNotification
    "1.3.6.1.2.1.15.7.1": ("BGP_DOWN", "clear", "bgp"),  # bgpEstablished (RFC 1657)
    "1.3.6.1.2.1.15.7.2": ("BGP_DOWN", "raise", "bgp"),  # bgpBackwardTransition (RFC 1657)
    "1.3.6.1.4.1.9.9.187.0.2": ("BGP_DOWN", "raise", "bgp"),  # cbgpBackwardTransition
    "1.3.6.1.4.1.9.9.187.0.7": ("BGP_DOWN", "clear", "bgp"),  # cbgpPeer2EstablishedNotification
    "1.3.6.1.4.1.9.9.187.0.8": ("BGP_DOWN", "raise", "bgp"),  # cbgpPeer2BackwardTransNotification
}
NAMES = {"1.3.6.1.6.3.1.1.5.1": "coldStart", "1.3.6.1.6.3.1.1.5.2": "warmStart",
         "1.3.6.1.6.3.1.1.5.3": "linkDown", "1.3.6.1.6.3.1.1.5.4": "linkUp",
         "1.3.6.1.2.1.15.0.1": "bgpEstablishedNotification",
         "1.3.6.1.2.1.15.0.2": "bgpBackwardTransNotification",
         "1.3.6.1.2.1.15.7.1": "bgpEstablished", "1.3.6.1.2.1.15.7.2": "bgpBackwardTransition",
         "1.3.6.1.4.1.9.9.187.0.2": "cbgpBackwardTransition",
         "1.3.6.1.4.1.9.9.187.0.7": "cbgpPeer2EstablishedNotification",
         "1.3.6.1.4.1.9.9.187.0.8": "cbgpPeer2BackwardTransNotification"}


def _peer(oids: dict[str, str]) -> str | None:
    """The BGP peer: bgpPeerRemoteAddr's value, or the address in a peer-table row's index."""
    for oid in oids:
        if oid.startswith(BGP_PEER_ROW):
            return ".".join(oid.split(".")[-4:])
        if oid.startswith(CBGP_PEER2_ROW):
            idx = oid[len(CBGP_PEER2_ROW):].split(".")[1:]  # after the column: type, len, address
            if len(idx) == 6 and idx[0] == "1" and idx[1] == "4":  # ipv4
                return ".".join(idx[2:])
    return None


def _interface(oids: dict[str, str]) -> str | None:
    """ifDescr (Cisco's full name, as syslog and the inventory spell it), else ifName, else
    the ifIndex."""
    for prefix in (IF_DESCR, IF_NAME):
        for oid, value in oids.items():
            if oid.startswith(prefix) and value:
                return value
    for oid, value in oids.items():
        if oid.startswith(IF_INDEX):
            return f"ifIndex {value}"
    return None


def trap_event(varbinds: Sequence[tuple[str, str]], sender: str,
               received_at: datetime | None = None, relays: tuple[str, ...] = ()) -> Event:
    """The Event for one notification's varbinds (OID text, value text) from `sender`; a
    sender among `relays` may name another device in sysName."""
    oids = dict(varbinds)
    trap_oid = oids.get(SNMP_TRAP_OID, "")
    name = NAMES.get(trap_oid, trap_oid or "unknown trap")
    shown = "; ".join(f"{o}={v}" for o, v in varbinds if o not in (SNMP_TRAP_OID, SYS_UPTIME))
    ev = Event(source="trap", action="note", message=f"{name}: {shown}"[:4000],
               received_at=received_at or datetime.now(UTC),
               fingerprint=hashlib.sha1(repr((sender, sorted(oids.items()))).encode()).hexdigest(),
               host=sender, name=oids.get(SYS_NAME) or None,
               resolve_sender=not is_relay(sender, relays))
    known = TRAPS.get(trap_oid)
    if known is None:
        return ev
    ev.kind, ev.action, ev.category = known[0], known[1], known[2]  # type: ignore[assignment]
    if ev.kind == "LINK_DOWN":
        ev.interface = ev.subject = _interface(oids)
    elif ev.kind == "BGP_DOWN":
        ev.subject = _peer(oids)
    else:  # a restart: over by the time the trap says so
        ev.instant = True
        ev.message = f"{name}: the device restarted"
    return ev


@dataclass(frozen=True)
class TrapParser:
    """What the queued writer turns a spooled trap into an Event with (ber.BerError, a
    ValueError, for bytes that are no notification; picklable: it may parse in a worker)."""

    relays: tuple[str, ...] = ()

    def __call__(self, kept: bytes, sender: str, received_at: datetime) -> Event:
        return trap_event(ber.decode_kept(kept).varbinds, sender, received_at, self.relays)


def parser(relays: tuple[str, ...] = ()) -> TrapParser:
    return TrapParser(relays)


class TrapReceiver:
    """Listens on host:port (0 = a free port; `port` is the bound one after `start`). `put_raw`
    (the queued writer's) takes each drained batch of accepted traps. `relays`: trap forwarders
    (addresses, CIDRs or globs) whose traps may name another device (see `parser`)."""

    def __init__(self, host: str, port: int, community: SecretStr,
                 put_raw: Callable[[str, list[tuple[bytes, str, int]]], None],
                 relays: tuple[str, ...] = ()) -> None:
        self.relays = relays
        self._community = community.get_secret_value().encode()
        self._put_raw = put_raw
        self.intake = UdpIntake("traps", host, port, self._take)

    def _take(self, batch: Datagrams) -> int:
        kept: list[tuple[bytes, str, int]] = []
        informs: list[tuple[bytes, Address]] = []
        for data, sender, at in batch:
            try:
                head = ber.peek(data)
            except ber.BerError:
                continue
            if head.pdu not in ber.NOTIFICATIONS or \
                    not hmac.compare_digest(head.community, self._community):
                continue
            kept.append((ber.without_community(data, head), sender[0], at))
            if head.pdu == ber.INFORM:
                informs.append((ber.inform_response(data, head), sender))
        self._put_raw("trap", kept)
        self._answer(informs)
        return len(kept)

    def _answer(self, informs: list[tuple[bytes, Address]]) -> None:
        """Each inform's Response, once the inform is spooled, from the socket it came to."""
        sock = self.intake.sock
        for response, sender in informs:
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.sendto(response, sender)

    @property
    def host(self) -> str:
        return self.intake.host

    @property
    def port(self) -> int:
        return self.intake.port

    @property
    def received(self) -> int:
        return self.intake.received

    async def start(self) -> None:
        self.intake.start()

    async def stop(self) -> None:
        await asyncio.to_thread(self.intake.stop)
