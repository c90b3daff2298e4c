"""Printing text that came from the network or the store (syslog, descriptions, alarm names,
who acknowledged what, a device's config): its control characters made visible
(netopsai.common.textsafe), so an ESC sequence cannot clear or retitle the on-call's terminal and a
CR/LF inside one message cannot forge a line of output. Light on purpose (textsafe only; typer
when echoing): every command group imports it at start-up, and the thin `ask` prints through
thin_text, where `lines` and `headline_line` live."""

from __future__ import annotations

from netopsai.cli.thin_text import headline_line, lines
from netopsai.common.textsafe import visible

__all__ = ["echo", "headline_line", "lines", "markup"]


def echo(text: object, err: bool = False) -> None:
    """typer.echo for text that carries network or stored text."""
    import typer

    typer.echo(lines(text), err=err)


def markup(text: object) -> str:
    """One value to put inside a rich markup string: one line, visible, its brackets escaped
    (so "[red]" in a message is printed as it is, not read as a style)."""
    from rich.markup import escape

    return escape(visible(str(text)))
