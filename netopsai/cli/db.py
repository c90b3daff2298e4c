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
    from netopsai.copilot.frontend import store_engine
    from netopsai.store import migrate

    engine = store_engine()
    before = migrate.current(engine)
    after = migrate.upgrade(engine, explicit=True)
    typer.echo(f"schema at {after}" + ("" if before == after else f" (was {before or 'none'})"))


def current_cmd() -> None:
    """The store's schema revision and this release's."""
    from netopsai.copilot.frontend import store_engine
    from netopsai.store import migrate

    rev = migrate.current(store_engine())
    head = migrate.head()
    state = "up to date" if rev == head else "behind: run `netopsai db upgrade`"
    typer.echo(f"{rev or 'none'} (this release: {head}; {state})")


def history_cmd() -> None:
    """Every schema revision, oldest first."""
    from netopsai.store import migrate

    for rev, what in migrate.history():
        typer.echo(f"{rev}  {what}")


def prune_cmd(dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Count what would be removed; change nothing")] = False) -> None:
    """Apply config.yaml's `retention:` once: roll 5-minute counter samples past their days up
    into hourly figures, then remove them, old roll-ups, raw events, port transitions, closed
    alarms and recorded batch probes. ingest and poll also do this every `prune_every_minutes`."""
    from netopsai.config.load import load_netconfig
    from netopsai.copilot.frontend import store_engine
    from netopsai.store.retention import describe, prune

    settings = load_netconfig().settings
    for line in describe(prune(store_engine(), settings.retention, dry=dry_run),
                         settings.ingest.timezone):  # horizons on the network's clock
        typer.echo(line)
