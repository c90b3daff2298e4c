"""Runs the alarm receivers (SNMP traps, syslog, Alertmanager webhook) in front of one queued
writer. Everything is given explicitly (addresses, ports, the trap community); `from_config`
takes them from config.yaml's ingest section and secrets.yaml. `Ingest` runs in an asyncio
loop; `BackgroundIngest` runs one on its own thread (tests, or an app that embeds it)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from pydantic import SecretStr

from netopsai.backends.alertmanager.receiver import WebhookAuth, WebhookReceiver
from netopsai.backends.receiver_kinds import RECEIVERS
from netopsai.backends.syslog.clock import Zones
from netopsai.backends.syslog.receiver import SyslogContext, SyslogReceiver
from netopsai.backends.traps.receiver import TrapReceiver
from netopsai.store.parsing import Parsers, default_workers
from netopsai.store.spool import Spool
from netopsai.store.writer import OnOpen, QueuedWriter, WriterStats

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

# unprivileged stand-ins for 162/514; the webhook avoids Alertmanager's own 9093 and its
# cluster port 9094 (same defaults as the ingest section of config.yaml, netopsai.config.network)
DEFAULT_PORTS = {"trap": 1162, "syslog": 1514, "webhook": 9095}
COMMUNITY_ENV = "NETOPSAI_TRAP_COMMUNITY"  # overrides secrets.yaml's snmp.community
WORKERS_ENV = "NETOPSAI_PARSE_WORKERS"  # processes parsing datagrams (default: a core less one)
DEFAULT_COMMUNITY = "public"
# A storm allocates rows and events by the hundred thousand and frees them by reference count;
# the cyclic collector's default (700 allocations) ran ~10 % of the writer's time for nothing
GC_THRESHOLDS = (50_000, 20, 100)


@dataclass
class IngestSettings:
    """Where to listen. A port of 0 takes any free port; None turns that receiver off."""

    host: str = "127.0.0.1"
    trap_port: int | None = DEFAULT_PORTS["trap"]
    syslog_port: int | None = DEFAULT_PORTS["syslog"]
    webhook_port: int | None = DEFAULT_PORTS["webhook"]
    community: SecretStr = field(default_factory=lambda: SecretStr("public"))
    dedupe_seconds: float = 30.0
    drain_seconds: float = 30.0
    syslog: SyslogContext = field(default_factory=SyslogContext)  # zones, skew, relays
    spool: Path | None = None  # the write-ahead spool's folder; None keeps events in memory only
    fsync: bool = False  # flush each spooled event to the disk (survives a power cut; slower)
    webhook_auth: WebhookAuth | None = None  # secrets.yaml `webhook:`; None takes any POST
    parse_workers: int = 0  # processes parsing datagrams behind the spool (0: the writer's thread)


def from_config(cfg: NetConfig, *, host: str | None = None, ports: dict[str, int | None] | None = None,
                dedupe_seconds: float = 30.0, env: Mapping[str, str] | None = None) -> IngestSettings:
    """Receiver settings from the ingest section of config.yaml, what was given explicitly (the
    command line's flags) winning: `host`, and `ports` by receiver ("trap", "syslog",
    "webhook"; None turns one off). The trap community is secrets.yaml's snmp.community, unless
    NETOPSAI_TRAP_COMMUNITY is set; "public" when neither is. Datagrams are parsed in
    worker processes (netopsai.store.parsing): NETOPSAI_PARSE_WORKERS of them, 0 for none."""
    section, given = cfg.settings.ingest, ports or {}
    configured = {"trap": section.trap_port, "syslog": section.syslog_port,
                  "webhook": section.webhook_port}
    chosen = {name: given.get(name, port) for name, port in configured.items()}  # None: off
    env = os.environ if env is None else env
    community = cfg.secrets.snmp.community
    if env.get(COMMUNITY_ENV):
        community = SecretStr(env[COMMUNITY_ENV])
    context = SyslogContext(Zones.from_names(section.timezone, section.timezones),
                            section.max_skew_seconds, tuple(section.relays))
    hook = cfg.secrets.webhook
    auth = (WebhookAuth(hook.bearer_token, hook.username, hook.password)
            if hook.bearer_token or hook.password else None)
    workers = env.get(WORKERS_ENV, "")
    return IngestSettings(host=host or section.host, trap_port=chosen["trap"],
                          syslog_port=chosen["syslog"], webhook_port=chosen["webhook"],
                          community=community or SecretStr(DEFAULT_COMMUNITY),
                          dedupe_seconds=dedupe_seconds, syslog=context, webhook_auth=auth,
                          parse_workers=int(workers) if workers.isdigit() else default_workers())


async def _done(result: Any) -> None:
    """A receiver's start() or stop(), whether it is a coroutine or not."""
    if inspect.isawaitable(result):
        await result


class Ingest:
    """`on_open` hears of each alarm opened (QueuedWriter's observer: alarm snapshots). The
    receivers are the table's (backends/receiver_kinds.py), started in its order."""

    def __init__(self, store_url: str, settings: IngestSettings,
                 on_open: OnOpen | None = None) -> None:
        self.url, self.settings, self.on_open = store_url, settings, on_open
        self.writer: QueuedWriter | None = None
        self.running: dict[str, Any] = {}  # by receiver kind, in the order they started

    @property
    def traps(self) -> TrapReceiver | None:
        return cast("TrapReceiver | None", self.running.get("trap"))

    @property
    def syslog(self) -> SyslogReceiver | None:
        return cast("SyslogReceiver | None", self.running.get("syslog"))

    @property
    def webhook(self) -> WebhookReceiver | None:
        return cast("WebhookReceiver | None", self.running.get("webhook"))

    async def start(self) -> list[str]:
        """Bind every receiver; returns one line per listener. A port already taken stops
        everything started so far and raises OSError."""
        cfg = self.settings
        lines: list[str] = []
        spool = Spool(cfg.spool, fsync=cfg.fsync) if cfg.spool is not None else None
        kinds = list(RECEIVERS.values())
        parsers: Parsers = {k.name: k.parser(cfg) for k in kinds if k.parser is not None}
        self.writer = writer = QueuedWriter(self.url, cfg.dedupe_seconds, cfg.drain_seconds, spool,
                                            self.on_open, parsers, cfg.parse_workers)
        try:
            for kind in kinds:
                port = kind.port(cfg)
                if port is None:
                    continue
                self.running[kind.name] = rcv = kind.make(cfg, writer, port)
                await _done(rcv.start())
                lines.append(kind.line(cfg, rcv))
        except BaseException:
            await self.stop()
            raise
        return lines

    async def stop(self) -> WriterStats | None:
        """Stop listening, then write out what was received."""
        for rcv in self.running.values():
            await _done(rcv.stop())
        if self.writer is None:
            return None
        await asyncio.to_thread(self.writer.stop)
        return self.writer.stats


async def serve(store_url: str, settings: IngestSettings,
                on_ready: Callable[[Ingest, list[str]], None],
                stop: asyncio.Event | None = None,
                on_open: OnOpen | None = None) -> WriterStats | None:
    """`on_ready(ingest, lines)` once listening (one line per listener). Run until `stop` is set
    or the task is cancelled (Ctrl-C under asyncio.run): either way the receivers close, the
    writer drains, and the writer's counts are returned."""
    ingest = Ingest(store_url, settings, on_open)
    on_ready(ingest, await ingest.start())
    tune_gc()
    with contextlib.suppress(asyncio.CancelledError):  # Ctrl-C is how this server is meant to end
        await (stop or asyncio.Event()).wait()
    return await ingest.stop()


def tune_gc() -> None:
    """For a process that is an ingest: what start-up built lives as long as the process (no
    collection walks it again), and the cyclic collector runs rarely (GC_THRESHOLDS)."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


class BackgroundIngest:
    """An Ingest on its own thread and event loop: `with BackgroundIngest(url, cfg) as ing:`."""

    def __init__(self, store_url: str, settings: IngestSettings,
                 on_open: OnOpen | None = None) -> None:
        self.ingest = Ingest(store_url, settings, on_open)
        self.lines: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="netopsai-ingest",
                                        daemon=True)

    def __enter__(self) -> Ingest:
        self._thread.start()
        try:
            self.lines = asyncio.run_coroutine_threadsafe(self.ingest.start(), self._loop).result(30)
        except BaseException:
            self._close()
            raise
        return self.ingest

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self.ingest.stop(), self._loop).result(120)
        finally:
            self._close()

    def _close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
