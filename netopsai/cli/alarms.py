"""netopsai command group: alarms — alarm cases (correlation by topology); acknowledging and
silencing alarms (kept in our store, never on a device: netopsai.store.acks)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from netopsai.common.textsafe import visible


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    alarms = typer.Typer(no_args_is_help=True, help="Alarms grouped into cases by topology.")
    app.add_typer(alarms, name="alarms")

    @alarms.command("cases")
    def cases_cmd(window: Annotated[str, typer.Option(help="e.g. 2h, 24h, 7d, or START..END")] = "2h",
                  site: Annotated[str | None, typer.Option(help="Only this data centre")] = None,
                  state: Annotated[str, typer.Option(help="open | closed | any")] = "any",
                  as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False) -> None:
        """The window's alarms as cases: a suggested root-cause alarm, its members and the blast
        radius (DCs, PoDs, segments), with the compression ratio (alarms per case)."""
        import json

        from netopsai.common.errors import NetopsError
        from netopsai.copilot.doors import call_tool
        from netopsai.copilot.frontend import frontend_backends

        if not window.strip():  # the tool would read its default hour, not what was meant
            raise NetopsError("--window is empty; e.g. 2h, 24h, 7d or START..END")
        args: dict[str, Any] = {"window": window, "state": state, "correlate": True}
        if site:
            args["site"] = site
        backends = frontend_backends()  # the configured backends, as `tool`
        ev = call_tool(backends, "alarms", args)
        if ev.errors:
            raise NetopsError(ev.errors[0])
        f = ev.facts
        if as_json:
            typer.echo(json.dumps({"window": ev.window, "alarms": f["alarms"], "cases": f["cases"],
                                   "case_count": f["groups"], "compression": f["compression"]},
                                  default=str))
            return
        _print_cases(ev.window or {}, f, backends.zone)

    _register_acks(alarms)


def _print_cases(window: dict[str, Any], f: dict[str, Any], zone: str) -> None:
    """Device and interface names and the reasons quote the network: every cell goes through
    render.cell (visible, never markup). The window is said on the network's clock (`zone`),
    UTC beside; the table's cells stay as the rows have them (ISO UTC)."""
    from rich.console import Console
    from rich.table import Table

    from netopsai.cli.render import cell
    from netopsai.cli.textout import markup
    from netopsai.common.localtime import when

    console = Console()
    console.print(f"{f['alarms']} alarms in {markup(when(window.get('start'), window.get('end'), zone))}"
                  f" -> {f['groups']} cases "
                  f"({f['compression']:g} alarms per case)")
    if not f["cases"]:
        return
    table = Table("case", "root cause (suggested)", "alarms", "state", "first raised",
                  "blast radius", "why")
    for c in f["cases"]:
        root = f"{c['root_kind']} {c['root_device']}" + (f" {c['root_interface']}"
                                                         if c["root_interface"] else "")
        table.add_row(*(cell(v) for v in (c["case"], root, c["alarms"], c["state"],
                                          c["first_raised"], c["impact"]["summary"],
                                          c["reason"])))
    console.print(table)
    if f["groups"] > len(f["cases"]):
        console.print(f"(the first {len(f['cases'])} cases of {f['groups']}: narrow the window)")


By = Annotated[str | None, typer.Option("--by", help="Who (default: your login name)")]
Why = Annotated[str, typer.Option("--why", help="Why, e.g. a ticket or who is on it")]
AlarmId = Annotated[int, typer.Argument(help="The alarm's id (the first column of the tables)")]


def _register_acks(alarms: typer.Typer) -> None:
    @alarms.command("ack")
    def ack_cmd(alarm_id: AlarmId, by: By = None, why: Why = "") -> None:
        """Acknowledge an alarm: the web app shows who and why beside it."""
        _act(alarm_id, "ack", by, why)

    @alarms.command("silence")
    def silence_cmd(alarm_id: AlarmId, for_: Annotated[str, typer.Option(
                        "--for", help="How long, e.g. 30m, 2h, 1d")] = "2h",
                    by: By = None, why: Why = "") -> None:
        """Silence an alarm for a while: hidden from the open alarms until then."""
        _act(alarm_id, "silence", by, why, for_)

    @alarms.command("unack")
    def unack_cmd(alarm_id: AlarmId, by: By = None, why: Why = "") -> None:
        """Take an acknowledgement or silence back."""
        _act(alarm_id, "unack", by, why)

    alarms.command("acks")(acks_cmd)


def acks_cmd(alarm_id: Annotated[int | None, typer.Option("--id", help="Only this alarm")] = None,
             as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False) -> None:
    """Acknowledgements and silences, newest first: on the network's clock, zone named and UTC
    beside; --json keeps them ISO UTC (parsed)."""
    import json

    from netopsai.cli.zone import network_zone
    from netopsai.common.localtime import at
    from netopsai.common.timewin import iso
    from netopsai.copilot.doors import ack_history
    from netopsai.copilot.frontend import store_engine

    rows: list[dict[str, Any]] = [
        {"alarm_id": a.alarm_id, "action": a.action, "by": a.by, "why": a.why, "at": iso(a.at),
         "until": iso(a.until) if a.until else None} for a in ack_history(store_engine(), alarm_id)]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    zone = network_zone()
    for r in rows:  # who and why as stored (rows older than the plain-text check too): visible
        until = f" until {at(r['until'], zone, beside=True)}" if r["until"] else ""
        said = at(r["at"], zone, beside=True)
        typer.echo(visible(f"{said}  #{r['alarm_id']}  {r['action']}{until}  by {r['by']}"
                           f"{': ' + str(r['why']) if r['why'] else ''}"))
    if not rows:
        typer.echo("no acknowledgements or silences")


def _act(alarm_id: int, action: str, by: str | None, why: str, span: str | None = None) -> None:
    """Record one action at the network's clock (the lab's in the lab): one line out."""
    import getpass

    from netopsai.cli.zone import network_zone
    from netopsai.common.localtime import at
    from netopsai.copilot.doors import record_ack, silence_end, store_clock
    from netopsai.copilot.frontend import store_engine

    engine = store_engine()
    now = store_clock(engine)
    until = silence_end(now, span) if span is not None else None
    # --by "" is refused by record (who is required), not replaced by the login name
    row = record_ack(None, alarm_id, action, getpass.getuser() if by is None else by, why, now,
                     until, engine)
    ends = at(row.until, network_zone(), beside=True) if row.until else ""  # read by a person
    done = {"ack": "acknowledged", "silence": f"silenced until {ends}",
            "unack": "acknowledgement taken back"}[action]
    typer.echo(f"alarm {alarm_id} {done} by {row.by} (kept in netopsai's store, not on the device)")
