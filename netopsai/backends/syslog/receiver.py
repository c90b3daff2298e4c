"""A UDP syslog receiver: each datagram becomes an Event for the queued writer; the lines we
recognise (netopsai.backends.syslog.parse) raise or clear alarms, the rest are kept as raw
events."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
from collections.abc import Callable
from datetime import UTC, datetime

from netopsai.backends.syslog.parse import classify, parse_frame
from netopsai.store.apply import Event

log = logging.getLogger("netopsai.ingest")
MAX_MESSAGE = 4000  # characters kept of one line


def syslog_event(data: bytes, sender: str, received_at: datetime | None = None) -> Event:
    """The Event for one datagram from `sender` (its IP address)."""
    msg = parse_frame(data)
    parsed = classify(msg.text)
    at = received_at or datetime.now(UTC)
    base = Event(source="syslog", action="note", message=msg.text[:MAX_MESSAGE], received_at=at,
                 fingerprint=hashlib.sha1(sender.encode() + b"\0" + data).hexdigest(),
                 host=sender, name=msg.hostname, facility=msg.facility,
                 syslog_severity=msg.severity)
    if parsed is None:
        return base
    base.action, base.kind, base.category = parsed.action, parsed.kind, parsed.category
    base.subject, base.interface = parsed.subject, parsed.interface
    return base


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, sink: Callable[[Event], None]) -> None:
        self.sink = sink
        self.received = 0

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        self.received += 1
        try:
            self.sink(syslog_event(data, str(addr[0])))
        except Exception:  # a receiver must outlive any one datagram
            log.exception("syslog datagram from %s not handled", addr[0])


class SyslogReceiver:
    """Listens on host:port (0 = a free port); `port` is the bound one after `start`."""

    def __init__(self, host: str, port: int, sink: Callable[[Event], None]) -> None:
        self.host, self.port, self.sink = host, port, sink
        self._transport: asyncio.DatagramTransport | None = None
        self._protocol = _Protocol(sink)

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
