"""Evidence rendered for a terminal (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from netopsai.evidence import Evidence, cell_text

MAX_ROWS = 40


def render_evidence(ev: Evidence, console: Console) -> None:
    console.print(f"[bold][{ev.id}] {ev.tool}[/bold] {ev.args}")
    if ev.window:
        console.print(f"window {ev.window['start']} .. {ev.window['end']}")
    if ev.rows:
        table = Table(*ev.columns, show_lines=False, header_style="bold cyan")
        for row in ev.rows[:MAX_ROWS]:
            table.add_row(*(cell_text(row.get(c)) for c in ev.columns))
        console.print(table)
        if len(ev.rows) > MAX_ROWS:
            console.print(f"... {len(ev.rows) - MAX_ROWS} more rows (use --json for all)")
    console.print(ev.summary)
