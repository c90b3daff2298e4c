"""netopsai command group: ingest (registered by the launcher, launch/app.py)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from netopsai.common.textsafe import visible

if TYPE_CHECKING:
    from netopsai.backends.receivers import Ingest, IngestSettings
    from netopsai.copilot.admin import WriterStats

PORT_HELP = "port (0 = any free port, -1 = off; default: config.yaml's ingest section)"


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""

    @app.command("ingest")
    def ingest_cmd(
        host: Annotated[str | None, typer.Option(
            help="Address to listen on (default: ingest.host, 127.0.0.1)")] = None,
        trap_port: Annotated[int | None, typer.Option(help=f"SNMP traps, UDP {PORT_HELP}")] = None,
        syslog_port: Annotated[int | None, typer.Option(help=f"Syslog, UDP {PORT_HELP}")] = None,
        webhook_port: Annotated[int | None, typer.Option(
            help=f"Alertmanager webhook, HTTP {PORT_HELP}")] = None,
        dedupe: Annotated[float, typer.Option(help="Seconds within which a repeat is one event")] = 30.0,
        fsync: Annotated[bool, typer.Option(
            help="Flush every event to the disk before taking the next (survives a power cut, "
                 "not only a crash; slower)")] = False,
        file: Annotated[list[Path] | None, typer.Option(
            "--file", help="Load device logs from this file instead of listening (syslog-server "
                           "files, `show logging` captures, RFC 5424; .gz too); repeatable")] = None,
        device: Annotated[str | None, typer.Option(
            help="With --file: the device whose log it is, for lines that name none")] = None,
        timezone: Annotated[str | None, typer.Option(
            help="With --file: the zone of times the lines do not qualify (IANA name, e.g. "
                 "America/Los_Angeles; default: config.yaml's ingest.timezone(s))")] = None,
    ) -> None:
        """Receive alarms from the network (SNMP traps, syslog, Alertmanager) into the store.
        Address and ports come from config.yaml's ingest section unless given here; the trap
        community from secrets.yaml (snmp.community), NETOPSAI_TRAP_COMMUNITY overriding it
        (default: public). Every event is written to a spool in NETOPSAI_HOME/spool as it
        arrives, so a crash or kill loses nothing taken in: the next start stores the rest.
        Ctrl-C stops. Its counters (received, refused, dropped by the kernel, written, waiting
        in the spool) are printed every minute while they change, on SIGUSR1 and at exit, and
        kept in NETOPSAI_HOME/ingest.prom (Prometheus text format). With --file, loads log
        files written earlier (on the devices' clocks; loading one twice stores it once) and
        exits."""
        if file:
            _load(file, device, timezone)
            return
        if device or timezone:
            from netopsai.common.errors import NetopsError

            raise NetopsError("--device and --timezone go with --file")
        _run(host, {"trap": trap_port, "syslog": syslog_port, "webhook": webhook_port}, dedupe,
             fsync)


def _port(name: str, value: int) -> int | None:
    from netopsai.common.errors import NetopsError

    if value == -1:
        return None
    if not 0 <= value <= 65535:
        raise NetopsError(f"--{name}-port {value} is not a port (0-65535, or -1 for off)")
    return value


def _settings(host: str | None, flags: dict[str, int | None], dedupe: float) -> IngestSettings:
    """The receivers' settings: the flags given, then the config (a clear error when it or a
    flag is bad). The community is never echoed."""
    import ipaddress

    from netopsai.backends.receivers import from_config
    from netopsai.common.errors import NetopsError
    from netopsai.config.load import load_netconfig

    ports = {n: _port(n, v) for n, v in flags.items() if v is not None}
    if not 0 <= dedupe < float("inf"):  # "nan" and "inf" parse as floats too
        raise NetopsError("--dedupe must be 0 or more seconds")
    cfg = from_config(load_netconfig(), host=host, ports=ports, dedupe_seconds=dedupe)
    try:
        ipaddress.ip_address(cfg.host)
    except ValueError:
        where = "--host" if host else "ingest.host in the config"
        raise NetopsError(f"{where} {cfg.host!r} is not an IP address, e.g. 127.0.0.1") from None
    if cfg.trap_port is None and cfg.syslog_port is None and cfg.webhook_port is None:
        raise NetopsError("every receiver is off: give at least one port")
    return cfg


def _run(host: str | None, flags: dict[str, int | None], dedupe: float, fsync: bool) -> None:
    import asyncio
    import signal

    from netopsai.backends.receivers import serve
    from netopsai.common.errors import NetopsError
    from netopsai.config.load import load_netconfig
    from netopsai.config.settings import StoreSettings, private_dir
    from netopsai.copilot.admin import make_store_dir, prune_periodically
    from netopsai.copilot.frontend import store_engine

    cfg = _settings(host, flags, dedupe)
    store = StoreSettings()
    make_store_dir(store)
    cfg.spool, cfg.fsync = private_dir(store.home) / "spool", fsync

    watches: list[Any] = []  # the ingest's counters (netopsai.backends.ingest_stats)

    def ready(ingest: Ingest, lines: list[str]) -> None:
        from netopsai.backends.ingest_stats import Watch

        watches.append(Watch(ingest, typer.echo, store.home / "ingest.prom"))
        for line in lines:
            typer.echo(f"listening: {line}")
        replayed = ingest.writer.stats.replayed if ingest.writer else 0
        if replayed:
            typer.echo(f"writing {replayed} events received before the last stop (from the spool)")
        typer.echo("storing alarms and raw events; Ctrl-C stops")

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        net = load_netconfig().settings
        pruning = asyncio.create_task(prune_periodically(
            store_engine(), net.retention, typer.echo, zone=net.ingest.timezone))
        snaps = _snapshotter()
        try:
            stats = await serve(store.url, cfg, ready, stop, snaps.on_opened if snaps else None)
        finally:
            pruning.cancel()
            if snaps is not None:
                await asyncio.to_thread(snaps.close)
        _report(stats)
        for watch in watches:  # the receivers' own counters: kernel drops, refusals, backlog
            watch.close()

    try:
        asyncio.run(main())
    except OSError as exc:
        raise NetopsError(f"cannot listen: {exc.strerror or exc}") from None
    except KeyboardInterrupt:  # a second Ctrl-C while draining
        typer.echo("interrupted while storing the last events", err=True)


def _snapshotter() -> Any:
    """Snapshots of the configured devices when an alarm opens on one (None: none configured)."""
    from netopsai.backends.snapshot.snapshotter import from_config as snapshotter
    from netopsai.config.load import load_netconfig
    from netopsai.copilot.frontend import store_engine

    snaps = snapshotter(store_engine(), load_netconfig())
    if snaps is not None:
        typer.echo(f"snapshots of {len(snaps.napalm) + len(snaps.snmp)} configured devices when "
                   "an alarm opens on one")
    return snaps


def _load(files: list[Path], device: str | None, zone: str | None) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from netopsai.backends.receivers import from_config
    from netopsai.backends.syslog.files import load_files
    from netopsai.config.load import load_netconfig
    from netopsai.config.settings import StoreSettings
    from netopsai.copilot.admin import make_store_dir, reachable_store

    store = StoreSettings()
    make_store_dir(store)
    reachable_store(store)  # one line naming the store, before any reading
    context = from_config(load_netconfig()).syslog
    err = Console(stderr=True, highlight=False)
    failed = _Failures()  # the writer logs each event it could not store
    with Progress(TextColumn("storing events"), BarColumn(), MofNCompleteColumn(), console=err,
                  transient=True, disable=not err.is_terminal) as bar, failed:
        task = bar.add_task("load", total=None)
        stats = load_files(store.url, files, device=device, zone=zone, context=context,
                           progress=lambda done, total: bar.update(task, completed=done, total=total))
    typer.echo(f"{stats.lines} lines read from {len(files)} file{'s' * (len(files) > 1)}: "
               f"{max(stats.stored, 0)} events stored, {stats.known} already in the store")
    if stats.no_device:
        typer.echo(f"{stats.no_device} lines name no device: give --device NAME for a capture "
                   "of one device's log", err=True)
    if stats.no_time:
        typer.echo(f"{stats.no_time} lines carry no time: placed at the file's time", err=True)
    if failed.count:  # a store that took nothing (read-only, gone) must not exit 0
        from netopsai.common.errors import NetopsError

        raise NetopsError(f"{failed.count} of {stats.lines - stats.known} events could not be "
                          f"stored: {failed.first}")


class _Failures(logging.Handler):
    """While a file loads: counts the events the writer could not store and keeps the first
    reason's first line (the writer's log record carries the SQL and the event's text, many
    lines; the command says one)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count, self.first = 0, ""

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if text.startswith("could not store"):  # one event
            self.count += 1
        elif text.startswith("store still locked") and "not written" in text:  # a batch given up
            args = record.args if isinstance(record.args, tuple) else ()
            self.count += args[1] if len(args) > 1 and isinstance(args[1], int) else 1
        else:
            return
        self.first = self.first or visible(text.splitlines()[0])

    def __enter__(self) -> _Failures:
        logging.getLogger("netopsai.ingest").addHandler(self)
        return self

    def __exit__(self, *_: object) -> None:
        logging.getLogger("netopsai.ingest").removeHandler(self)


def _report(stats: WriterStats | None) -> None:
    if stats is None:
        return
    typer.echo(f"stopped: {stats.received} events received, {stats.written} written, "
               f"{stats.duplicates} repeats, {stats.lost} lost")
    if stats.spooled:
        typer.echo(f"{stats.spooled} events stay in the spool (not yet written at stop): the "
                   "next start writes them")
