"""The alarm receivers `netopsai ingest` runs, one table: SNMP traps, syslog and the
Alertmanager webhook built in, in that order; a package installed from elsewhere adds one
through the entry-point group `netopsai.receivers` (an entry point naming a ReceiverKind, or a
module whose import registers one with `@receiver`). Each kind says where it listens (None:
off), builds its receiver in front of the queued writer, says what it listens on, and, for a
datagram receiver, gives the writer the parser for its datagrams (receivers do not parse)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from netopsai.backends.alertmanager.receiver import WebhookReceiver
from netopsai.backends.syslog import receiver as syslog_receiver
from netopsai.backends.syslog.receiver import SyslogReceiver
from netopsai.backends.traps import receiver as trap_receiver
from netopsai.backends.traps.receiver import TrapReceiver
from netopsai.common.registry import Registry

if TYPE_CHECKING:
    from netopsai.backends.receivers import IngestSettings
    from netopsai.store.writer import QueuedWriter

Make = Callable[["IngestSettings", "QueuedWriter", int], Any]


@dataclass(frozen=True)
class ReceiverKind:
    name: str  # the source its events carry (the writer's parsers are keyed by it)
    port: Callable[[IngestSettings], int | None]  # where it listens; None: off
    make: Make  # the receiver (start() and stop(), either may be async), not started yet
    line: Callable[[IngestSettings, Any], str]  # what it listens on, once started
    parser: Callable[[IngestSettings], Any] | None = None  # its datagrams' parser, for the writer


def _adopt(name: str, obj: object) -> list[tuple[str, ReceiverKind]]:
    return [(obj.name, obj)] if isinstance(obj, ReceiverKind) else []


RECEIVERS: Registry[str, ReceiverKind] = Registry("receiver", "netopsai.receivers", (__name__,),
                                                  _adopt)


def receiver(name: str, port: Callable[[IngestSettings], int | None],
             line: Callable[[IngestSettings, Any], str],
             parser: Callable[[IngestSettings], Any] | None = None) -> Callable[[Make], Make]:
    """Register a receiver kind; what it decorates builds the receiver."""
    def register(make: Make) -> Make:
        RECEIVERS.add(name, ReceiverKind(name, port, make, line, parser))
        return make
    return register


@receiver("trap", lambda cfg: cfg.trap_port,
          lambda cfg, r: f"SNMP traps (v1/v2c) on udp {cfg.host}:{r.port}",
          lambda cfg: trap_receiver.parser(cfg.syslog.relays))
def traps(cfg: IngestSettings, writer: QueuedWriter, port: int) -> TrapReceiver:
    return TrapReceiver(cfg.host, port, cfg.community, writer.put_raw, cfg.syslog.relays)


@receiver("syslog", lambda cfg: cfg.syslog_port,
          lambda cfg, r: f"syslog (RFC 3164/5424) on udp {cfg.host}:{r.port}",
          lambda cfg: syslog_receiver.parser(cfg.syslog))
def syslog(cfg: IngestSettings, writer: QueuedWriter, port: int) -> SyslogReceiver:
    return SyslogReceiver(cfg.host, port, writer.put_raw, cfg.syslog)


def _webhook_line(cfg: IngestSettings, r: WebhookReceiver) -> str:
    guard = " (auth required)" if cfg.webhook_auth else ""
    return f"Alertmanager webhook on http://{cfg.host}:{r.port}/{guard}"


@receiver("webhook", lambda cfg: cfg.webhook_port, _webhook_line)
def webhook(cfg: IngestSettings, writer: QueuedWriter, port: int) -> WebhookReceiver:
    return WebhookReceiver(cfg.host, port, writer.put, cfg.webhook_auth, cfg.syslog.relays)
