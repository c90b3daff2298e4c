"""Many rows into one table in one statement, their ids known: the ingest writer's inserts.

`INSERT ... RETURNING` with its ids in order is what SQLAlchemy does row by row on SQLite (it
cannot promise the order of a multi-row RETURNING there), so the writer reserves the ids first
and inserts them with the rows: on SQLite after the table's largest id (the writer's
transaction holds the write lock from its BEGIN IMMEDIATE, so nobody else inserts meanwhile),
one `executemany` on the driver's cursor; on PostgreSQL from the table's own sequence, then
one COPY (times as naive UTC, as the store keeps them)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, DateTime, Table, func, insert, select, text

_SEQUENCES: dict[str, str] = {}  # table -> its id sequence (PostgreSQL)


def insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> list[int]:
    """Insert `rows` (dicts with the same keys, without `id`); their ids, in order. Each row
    gets its `id`."""
    if not rows:
        return []
    dialect = conn.dialect.name
    if dialect not in ("postgresql", "sqlite"):  # any other database: its own RETURNING
        result = conn.execute(insert(table).returning(table.c.id, sort_by_parameter_order=True), rows)
        ids = [r[0] for r in result]
    elif dialect == "postgresql":
        ids = _reserve_pg(conn, table, len(rows))
    else:
        base = conn.execute(select(func.max(table.c.id))).scalar() or 0
        ids = list(range(base + 1, base + 1 + len(rows)))
    for row, row_id in zip(rows, ids, strict=True):
        row["id"] = row_id
    if dialect == "postgresql":
        _copy(conn, table, rows)
    elif dialect == "sqlite":
        _executemany_sqlite(conn, table, rows)
    return ids


def insert_plain(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert `rows` whose ids nobody needs back, the same fast ways."""
    if not rows:
        return
    if conn.dialect.name == "sqlite":
        _executemany_sqlite(conn, table, rows)
    elif conn.dialect.name == "postgresql":
        _copy(conn, table, rows)
    else:
        conn.execute(insert(table), rows)


def _reserve_pg(conn: Connection, table: Table, n: int) -> list[int]:
    seq = _SEQUENCES.get(table.name)
    if seq is None:
        seq = _SEQUENCES[table.name] = conn.execute(
            text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table.name}).scalar_one()
    rows = conn.execute(text("SELECT nextval(CAST(:s AS regclass)) FROM generate_series(1, :n)"),
                        {"s": seq, "n": n})
    return [int(r[0]) for r in rows]


def _copy(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    columns = list(rows[0])
    names = ", ".join(f'"{c}"' for c in columns)
    raw = conn.connection.driver_connection
    assert raw is not None
    times = _time_columns(table, columns)
    with raw.cursor() as cur, cur.copy(f'COPY "{table.name}" ({names}) FROM STDIN') as copy:
        for row in rows:
            values = [row[c] for c in columns]
            for i in times:
                values[i] = _plain(values[i])
            copy.write_row(values)


def _executemany_sqlite(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """One `executemany` on the driver's cursor, times written as SQLAlchemy's SQLite DATETIME
    writes them (`YYYY-MM-DD HH:MM:SS.ffffff`, UTC wall time)."""
    columns = list(rows[0])
    sql = (f'INSERT INTO "{table.name}" ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in columns)}) '
           f'VALUES ({", ".join("?" * len(columns))})')
    times = _time_columns(table, columns)
    params = []
    for row in rows:
        values = [row[c] for c in columns]
        for i in times:
            if values[i] is not None:
                values[i] = _sqlite_time(values[i])
        params.append(tuple(values))
    conn.exec_driver_sql(sql, params)


def _time_columns(table: Table, columns: list[str]) -> list[int]:
    """The positions of the time columns: DateTime, or a type built on it (sqlmodel's
    UTCDateTime is a TypeDecorator whose `impl` is the DateTime). Missed, a time would reach
    the driver as it is: sqlite3's own adapter then writes its offset (`+00:00`), which sorts
    before the same instant as SQLAlchemy writes it (`.000000`)."""
    return [i for i, c in enumerate(columns)
            if isinstance(getattr(table.c[c].type, "impl", table.c[c].type), DateTime)]


def _sqlite_time(value: datetime) -> str:
    """As SQLAlchemy writes a time into SQLite: UTC wall time, `YYYY-MM-DD HH:MM:SS.ffffff`."""
    offset = value.utcoffset()
    if offset:
        value = value - offset
    return value.isoformat(" ", "microseconds")[:26]


def _plain(value: datetime | None) -> datetime | None:
    """A time as the store keeps it (naive UTC)."""
    if value is not None and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value
