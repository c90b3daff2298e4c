"""netopsai command group: incidents — incident memory (confirmed diagnoses)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from netopsai.common.textsafe import visible


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    inc = typer.Typer(no_args_is_help=True, help="Incident memory: diagnoses the on-call confirmed.")
    app.add_typer(inc, name="incidents")
    inc.command("confirm")(confirm_cmd)
    inc.command("import")(import_cmd)
    inc.command("list")(list_cmd)


def confirm_cmd(thread: Annotated[str | None, typer.Option(
                    help="Conversation thread id (default: the last `ask`)")] = None,
                user: Annotated[str, typer.Option(help="Who confirms")] = "cli") -> None:
    """Confirm the last diagnosis of a thread: it joins incident memory."""
    from netopsai.cli.threads import pick_thread
    from netopsai.common.errors import NetopsError
    from netopsai.config.settings import StoreSettings
    from netopsai.copilot.frontend import frontend_copilot

    home = StoreSettings().home
    thread = pick_thread(thread, resume=thread is None)
    if not (home / "checkpoints.db").exists():
        raise NetopsError(f"no conversations in {home}; ask a question first")
    copilot = frontend_copilot(use_llm=False)
    if not copilot.thread(thread).turns:
        raise NetopsError(f"no conversation thread {thread!r} in {home}")
    row = copilot.confirm(thread, user, "confirm")
    typer.echo(visible(f"incident {row.id} saved: {row.label} at {row.device or '-'}"
                       f"{' ' + row.interface if row.interface else ''}"))


def import_cmd(file: Annotated[Path, typer.Argument(help="YAML or JSON list of incidents")]) -> None:
    """Load past incidents (symptoms, label, device, interface, evidence_summary, at)."""
    from netopsai.copilot.admin import import_incidents

    n = import_incidents(file)
    typer.echo(f"imported {n} incident{'s' if n != 1 else ''} from {file}")


def list_cmd(as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False) -> None:
    """The incidents in memory, oldest first."""
    import json

    from netopsai.copilot.admin import incidents

    rows = incidents()
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in rows]))
        return
    for r in rows:
        typer.echo(f"{r.id}\t{r.at:%Y-%m-%dT%H:%M:%SZ}\t" + visible(  # symptoms quote the network
            f"{r.label}\t{r.device or '-'}\t{r.interface or '-'}\t{r.confirmed_by}\t"
            f"{r.symptoms[:60]}"))
    if not rows:
        typer.echo("no incidents in memory")
