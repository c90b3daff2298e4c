"""A store's content compared across two ways of writing it (the poll's single writer and its
per-chunk writers): shared by tests/backends/snmp and bench/bench_poll_writers.py."""

from __future__ import annotations

from typing import Any

POLL_TABLES = ("device", "interface", "interfaceevent", "countersample", "snmpcounterstate")


def content(engine: Any, tables: tuple[str, ...] = POLL_TABLES) -> dict[str, list[tuple[str, ...]]]:
    """Each table's rows as sorted text tuples, without the surrogate `id` (parallel writers
    number their rows apart, and the order rows land in is theirs)."""
    from sqlalchemy import inspect, text

    out = {}
    with engine.connect() as conn:
        for table in tables:
            cols = [c["name"] for c in inspect(conn).get_columns(table) if c["name"] != "id"]
            rows = conn.execute(text(f"SELECT {', '.join(cols)} FROM {table}"))
            out[table] = sorted(tuple(str(v) for v in row) for row in rows)
    return out
