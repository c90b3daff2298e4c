"""The ingest writer's look-up of the open alarms of a batch's keys on PostgreSQL (issue 28
item 1): it finds the latest open alarm of each key, and the server can only answer it with
point look-ups — a scan of every open alarm (the plan a storm's store got while its tables were
young: 80 % of the server's time) or of the whole rawevent table is not one of its plans."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, text

from netopsai.store.alarmbook import _OPEN_ALARMS, AlarmBook
from netopsai.store.apply import ALARMS, RAW
from netopsai.store.bulk import insert_rows
from netopsai.store.engine import create_all
from netopsai.store.writing import writer_engine
from netopsai_testkit.peers.postgres import fresh_database, pg_url  # noqa: F401

T0 = datetime(2026, 11, 23, 3, 0, tzinfo=UTC)
PORTS = 3000  # enough rows that a scan of a table is dearer than a probe per key


def _alarm(i: int, state: str, at: datetime) -> dict[str, Any]:
    return {"kind": "LINK_DOWN", "category": "link", "severity": "major", "device": "leaf1",
            "interface": f"Ethernet{i}", "link_id": None, "site": "", "raised_at": at,
            "cleared_at": None if state == "open" else at, "state": state, "message": "down",
            "neighbor": None, "source": "syslog", "impact": "none", "traffic_lost": False}


def _raw(i: int, alarm_id: int | None, key: str | None, at: datetime) -> dict[str, Any]:
    return {"received_at": at, "at": at, "device_time": None, "skew_s": None, "source": "syslog",
            "host": "10.0.0.1", "hostname": "leaf1", "device": "leaf1", "interface": f"Ethernet{i}",
            "program": None, "mnemonic": "LINK-3-UPDOWN", "facility": None, "severity": None,
            "message": "down", "kind": "LINK_DOWN" if key else None, "key": key,
            "alarm_id": alarm_id, "count": 1, "fingerprint": f"f{i}-{at:%s}"}


def _key(i: int) -> str:
    return f"LINK_DOWN|leaf1|Ethernet{i}"


@pytest.fixture
def store(pg_url: str, request: pytest.FixtureRequest) -> Iterator[Engine]:  # noqa: F811
    """A young store, never analysed: port i has an open alarm (i even) or a closed one (i
    odd), raised by one row of its key, and a note with no key; port 0 was raised twice, the
    second time after the first was cleared; no statistics, as in the first minute of a storm."""
    engine = writer_engine(fresh_database(pg_url, f"openalarms_{request.node.name[5:40]}"))
    create_all(engine)
    with engine.begin() as conn:
        alarms = [_alarm(i, "open" if i % 2 == 0 else "closed", T0) for i in range(PORTS)]
        alarms.append(_alarm(0, "closed", T0 - timedelta(hours=1)))  # port 0's earlier raise
        ids = insert_rows(conn, ALARMS, alarms)
        rows = [_raw(i, ids[i], _key(i), T0) for i in range(PORTS)]
        rows.append(_raw(0, ids[-1], _key(0), T0 - timedelta(hours=1)))
        rows += [_raw(PORTS + i, None, None, T0) for i in range(PORTS)]
        insert_rows(conn, RAW, rows)
    try:
        yield engine
    finally:
        engine.dispose()


def test_the_latest_open_alarm_of_each_key_is_found(store: Engine) -> None:
    wanted = [_key(i) for i in range(0, 40)] + ["LINK_DOWN|leaf1|nowhere"]
    with store.begin() as conn:
        book = AlarmBook(conn)
        book.prefetch(wanted)
        by_id = {r.id: r for r in conn.execute(text("SELECT id, interface, state FROM alarm"))}
        for i in range(0, 40):
            found = book.get(_key(i))
            assert book.known(_key(i))
            if i % 2:
                assert found is None  # its only alarm is closed
            else:
                assert found is not None and by_id[found[0]].state == "open"
                assert by_id[found[0]].interface == f"Ethernet{i}"
        assert book.known("LINK_DOWN|leaf1|nowhere") and book.get("LINK_DOWN|leaf1|nowhere") is None


def _scans(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if plan.get("Relation Name") in ("rawevent", "alarm"):
        yield plan
    for child in plan.get("Plans", []):
        yield from _scans(child)


def test_only_point_look_ups_answer_it_on_a_young_store(store: Engine) -> None:
    query, param = _OPEN_ALARMS["postgresql"]
    keys = [_key(i) for i in range(0, 1000, 2)]
    with store.begin() as conn:
        compiled = query.compile(dialect=conn.dialect)
        params = {**compiled.params, "keys": param(keys)}
        (plan,) = conn.exec_driver_sql(f"EXPLAIN (FORMAT JSON) {compiled}", params).one()
    plan = plan if isinstance(plan, list) else json.loads(plan)
    scans = list(_scans(plan[0]["Plan"]))
    assert {s["Relation Name"] for s in scans} == {"rawevent", "alarm"}
    for s in scans:  # an index searched by a key or an id, never a table or index read whole
        assert s["Node Type"] in ("Index Scan", "Index Only Scan", "Bitmap Heap Scan"), s
        assert "Index Cond" in s or "Recheck Cond" in s, s
