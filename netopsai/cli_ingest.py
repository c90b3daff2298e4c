"""netopsai command group: ingest (registered by netopsai.cli)."""

from __future__ import annotations

from typing import Annotated

import typer

PORT_HELP = "port (0 = any free port, -1 = off)"


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""

    @app.command("ingest")
    def ingest_cmd(
        host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
        trap_port: Annotated[int, typer.Option(help=f"SNMP traps, UDP {PORT_HELP}")] = 1162,
        syslog_port: Annotated[int, typer.Option(help=f"Syslog, UDP {PORT_HELP}")] = 1514,
        webhook_port: Annotated[int, typer.Option(help=f"Alertmanager webhook, HTTP {PORT_HELP}")] = 9094,
        dedupe: Annotated[float, typer.Option(help="Seconds within which a repeat is one event")] = 30.0,
    ) -> None:
        """Receive alarms from the network (SNMP traps, syslog, Alertmanager) into the store.
        The trap community is read from NETOPSAI_TRAP_COMMUNITY (default: public). Ctrl-C stops."""
        _run(host, trap_port, syslog_port, webhook_port, dedupe)


def _port(name: str, value: int) -> int | None:
    from netopsai.errors import NetopsError

    if value == -1:
        return None
    if not 0 <= value <= 65535:
        raise NetopsError(f"--{name}-port {value} is not a port (0-65535, or -1 for off)")
    return value


def _run(host: str, trap_port: int, syslog_port: int, webhook_port: int, dedupe: float) -> None:
    import asyncio
    import ipaddress
    import os
    import signal

    from pydantic import SecretStr

    from netopsai.config import StoreSettings
    from netopsai.errors import NetopsError
    from netopsai.ingest import IngestSettings, serve

    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise NetopsError(f"--host {host!r} is not an IP address, e.g. 127.0.0.1") from None
    ports = {n: _port(n, v) for n, v in (("trap", trap_port), ("syslog", syslog_port),
                                         ("webhook", webhook_port))}
    if all(p is None for p in ports.values()):
        raise NetopsError("every receiver is off: give at least one port")
    if dedupe < 0:
        raise NetopsError("--dedupe must be 0 or more seconds")
    cfg = IngestSettings(host=host, trap_port=ports["trap"], syslog_port=ports["syslog"],
                         webhook_port=ports["webhook"], dedupe_seconds=dedupe,
                         community=SecretStr(os.environ.get("NETOPSAI_TRAP_COMMUNITY", "public")))
    store = StoreSettings()
    if store.sqlite_path is not None:
        store.sqlite_path.parent.mkdir(parents=True, exist_ok=True)

    def ready(lines: list[str]) -> None:
        for line in lines:
            typer.echo(f"listening: {line}")
        typer.echo("storing alarms and raw events; Ctrl-C stops")

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        stats = await serve(store.url, cfg, ready, stop)
        _report(stats)

    try:
        asyncio.run(main())
    except OSError as exc:
        raise NetopsError(f"cannot listen: {exc.strerror or exc}") from None
    except KeyboardInterrupt:  # a second Ctrl-C while draining
        typer.echo("interrupted while storing the last events", err=True)


def _report(stats: object) -> None:
    if stats is not None:
        typer.echo(f"stopped: {getattr(stats, 'received', 0)} events received, "
                   f"{getattr(stats, 'written', 0)} written, {getattr(stats, 'duplicates', 0)} "
                   f"repeats, {getattr(stats, 'lost', 0)} lost")
