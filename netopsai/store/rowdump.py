"""A stored object as a plain row, its keys in the table's declared column order.

`model_dump()` on a table object follows the instance's `__dict__`, which SQLAlchemy fills in
the order it loaded the attributes — a set's order, so it changes with the process's hash seed,
and again after an expire/refresh. The rows reach answers and evidence tables as they are, so
a row's key order must not depend on that: it is the table's, the same order a plain result
row (`select(*table.c)`) already has.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlmodel import SQLModel


def column_row(obj: SQLModel, exclude: Collection[str] = ()) -> dict[str, Any]:
    """obj's columns, in declared order, less `exclude` (getattr loads any expired one)."""
    columns = type(obj).__table__.columns.keys()  # type: ignore[attr-defined]
    return {c: getattr(obj, c) for c in columns if c not in exclude}
