"""netopsai command group: poll (registered by the launcher, launch/app.py).

`netopsai poll --once --target HOST[:PORT] --community NAME [--json]` reads one SNMP agent now,
stores what it read and prints the device and its interfaces; without --target the targets and
credentials come from the configuration (NETOPSAI_HOME/config.yaml and secrets.yaml), and
without --once it polls every --interval seconds until interrupted. --engine ray reads the
agents on Ray (backends/snmp/ray_poll.py) and stores here, as the local engine does."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from netopsai.common.textsafe import visible

if TYPE_CHECKING:
    from collections.abc import Callable

    from netopsai.backends.snmp.poller import PollReport
    from netopsai.backends.snmp.walk import DeviceReading
    from netopsai.common.ray_cluster import RayOptions


class EngineName(StrEnum):
    """Where `batch` and `poll` do their work (shared by both commands' --engine)."""

    local = "local"
    ray = "ray"


EngineOption = Annotated[EngineName, typer.Option(
    help="local: this machine's processes; ray: a Ray cluster (--address, else config ray: "
         "address, else a local one for the run)")]
AddressOption = Annotated[str | None, typer.Option(
    help="A running Ray cluster, HOST:PORT or ray://HOST:PORT (with --engine ray)")]


def ray_choice(engine: EngineName, address: str | None) -> RayOptions | None:
    """None for the local engine; else the Ray options, the command line over config.yaml."""
    from netopsai.common.errors import NetopsError

    if engine is EngineName.local:
        if address:
            raise NetopsError("--address goes with --engine ray")
        return None
    from netopsai.config.ray import ray_options

    return ray_options(address)


def _targets(target: str | None, community: str | None) -> tuple[list[Any], dict[str, Any]]:
    """(targets, poll options): from the command line, or from the configuration."""
    from netopsai.common.errors import NetopsError

    if target:
        from pydantic import SecretStr

        from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget, parse_endpoint

        if not community:
            raise NetopsError("--target needs --community (the SNMP v2c community to read with)")
        host, port = parse_endpoint(target)
        return [SnmpTarget(host=host, port=port, auth=SnmpAuth(community=SecretStr(community)))], {}
    if community:
        raise NetopsError("--community goes with --target; configured targets use secrets.yaml")
    from pydantic import ValidationError

    from netopsai.backends.snmp.telemetry import snmp_kwargs
    from netopsai.config.load import load_netconfig

    try:
        opts = snmp_kwargs(load_netconfig())
    except ValidationError as exc:  # the message only: the input may hold a credential
        msg = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise NetopsError(f"SNMP credentials in secrets.yaml are incomplete: {msg}") from None
    targets = opts.pop("targets")
    if not targets:
        raise NetopsError("no SNMP targets: give --target HOST[:PORT] --community NAME, or list "
                          "targets under snmp: in config.yaml")
    return targets, opts


def _uptime(cs: int | None) -> str:
    if cs is None:
        return ""
    s = cs // 100
    return f"{s // 86400}d {s % 86400 // 3600}h {s % 3600 // 60}m"


def reading_json(r: DeviceReading) -> dict[str, Any]:
    from netopsai.backends.snmp.poller import interface_names

    device = {"name": r.device, "target": r.target.endpoint, "ok": r.ok, "error": r.error,
              "partial": r.partial or None,
              "sys_name": r.sys_name, "sys_descr": r.sys_descr,
              "uptime_s": r.uptime_cs // 100 if r.uptime_cs is not None else None,
              "uptime": _uptime(r.uptime_cs), "polled_at": r.at.isoformat()}
    ifaces = [{"index": i.index, "name": name, "descr": i.descr, "oper_status": i.oper,
               "admin_status": i.admin, "speed_mbps": i.speed_mbps, "in_octets": i.in_octets,
               "out_octets": i.out_octets, "in_errors": i.in_errors, "in_discards": i.in_discards,
               "out_discards": i.out_discards} for name, i in interface_names(r.interfaces.values())]
    return {"device": device, "interfaces": ifaces}


def report_json(rep: PollReport) -> dict[str, Any]:
    devices = [reading_json(r) for r in rep.readings]
    out: dict[str, Any] = {"devices": devices,
                           "stored": {"devices": rep.devices, "interfaces": rep.interfaces,
                                      "events": rep.events, "samples": rep.samples,
                                      "restarted": rep.restarted},
                           "errors": list(rep.failures.values())}
    if len(devices) == 1:  # one target: its device and interfaces at the top level too
        out |= devices[0]
    return out


def _print(rep: PollReport) -> None:
    """Each device's table. sysName, sysDescr and interface names are the agent's words:
    shown visible and never read as markup (netopsai.cli.render)."""
    from rich.console import Console
    from rich.table import Table

    from netopsai.cli.render import cell
    from netopsai.cli.textout import markup

    console = Console()
    if not console.is_terminal:  # piped: whole names and counters rather than an 80-column fit
        console = Console(width=160)
    for r in rep.readings:
        if not r.ok:
            continue
        console.print(f"[bold]{markup(r.device)}[/bold] ({markup(r.target.endpoint)}) up "
                      f"{_uptime(r.uptime_cs)}\n"
                      f"{markup(r.sys_descr.splitlines()[0]) if r.sys_descr else ''}")
        table = Table("index", "name", "oper", "admin", "speed_mbps", "in_octets", "out_octets",
                      "in_errors", "in_discards")
        for i in reading_json(r)["interfaces"]:
            table.add_row(*(cell(i[k]) for k in (
                "index", "name", "oper_status", "admin_status", "speed_mbps", "in_octets",
                "out_octets", "in_errors", "in_discards")))
        console.print(table)
        if r.partial:
            console.print(f"[yellow]partial:[/yellow] {markup(r.partial)}")
    console.print(f"stored: {rep.devices} devices, {rep.interfaces} interfaces, "
                  f"{rep.events} state changes, {rep.samples} counter samples")


def _emit(rep: PollReport, as_json: bool) -> None:
    import json

    if as_json:
        typer.echo(json.dumps(report_json(rep), default=str))
    else:
        _print(rep)
    for problem in rep.failures.values():
        typer.echo(f"warning: {visible(problem)}", err=True)


def poll(once: Annotated[bool, typer.Option("--once", help="Poll once and exit")] = False,
         interval: Annotated[float, typer.Option(help="Seconds between polls", min=1)] = 300.0,
         target: Annotated[str | None, typer.Option(help="HOST[:PORT] of one SNMP agent")] = None,
         community: Annotated[str | None, typer.Option(help="SNMP v2c community for --target")] = None,
         timeout: Annotated[float | None, typer.Option(help="Seconds per SNMP request", min=0.1)] = None,
         retries: Annotated[int | None, typer.Option(help="Retries per SNMP request", min=0)] = None,
         sample_every: Annotated[float, typer.Option(
             help="Seconds a counter sample spans at least (5-minute figures by default)",
             min=0)] = 300.0,
         as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
         engine: EngineOption = EngineName.local,
         address: AddressOption = None) -> None:
    """Poll SNMP agents (IF-MIB, system) into the store: interface states, transitions and
    counter samples, so telemetry questions work on a real network."""
    from netopsai.backends.snmp.ray_poll import reader

    targets, opts = _targets(target, community)
    opts |= {k: v for k, v in (("timeout", timeout), ("retries", retries)) if v is not None}
    opts["sample_every"] = sample_every
    with reader(ray_choice(engine, address)) as read:  # a Ray cluster lives as long as the polling
        _run(targets, opts | {"read": read}, once, interval, as_json)


def _run(targets: list[Any], opts: dict[str, Any], once: bool, interval: float, as_json: bool) -> None:
    from netopsai.backends.snmp.poller import poll_and_store, poll_forever
    from netopsai.copilot.frontend import store_engine

    engine = store_engine()
    if once:
        rep = poll_and_store(engine, targets, **opts)
        _emit(rep, as_json)
        if rep.failures and len(rep.failures) == len(rep.readings):
            raise typer.Exit(1)  # nothing could be read: scripts must see it
        return
    prune = _pruner(engine)
    snaps = _snapshotter(engine)

    def on_round(rep: PollReport) -> None:
        _emit(rep, as_json)
        if snaps is not None:
            snaps.on_poll(rep.went_down)
        prune()

    try:
        poll_forever(engine, targets, interval, on_round, **opts)
    except KeyboardInterrupt:
        return
    finally:
        if snaps is not None:
            snaps.close()


def _snapshotter(engine: Any) -> Any:
    """Snapshots of configured devices whose ports go down between polls (None: none)."""
    from netopsai.backends.snapshot.snapshotter import from_config
    from netopsai.config.load import load_netconfig

    return from_config(engine, load_netconfig())


def _pruner(engine: Any) -> Callable[[], None]:
    """Retention while polling (config retention:): after the first round, then every
    `prune_every_minutes`; what it did goes to stderr (stdout may be --json lines)."""
    from netopsai.config.load import load_netconfig
    from netopsai.copilot.admin import periodic_prune

    net = load_netconfig().settings
    pruner = periodic_prune(engine, net.retention, net.ingest.timezone)
    return lambda: pruner.tick(lambda line: typer.echo(line, err=True))


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    app.command("poll")(poll)
