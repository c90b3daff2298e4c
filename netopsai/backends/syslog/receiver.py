"""A UDP syslog receiver: each datagram becomes an Event for the queued writer, on the device's
clock (netopsai.backends.syslog.clock) and about the device the header names — when its sender
may speak for it: the device itself, or a relay listed in `ingest.relays` (netopsai.store.naming
decides, against the inventory's addresses); the lines we recognise
(netopsai.backends.syslog.parse) raise or clear alarms, the rest are kept as raw events."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from netopsai.backends.syslog.clock import Zones, device_time
from netopsai.backends.syslog.parse import classify, mnemonic, parse_frame
from netopsai.store.apply import Event
from netopsai.store.naming import is_relay

log = logging.getLogger("netopsai.ingest")
MAX_MESSAGE = 4000  # characters kept of one line
MAX_SKEW_S = 300.0


@dataclass(frozen=True)
class SyslogContext:
    """What reading a line needs beyond the line: the devices' zones, how far a clock the
    device marks unsynchronised may be off, and the relays (addresses, CIDRs or globs) that
    forward for other devices: only they may name another device, and their own address never
    names the device."""

    zones: Zones = field(default_factory=Zones)
    max_skew_s: float = MAX_SKEW_S
    relays: tuple[str, ...] = ()

    def is_relay(self, sender: str) -> bool:
        return is_relay(sender, self.relays)


def syslog_event(data: bytes, sender: str, received_at: datetime | None = None,
                 context: SyslogContext | None = None, near: datetime | None = None) -> Event:
    """The Event for one line from `sender` (its IP address: the device's, or a relay's).
    `near`: when the line was written, if not at `received_at` (a log file's time), for the
    year a stamp leaves out and the clock's skew."""
    ctx = context or SyslogContext()
    msg = parse_frame(data)
    parsed = classify(msg.text)
    got = received_at or datetime.now(UTC)
    ref = near or got
    dev = device_time(msg.timestamp, ref, ctx.zones.of(msg.hostname, sender))
    base = Event(source="syslog", action="note", message=msg.text[:MAX_MESSAGE], received_at=got,
                 at=dev.placed(ref, ctx.max_skew_s), device_time=dev.at, skew_s=dev.skew_s,
                 fingerprint=hashlib.sha1(sender.encode() + b"\0" + data).hexdigest(),
                 host=sender, name=msg.hostname, facility=msg.facility,
                 syslog_severity=msg.severity, program=msg.app, mnemonic=mnemonic(msg),
                 resolve_sender=not ctx.is_relay(sender))
    if parsed is None:
        return base
    base.action, base.kind, base.category = parsed.action, parsed.kind, parsed.category
    base.subject, base.interface = parsed.subject, parsed.interface
    base.severity, base.instant, base.clears = parsed.severity, parsed.instant, parsed.clears
    base.author = parsed.user
    return base


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, sink: Callable[[Event], None], context: SyslogContext) -> None:
        self.sink, self.context = sink, context
        self.received = 0

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        self.received += 1
        try:
            self.sink(syslog_event(data, str(addr[0]), context=self.context))
        except Exception:  # a receiver must outlive any one datagram
            log.exception("syslog datagram from %s not handled", addr[0])


class SyslogReceiver:
    """Listens on host:port (0 = a free port); `port` is the bound one after `start`."""

    def __init__(self, host: str, port: int, sink: Callable[[Event], None],
                 context: SyslogContext | None = None) -> None:
        self.host, self.port, self.sink = host, port, sink
        self._transport: asyncio.DatagramTransport | None = None
        self._protocol = _Protocol(sink, context or SyslogContext())

    @property
    def received(self) -> int:
        return self._protocol.received

    async def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_DGRAM)
        # A burst of datagrams while the loop is busy must wait in the kernel, not be dropped.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(lambda: self._protocol, sock=sock)
        self._transport = transport

    async def stop(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
