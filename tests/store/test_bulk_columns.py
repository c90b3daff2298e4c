"""store/bulk.py keeps what an insert needs per table AND column set (the INSERT text, which
columns are times): two batches into one table with other columns, or the same columns in
another order, must each land in their own columns with their times written as times."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, create_engine, text

from netopsai.store.bulk import insert_plain, insert_rows

T1 = datetime(2026, 11, 28, 0, 45, 1, tzinfo=UTC)
T2 = datetime(2026, 11, 28, 0, 45, 2, tzinfo=UTC)


def _table() -> Table:
    return Table("ev", MetaData(), Column("id", Integer, primary_key=True),
                 Column("name", String), Column("at", DateTime), Column("seen", DateTime),
                 Column("note", String))


def test_each_column_set_gets_its_own_insert(tmp_path: Path) -> None:
    table = _table()
    engine = create_engine(f"sqlite:///{tmp_path / 'b.db'}")
    try:
        table.metadata.create_all(engine)
        with engine.begin() as conn:
            ids = insert_rows(conn, table, [{"name": "a", "at": T1, "note": "x"}])
            insert_plain(conn, table, [{"seen": T2, "name": "b"}])  # other columns, a time first
            insert_plain(conn, table, [{"note": "y", "at": None, "name": "c", "seen": T1}])
            rows = list(conn.execute(text("SELECT name, at, seen, note FROM ev ORDER BY name")))
    finally:
        engine.dispose()
    assert ids == [1]
    assert [tuple(r) for r in rows] == [
        ("a", "2026-11-28 00:45:01.000000", None, "x"),
        ("b", None, "2026-11-28 00:45:02.000000", None),
        ("c", None, "2026-11-28 00:45:01.000000", "y")]
