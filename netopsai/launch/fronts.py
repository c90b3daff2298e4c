"""netopsai commands that start another front end: `batch` (batch/), `serve` (the Gradio web app,
with the API on the home's socket beside it) and `slack` (the Slack bot). Heavy imports stay
inside the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from netopsai.cli.poll import AddressOption, EngineName, EngineOption, ray_choice
from netopsai.common.errors import NetopsError


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add the commands (the help lists them after the core ones: tool, ask, chat)."""
    app.command("batch")(batch_cmd)
    app.command("serve")(serve_cmd)
    app.command("slack")(slack_cmd)


def batch_cmd(file: Annotated[Path, typer.Argument(help="IPs one per line, or CSV src,dst")],
              out: Annotated[Path | None, typer.Option("-o", "--out", help="Write results here")] = None,
              as_json: Annotated[bool, typer.Option("--json", help="JSON instead of CSV")] = False,
              resume: Annotated[bool, typer.Option(help="Skip pairs already in --out")] = False,
              concurrency: Annotated[int, typer.Option(help="Checks at once")] = 8,
              source: Annotated[str | None, typer.Option(help="Probe source for bare IPs")] = None,
              summary: Annotated[Path | None, typer.Option(
                  help="Also write the summary here, as JSON")] = None,
              engine: EngineOption = EngineName.local,
              address: AddressOption = None,
              record: Annotated[bool, typer.Option(
                  "--record", help="Also store each result with the run's time (probe history "
                  "for the reliability report)")] = False,
              ) -> None:
    """Batch connectivity checks over a list of IPs or src,dst pairs. Rows in input order; exit
    0 when every pair is reachable, 1 when some are degraded, unreachable or errors, 2 for bad
    input."""
    from netopsai.launch.thin import long_lived_setup

    # the batch's modules (SQLAlchemy, SQLModel, the tables, the diagnosis) are ~0.5 s of its
    # serial start and live as long as the command: imported without collections, then frozen
    # (its forked workers inherit them frozen too; bench/RESULTS.md "batch-speed-3")
    with long_lived_setup():
        from netopsai.batch import cli_main
        from netopsai.copilot.frontend import store_engine

    # checks trace through the configured paths backend (netopsai.copilot.frontend; the lab by default)
    results = cli_main(store_engine(), file, out=out, as_json=as_json, resume=resume,
                       concurrency=concurrency, source=source, summary=summary,
                       ray=ray_choice(engine, address), record=record)
    if any(r.status != "reachable" for r in results):
        raise typer.Exit(1)


def serve_cmd(host: Annotated[str, typer.Option(help="Address to bind")] = "127.0.0.1",
              port: Annotated[int, typer.Option(help="Port")] = 7860) -> None:
    """The Gradio web app on the configured backends (the embedded lab, built on first run, by default)."""
    from netopsai.launch.serving import owner_socket
    from netopsai.ui.gradio.app import serve

    serve(host=host, port=check_port(port), beside=owner_socket)


def slack_cmd(http: Annotated[bool, typer.Option("--http", help="HTTP mode instead of Socket Mode")] = False,
              host: Annotated[str, typer.Option(help="HTTP mode: address to bind")] = "127.0.0.1",
              port: Annotated[int, typer.Option(help="HTTP mode: port")] = 3000) -> None:
    """The Slack bot (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET; SLACK_APP_TOKEN for Socket Mode)."""
    from netopsai.ui.slack.app import main as slack_main

    slack_main(http=http, host=host, port=check_port(port))


def check_port(port: int) -> int:
    """A TCP port to listen on, checked before anything starts (0: any free port)."""
    if not 0 <= port <= 65535:
        raise NetopsError(f"--port {port} is not a port (0-65535)")
    return port
