"""netopsai command group: config (registered by netopsai.cli)."""

from __future__ import annotations

import typer


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add this group's commands; heavy imports stay inside the commands."""
