"""netopsai command group: report — the reliability report over a window (bad minutes per scope,
repeat offenders, time to repair, noise) as a table, JSON or CSV, and the weekly Slack digest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from netopsai.reliability.model import Report

FORMATS = ("table", "json", "csv")


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
    report = typer.Typer(no_args_is_help=True, help="Reports over the store's history.")
    app.add_typer(report, name="report")

    @report.command("reliability")
    def reliability_cmd(
            window: Annotated[str, typer.Option(help="e.g. 7d, 30d, or START..END")] = "30d",
            by: Annotated[str, typer.Option(help="pod | site | zone (the site's region)")] = "pod",
            fmt: Annotated[str, typer.Option("--format", help="table | json | csv")] = "table",
            out: Annotated[Path | None, typer.Option(help="Write here instead of stdout")] = None,
            slack: Annotated[bool, typer.Option(
                "--slack", help="Post the digest to reliability.digest_channel")] = False) -> None:
        """Bad minutes per PoD, site or zone; devices, links and optics with the most cases; time
        to repair (detected, acknowledged, mitigated, closed) with p50/p90 by category; alarms per
        case by day. The definitions are printed with it (config `reliability:`)."""
        from netopsai.common.errors import NetopsError
        from netopsai.config.load import load_netconfig
        from netopsai.copilot.frontend import store_engine
        from netopsai.reliability.export import to_csv, to_json
        from netopsai.reliability.run import reliability_report

        if fmt not in FORMATS:
            raise NetopsError(f"unknown format {fmt!r}; use {' | '.join(FORMATS)}")
        cfg = load_netconfig()
        rep = reliability_report(store_engine(), window, by, cfg.settings.reliability,
                                 cfg.settings.ingest.timezone)
        if slack:
            _post(rep, cfg.settings.reliability.digest_channel)
        text = to_json(rep) if fmt == "json" else to_csv(rep) if fmt == "csv" else None
        if out is not None:
            _write(out, text if text is not None else _table_text(rep))
        elif text is not None:
            typer.echo(text, nl=not text.endswith("\n"))
        elif not slack:
            from netopsai.reliability.text import print_report

            print_report(rep)


def _write(out: Path, text: str) -> None:
    from netopsai.common.errors import NetopsError

    try:
        out.write_text(text)
    except OSError as exc:
        raise NetopsError(f"cannot write {out}: {exc.strerror or exc}") from None


def _table_text(rep: Report) -> str:
    import io

    from rich.console import Console

    from netopsai.reliability.text import print_report

    buf = io.StringIO()
    print_report(rep, Console(file=buf, width=160, soft_wrap=True))
    return buf.getvalue()


def _post(rep: Report, channel: str | None) -> None:
    from netopsai.common.errors import NetopsError
    from netopsai.config.slack import SlackSettings
    from netopsai.reliability.digest import post_digest

    if not channel:
        raise NetopsError("no digest channel: set reliability.digest_channel in config.yaml")
    settings = SlackSettings()
    if settings.bot_token is None:
        raise NetopsError("no Slack token: set SLACK_BOT_TOKEN")
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    client = WebClient(token=settings.bot_token.get_secret_value(), base_url=settings.api_url)
    try:
        post_digest(client, channel, rep)
    except SlackApiError as exc:
        raise NetopsError(f"Slack refused the digest in {channel}: {exc.response.get('error')}") from None
    except OSError as exc:  # unreachable, refused, timed out (URLError is one)
        raise NetopsError(f"cannot reach Slack at {settings.api_url}: {exc}") from None
    typer.echo(f"digest posted to {channel}", err=True)
