"""The one line and exit code a command ends with when it fails: shared by the full command line
(launch/app.py) and the thin front door of a plain `ask` (launch/thin.py), so both word a failure
alike. Light on purpose — no typer, no store: the thin path imports it before anything heavy."""

from __future__ import annotations

import re

from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible

NEW_STORE = ("error: the store has no {table} table yet (a new home or database): run "
             "'netopsai db upgrade' (or 'netopsai lab init' for the embedded lab)")


def missing_table(exc: BaseException) -> str | None:
    """The table a read found missing — SQLite's 'no such table: x', PostgreSQL's 'relation "x"
    does not exist' — when a command reads a store no migration has created yet; else None.
    Matched on the driver's words: the command line does not import the store (issue 27)."""
    if type(exc).__name__ not in ("OperationalError", "ProgrammingError"):
        return None
    text = str(exc)
    m = re.search(r"no such table: (\w+)", text) or re.search(r'relation "(\w+)" does not exist', text)
    return m.group(1) if m else None


def failure(exc: BaseException) -> tuple[str, int]:
    """(the line for stderr, the exit code) for an error no command handled itself."""
    if isinstance(exc, NetopsError):  # it may quote what was given or read: one line, visible
        return f"error: {visible(str(exc))}", 2
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", 130
    if (table := missing_table(exc)) is not None:
        return NEW_STORE.format(table=table), 2
    # last resort: still one line, and say it is our bug
    return f"internal error: {type(exc).__name__}: {visible(str(exc))}", 1
