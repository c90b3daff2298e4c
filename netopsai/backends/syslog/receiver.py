"""A UDP syslog receiver. Receiving does no parsing (netopsai.backends.udp): datagrams go to the
queued writer raw, spooled in batches, and the writer parses them behind the spool with
`parser(context)`. Each datagram becomes an Event on the device's
clock (netopsai.backends.syslog.clock) and about the device the header names — when its sender
may speak for it: the device itself, or a relay listed in `ingest.relays` (netopsai.store.naming
decides, against the inventory's addresses); the lines we recognise
(netopsai.backends.syslog.parse) raise or clear alarms, the rest are kept as raw events."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from netopsai.backends.syslog import rules
from netopsai.backends.syslog.clock import Zones, device_time
from netopsai.backends.syslog.parse import classify, mnemonic, parse_frame
from netopsai.backends.udp import Datagrams, UdpIntake
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


@dataclass(frozen=True)
class SyslogParser:
    """What the queued writer turns a spooled datagram into an Event with (picklable: it may
    parse in a worker process)."""

    context: SyslogContext

    def __call__(self, data: bytes, sender: str, received_at: datetime) -> Event:
        return syslog_event(data, sender, received_at, self.context)

    def warm(self) -> None:
        """Load the vendor rules and their needle search now (1.5 s of reading YAML and
        compiling, else paid by the first line: in a worker started for a storm, its first
        batch waited that long, ~50 µs a line over a 30,000-line run)."""
        rules.warm()


def parser(context: SyslogContext) -> SyslogParser:
    return SyslogParser(context)


class SyslogReceiver:
    """Listens on host:port (0 = a free port); `port` is the bound one after `start`. `put_raw`
    (the queued writer's) takes each drained batch of datagrams, as received."""

    def __init__(self, host: str, port: int, put_raw: Callable[[str, list[tuple[bytes, str, int]]], None],
                 context: SyslogContext | None = None) -> None:
        self.context = context or SyslogContext()
        self._put_raw = put_raw
        self.intake = UdpIntake("syslog", host, port, self._take)

    def _take(self, batch: Datagrams) -> int:
        self._put_raw("syslog", [(data, addr[0], at) for data, addr, at in batch])
        return len(batch)

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
