"""Evidence rendered for a terminal (rich)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from netopsai.evidence import Evidence

MAX_ROWS = 40


def _cell(v: Any) -> str:
    if isinstance(v, list):
        text = ", ".join(str(x) for x in v[:6]) + (f" (+{len(v) - 6})" if len(v) > 6 else "")
        return text
    return "" if v is None else str(v)


def render_evidence(ev: Evidence, console: Console) -> None:
    console.print(f"[bold][{ev.id}] {ev.tool}[/bold] {ev.args}")
    if ev.window:
        console.print(f"window {ev.window['start']} .. {ev.window['end']}")
    if ev.rows:
        table = Table(*ev.columns, show_lines=False, header_style="bold cyan")
        for row in ev.rows[:MAX_ROWS]:
            table.add_row(*(_cell(row.get(c)) for c in ev.columns))
        console.print(table)
        if len(ev.rows) > MAX_ROWS:
            console.print(f"... {len(ev.rows) - MAX_ROWS} more rows (use --json for all)")
    console.print(ev.summary)
