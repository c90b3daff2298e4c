"""Evidence rendered for a terminal (rich), or for a script (CSV, or a table at full width).

On a terminal a table fits the window and shows its first MAX_ROWS rows; into a pipe or a file
nothing is cut: every row, every cell whole, as wide as the data.

Network text (syslog, descriptions, alarm names) is untrusted: every cell, summary and line
printed here has its control characters made visible (netopsai.common.textsafe), so an ESC sequence
cannot clear or retitle the on-call's terminal and a CR/LF inside a message cannot forge a row;
and it reaches rich as Text, never as markup, so "[red]" in a message is printed as it is."""

from __future__ import annotations

import csv
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from netopsai.cli.textout import markup
from netopsai.cli.thin_text import ASK_PICK, answer_parts, piped
from netopsai.common.localtime import when
from netopsai.common.textsafe import visible
from netopsai.copilot.evidence import Evidence, cell_text

MAX_ROWS = 40
PIPE_WIDTH = 100_000  # not a terminal: no wrapping, no ellipsis


def out_console() -> Console:
    """stdout as rich sees it: the terminal's width, or unlimited when piped."""
    return Console() if sys.stdout.isatty() else Console(width=PIPE_WIDTH, soft_wrap=True)


def cell(value: Any) -> Text:
    """One table cell as rich prints it: visible, and Text so that no markup is read in it."""
    return Text(visible(cell_text(value)))


def write_csv(ev: Evidence, out: TextIO) -> None:
    """Every row and column of the evidence, as CSV (cells as the tables show them: a line
    break inside a message is a mark, so each record is one physical line)."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow([visible(c) for c in ev.columns])
    for row in ev.rows:
        w.writerow([visible(cell_text(row.get(c), 100_000)) for c in ev.columns])


def render_evidence(ev: Evidence, console: Console, zone: str = "UTC") -> None:
    """The call, its window on the network's clock (`zone`, UTC beside: read by a person), the
    rows as a table (as the tool wrote them: ISO UTC) and the summary."""
    console.print(f"[bold]\\[{ev.id}] {markup(ev.tool)}[/bold] {markup(ev.args)}")
    if ev.window:
        console.print(f"window {markup(when(ev.window.get('start'), ev.window.get('end'), zone))}")
    if ev.rows:
        from netopsai.copilot.doors import tool_catalog

        tool = tool_catalog().get(ev.tool)
        cols = [c for c in (tool.shown_columns(ev) if tool else ev.columns)
                if any(c in r for r in ev.rows[:MAX_ROWS])] or ev.columns
        shown = MAX_ROWS if console.is_terminal else len(ev.rows)
        table = Table(*(markup(c) for c in cols), show_lines=False, header_style="bold cyan")
        for row in ev.rows[:shown]:
            table.add_row(*(cell(row.get(c)) for c in cols))
        console.print(table)
        hidden = len(ev.columns) - len(cols)
        if len(ev.rows) > shown or hidden > 0:
            more = [f"{len(ev.rows) - shown} more rows"] if len(ev.rows) > shown else []
            more += [f"{hidden} more columns"] if hidden > 0 else []
            console.print(f"... {' and '.join(more)} (--format csv or --json for all)")
    console.print(Text(visible(ev.summary)))


def print_answer(answer: str, console: Console | None = None, *,
                 pick: str = ASK_PICK) -> list[str]:
    """An answer for a person or a script: its headline first (the same line the web app pins
    and Slack posts first), then the answer. A terminal gets the headline in bold and the
    answer as rendered markdown; a pipe gets the headline as its first line, a blank line, and
    the markdown itself (nothing wrapped, padded or cut). A question not placed is its line and
    a numbered list of examples (returned, so `chat` can ask one by its number)."""
    head, body, short, shown = answer_parts(answer, pick)
    if console is None and not sys.stdout.isatty():
        sys.stdout.write(piped(head, body))
        sys.stdout.flush()
        return shown
    from rich.markdown import Markdown

    console = console or Console()
    if head:
        console.print(Text(f"» {head}", style="bold"))
    console.print(Text(body) if short else Markdown(body))
    return shown
