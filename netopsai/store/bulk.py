"""Many rows into one table in one statement, their ids known: the ingest writer's inserts.

`INSERT ... RETURNING` with its ids in order is what SQLAlchemy does row by row on SQLite (it
cannot promise the order of a multi-row RETURNING there), so the writer reserves the ids first
and inserts them with the rows: on SQLite after the table's largest id (the writer's
transaction holds the write lock from its BEGIN IMMEDIATE, so nobody else inserts meanwhile),
one `executemany` on the driver's cursor; on PostgreSQL from the table's own sequence, then
one COPY (times as naive UTC, as the store keeps them)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, DateTime, Table, func, insert, select, text

_SEQUENCES: dict[str, str] = {}  # table -> its id sequence (PostgreSQL)
# A UTC time's text (SQLite) or naive form (PostgreSQL), kept for the instants a storm repeats:
# a trap's receive time is also its row's `at`, its alarm's `raised_at` and its port event's
# `at`, and a device's seconds stamp many lines. Converting was 6 % of the writer's time (a
# few µs a value); a look-up here is a tenth of that. Only UTC values are kept: equal UTC
# times are the same instant, so the answer is a function of the key.
TIMES_KEPT = 4096


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
        base = conn.execute(_max_id(table)).scalar() or 0
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
    columns = tuple(rows[0])
    names = ", ".join(f'"{c}"' for c in columns)
    raw = conn.connection.driver_connection
    assert raw is not None
    with raw.cursor() as cur, cur.copy(f'COPY "{table.name}" ({names}) FROM STDIN') as copy:
        for values in _values(table, columns, rows, _plain):
            copy.write_row(values)


def _executemany_sqlite(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """One `executemany` on the driver's cursor, times written as SQLAlchemy's SQLite DATETIME
    writes them (`YYYY-MM-DD HH:MM:SS.ffffff`, UTC wall time)."""
    columns = tuple(rows[0])
    conn.exec_driver_sql(_insert_sql(table, columns), _values(table, columns, rows, _sqlite_time))


# What a batch's inserts need of its table and columns, made once: a writer that keeps up
# commits small batches, and building these per batch (a SELECT max(id) statement compiled
# through SQLAlchemy's cache, the time columns found by type, the INSERT text) cost ~0.3 ms a
# batch, a tenth of a 100-event batch's Python.
@lru_cache(maxsize=64)
def _max_id(table: Table) -> Any:
    return select(func.max(table.c.id))


@lru_cache(maxsize=64)
def _insert_sql(table: Table, columns: tuple[str, ...]) -> str:
    return (f'INSERT INTO "{table.name}" ({", ".join(f"{chr(34)}{c}{chr(34)}" for c in columns)}) '
            f'VALUES ({", ".join("?" * len(columns))})')


def _values(table: Table, columns: tuple[str, ...], rows: list[dict[str, Any]],
            time: Any) -> list[tuple[Any, ...]]:
    """Each row's values in the order of `columns`, its times (not None) through `time`.
    Turned into columns and back (zip, in C) so that only the time columns are walked in
    Python: a list and a tuple built per row, and a loop over its time columns, were a tenth
    of the writer's time in a storm."""
    times = _time_columns(table, columns)
    get = itemgetter(*columns) if len(columns) > 1 else (lambda row: (row[columns[0]],))
    if not times:
        return [get(row) for row in rows]
    by_column: list[Any] = list(zip(*map(get, rows), strict=True))
    for i in times:
        by_column[i] = [None if v is None else time(v) for v in by_column[i]]
    return list(zip(*by_column, strict=True))


@lru_cache(maxsize=64)
def _time_columns(table: Table, columns: tuple[str, ...]) -> tuple[int, ...]:
    """The positions of the time columns: DateTime, or a type built on it (sqlmodel's
    UTCDateTime is a TypeDecorator whose `impl` is the DateTime). Missed, a time would reach
    the driver as it is: sqlite3's own adapter then writes its offset (`+00:00`), which sorts
    before the same instant as SQLAlchemy writes it (`.000000`)."""
    return tuple(i for i, c in enumerate(columns)
                 if isinstance(getattr(table.c[c].type, "impl", table.c[c].type), DateTime))


def _sqlite_time(value: datetime) -> str:
    """As SQLAlchemy writes a time into SQLite: UTC wall time, `YYYY-MM-DD HH:MM:SS.ffffff`."""
    if value.tzinfo is UTC:
        return _utc_text(value)
    return _wall_text(value)


def _wall_text(value: datetime) -> str:
    offset = value.utcoffset()
    if offset:
        value = value - offset
    return value.isoformat(" ", "microseconds")[:26]


_utc_text = lru_cache(maxsize=TIMES_KEPT)(_wall_text)


def _plain(value: datetime) -> datetime:
    """A time as the store keeps it (naive UTC)."""
    if value.tzinfo is UTC:
        return _utc_naive(value)
    if value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


@lru_cache(maxsize=TIMES_KEPT)
def _utc_naive(value: datetime) -> datetime:
    return value.replace(tzinfo=None)
