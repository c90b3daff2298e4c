"""netopsai command group: alarms — alarm cases (correlation by topology)."""

from __future__ import annotations

from typing import Annotated, Any

import typer


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

        from netopsai.errors import NetopsError
        from netopsai.frontend import frontend_backends
        from netopsai.tools.registry import run_tool

        args: dict[str, Any] = {"window": window, "state": state, "correlate": True}
        if site:
            args["site"] = site
        ev = run_tool("alarms", args, frontend_backends())  # the configured backends, as `tool`
        if ev.errors:
            raise NetopsError(ev.errors[0])
        f = ev.facts
        if as_json:
            typer.echo(json.dumps({"window": ev.window, "alarms": f["alarms"], "cases": f["cases"],
                                   "case_count": f["groups"], "compression": f["compression"]},
                                  default=str))
            return
        _print_cases(ev.window or {}, f)


def _print_cases(window: dict[str, Any], f: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"{f['alarms']} alarms in {window.get('start')} .. {window.get('end')} -> "
                  f"{f['groups']} cases ({f['compression']:g} alarms per case)")
    if not f["cases"]:
        return
    table = Table("case", "root cause (suggested)", "alarms", "state", "first raised",
                  "blast radius", "why")
    for c in f["cases"]:
        root = f"{c['root_kind']} {c['root_device']}" + (f" {c['root_interface']}"
                                                         if c["root_interface"] else "")
        table.add_row(c["case"], root, str(c["alarms"]), c["state"], str(c["first_raised"]),
                      c["impact"]["summary"], c["reason"])
    console.print(table)
    if f["groups"] > len(f["cases"]):
        console.print(f"(the first {len(f['cases'])} cases of {f['groups']}: narrow the window)")
