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
        from netopsai.tools.registry import REGISTRY

        tool = REGISTRY.get(ev.tool)
        cols = [c for c in (tool.shown_columns(ev) if tool else ev.columns)
                if any(c in r for r in ev.rows[:MAX_ROWS])] or ev.columns
        table = Table(*cols, show_lines=False, header_style="bold cyan")
        for row in ev.rows[:MAX_ROWS]:
            table.add_row(*(cell_text(row.get(c)) for c in cols))
        console.print(table)
        hidden = len(ev.columns) - len(cols)
        if len(ev.rows) > MAX_ROWS or hidden > 0:
            more = [f"{len(ev.rows) - MAX_ROWS} more rows"] if len(ev.rows) > MAX_ROWS else []
            more += [f"{hidden} more columns"] if hidden > 0 else []
            console.print(f"... {' and '.join(more)} (use --json for all)")
    console.print(ev.summary)
