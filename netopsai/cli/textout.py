"""Printing text that came from the network or the store (syslog, descriptions, alarm names,
who acknowledged what, a device's config): its control characters made visible
(netopsai.common.textsafe), so an ESC sequence cannot clear or retitle the on-call's terminal and a
CR/LF inside one message cannot forge a line of output. Light on purpose (typer and textsafe
only): every command group imports it at start-up."""

from __future__ import annotations

import typer

from netopsai.common.textsafe import visible


def lines(text: object) -> str:
    """Text of several lines (an answer, a config diff) for a terminal or a file: its line
    breaks (LF, CR LF) kept, every other control character made visible (a lone CR too: it
    would overwrite the line it ends)."""
    return "\n".join(visible(line) for line in str(text).replace("\r\n", "\n").split("\n"))


def echo(text: object, err: bool = False) -> None:
    """typer.echo for text that carries network or stored text."""
    typer.echo(lines(text), err=err)


def markup(text: object) -> str:
    """One value to put inside a rich markup string: one line, visible, its brackets escaped
    (so "[red]" in a message is printed as it is, not read as a style)."""
    from rich.markup import escape

    return escape(visible(str(text)))


def headline_line(answer: object) -> str:
    """An answer's headline (netopsai.copilot.headline: the line the web app pins and Slack posts
    first), one line and visible, for the first line a terminal prints; "" when it has none."""
    from netopsai.copilot.headline import headline

    return visible(headline(str(answer or "")))
