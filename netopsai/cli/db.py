"""netopsai command group: db — the store's schema version (Alembic)."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    db = typer.Typer(no_args_is_help=True, help=(
        "The store: its schema (upgrade, current, history), its history's retention (prune)."))
    app.add_typer(db, name="db")
    db.command("upgrade")(upgrade_cmd)
    db.command("current")(current_cmd)
    db.command("history")(history_cmd)
    db.command("prune")(prune_cmd)


def upgrade_cmd() -> None:
    """Bring the store (NETOPSAI_HOME or DATABASE_URL) to this release's schema, keeping every
    row. SQLite stores do this by themselves when opened; a PostgreSQL store needs it once per
    release."""
    from netopsai.copilot.admin import schema_revision, schema_upgrade
    from netopsai.copilot.frontend import store_engine

    engine = store_engine()
    before = schema_revision(engine)
    after = schema_upgrade(engine)
    typer.echo(f"schema at {after}" + ("" if before == after else f" (was {before or 'none'})"))


def current_cmd() -> None:
    """The store's schema revision and this release's."""
    from netopsai.copilot.admin import schema_head, schema_revision
    from netopsai.copilot.frontend import store_engine

    rev = schema_revision(store_engine())
    head = schema_head()
    state = "up to date" if rev == head else "behind: run `netopsai db upgrade`"
    typer.echo(f"{rev or 'none'} (this release: {head}; {state})")


def history_cmd() -> None:
    """Every schema revision, oldest first."""
    from netopsai.copilot.admin import schema_history

    for rev, what in schema_history():
        typer.echo(f"{rev}  {what}")


def prune_cmd(dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Count what would be removed; change nothing")] = False) -> None:
    """Apply config.yaml's `retention:` once: roll 5-minute counter samples past their days up
    into hourly figures, then remove them, old roll-ups, raw events, port transitions, closed
    alarms and recorded batch probes. ingest and poll also do this every `prune_every_minutes`."""
    from netopsai.config.load import load_netconfig
    from netopsai.copilot.admin import prune_lines
    from netopsai.copilot.frontend import store_engine

    settings = load_netconfig().settings
    for line in prune_lines(store_engine(), settings.retention,
                            settings.ingest.timezone, dry_run):  # horizons on the network's clock
        typer.echo(line)
