"""The store readers on a cold `ask`'s path (the network's facts, the inventory's, the changes and
alarms) read with Core statements over the tables' columns, not ORM ones (issue 28 item 4: the
ORM's per-statement compile, and the first ORM query's mapping of all 28 tables, were ~25-35 ms
of a cold `ask`). In a fresh process the three bench questions are answered without the ORM
mapping a table; and on a lab with noise, on SQLite and on PostgreSQL, each reader returns what
the ORM's objects of the same rows give (the keys in the same order: answers are byte-stable)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, col, or_, select

from netopsai.common.errors import UnknownName
from netopsai.common.roles import HOST_ROLES
from netopsai.common.timewin import Window, as_utc, iso, iso_ms
from netopsai.lab.manage import init_lab, lab_info
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory, _cidr_key
from netopsai.store.network import _has_devices, _meta
from netopsai.store.rowdump import column_row
from netopsai_testkit.answers import lab_copilot
from netopsai_testkit.peers.postgres import fresh_database, pg_url  # noqa: F401

QUESTIONS = ("10.1.3.20 to 10.2.1.40 not communicating", "who owns 10.1.3.20?",
             "any alarms on dc1-leaf-03 in the last 2h?")
CHILD = """
import sys
from sqlmodel.main import default_registry
from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.store.engine import engine_for
copilot = Copilot(lab_backends(engine_for(sys.argv[1])))
for q in sys.argv[2:]:
    print(repr(copilot.answer(q, thread_id=q)["answer"][:300]))
print(default_registry._new_mappers)
from sqlmodel import Session, select
from netopsai.store import tables as m
with Session(engine_for(sys.argv[1])) as s:  # an ORM read maps the tables: the check can tell
    s.exec(select(m.Meta)).all()
print(default_registry._new_mappers)
"""


def test_a_cold_ask_reads_the_store_without_the_orm(lab_engine: Engine, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    out = subprocess.run([sys.executable, "-c", CHILD, str(lab_engine.url), *QUESTIONS],
                         capture_output=True, text=True, check=True, timeout=300,
                         env={**env, "NETOPSAI_HOME": str(tmp_path)}).stdout.splitlines()
    answers, unmapped, mapped = out[:3], out[3], out[4]
    assert "Reachable" in answers[0] and "dc1-host-03-1" in answers[1] and "dc1-leaf-03" in answers[2]
    assert unmapped == "True"  # no ORM statement ran: the 28 tables were never mapped
    assert mapped == "False"


@pytest.fixture(params=["sqlite", "postgresql"])
def noisy_lab(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A small lab with an ACL fault and noise (alarms, changes, flaps), on either database."""
    if request.param == "sqlite":
        engine = engine_for(f"sqlite:///{tmp_path / 'lab.db'}")
    else:
        engine = engine_for(fresh_database(request.getfixturevalue("pg_url"), request.node.originalname[:40]))
    init_lab(engine, "default", "small", 7, datetime(2026, 11, 20, 12, 0, tzinfo=UTC))
    lab_copilot(engine, [{"kind": "acl_block", "target": {"device": "dc1-leaf-03"},
                          "params": {"dst": "10.2.1.0/24"}}])
    yield engine
    engine.dispose()


def _orm(engine: Engine, model: Any) -> list[Any]:
    with Session(engine) as s:
        return list(s.exec(select(model)).all())


def _items(rows: list[dict[str, Any]]) -> list[list[tuple[str, Any]]]:
    return [list(r.items()) for r in rows]  # key order counts: rows reach answers as they are


def test_the_inventory_readers_equal_the_orms(noisy_lab: Engine) -> None:
    inv = StoreInventory(noisy_lab)
    devices, pods = _orm(noisy_lab, m.Device), _orm(noisy_lab, m.Pod)
    segments, hosts = _orm(noisy_lab, m.Segment), _orm(noisy_lab, m.HostAddress)
    assert _meta(noisy_lab) == {x.key: x.value for x in _orm(noisy_lab, m.Meta)}
    assert _has_devices(noisy_lab) and devices
    per_site = Counter((d.site, d.role in HOST_ROLES) for d in devices)
    assert _items(inv.sites()) == _items([
        {"site": x.name, "region": x.region, "pods": sum(p.site == x.name for p in pods),
         "network_devices": per_site[(x.name, False)], "hosts": per_site[(x.name, True)],
         "description": x.description}
        for x in sorted(_orm(noisy_lab, m.Site), key=lambda x: x.name)])
    roles = Counter((d.pod, d.role) for d in devices)
    site = pods[0].site
    assert _items(inv.pods(site)) == _items([
        {"pod": p.name, "site": p.site, "leafs": roles[(p.name, "leaf")], "spines": roles[(p.name, "spine")],
         "segments": sorted((g.cidr for g in segments if g.pod == p.name and g.site == site), key=_cidr_key)}
        for p in sorted(pods, key=lambda p: (p.site, p.index)) if p.site == site])
    assert len(inv.pods(None)) == len(pods)
    pod = pods[0]
    assert _items(inv.segments(pod.site, pod.name)) == _items(
        sorted((column_row(g) for g in segments if g.site == pod.site and g.pod == pod.name),
               key=lambda r: _cidr_key(r["cidr"])))
    assert sorted(_items(inv.hosts(None, None, None))) == sorted(_items([
        {"ip": h.ip, "name": h.device, "pod": h.pod, "segment": h.segment, "tor": h.tor,
         "tor_interface": h.tor_interface, "site": h.site} for h in hosts]))
    assert [d["name"] for d in inv.devices(None, None, None, None)] == sorted(
        d.name for d in devices if d.role not in HOST_ROLES)
    h = min(hosts, key=lambda h: h.ip)
    assert inv.ip_owner(h.ip) == {"ip": h.ip, "device": h.device, "role": "host", "interface": h.interface,
                                  "segment": h.segment, "tor": h.tor, "tor_interface": h.tor_interface,
                                  "pod": h.pod, "site": h.site}
    leaf = "dc1-leaf-03"  # the ACL fault's device
    with Session(noisy_lab) as s:  # the ORM's read of the same rows: the same order
        ifaces = list(s.exec(select(m.Interface).where(m.Interface.device == leaf)))
    links = [lk for lk in _orm(noisy_lab, m.Link) if leaf in (lk.a_device, lk.b_device)]
    assert _items(inv.interfaces(leaf)) == _items([column_row(i, exclude=("id", "link_id")) for i in ifaces])
    detail = inv.device(leaf)
    assert (detail["name"], detail["interfaces"], detail["links_down"]) == (
        leaf, len(ifaces), sum(lk.status != "up" for lk in links))
    assert sorted((n["interface"], n["neighbor"]) for n in inv.neighbors(leaf)) == sorted(
        (lk.a_interface, lk.b_device) if lk.a_device == leaf else (lk.b_interface, lk.a_device)
        for lk in links)
    assert {u["neighbor"] for u in inv.upstream(leaf, None)} == {
        n["neighbor"] for n in inv.neighbors(leaf) if "spine" in n["neighbor"]}
    acls = [a for a in _orm(noisy_lab, m.AclEntry) if a.device == leaf and a.action == "deny"]
    assert [(f["kind"], f["dst"]) for f in inv.filters(leaf)] == [("acl", a.dst) for a in acls] != []
    assert inv.spelled([leaf.upper()]) == {leaf.upper(): leaf}
    inv.check_names(devices=[d.name for d in devices], site=site, pod=pod.name, role="leaf")
    for kwargs, word in (({"site": "dc9"}, "site"), ({"pod": "nopod"}, "PoD"),
                         ({"devices": [devices[0].name + "x"]}, "device")):
        with pytest.raises(UnknownName, match=f"unknown {word} "):
            inv.check_names(**kwargs)


def test_the_changes_and_alarms_readers_equal_the_orms(noisy_lab: Engine) -> None:
    clock = lab_info(noisy_lab).clock
    window = Window(start=clock - timedelta(days=30), end=clock)
    events = StoreEvents(noisy_lab)

    def when(row: dict[str, Any], *cols: str) -> dict[str, Any]:
        return {k: iso(v) if k in cols and v is not None else v for k, v in row.items()}

    with Session(noisy_lab) as s:  # the ORM's reads of the same rows, in the same order
        changes = [when(column_row(c, exclude={"id"}), "start", "end") for c in s.exec(
            select(m.Change).where(col(m.Change.start) <= window.end, or_(
                col(m.Change.end).is_(None), col(m.Change.end) >= window.start)).order_by(
                col(m.Change.start).desc()))]
        orm_alarms = [when(column_row(a), "raised_at", "cleared_at") for a in s.exec(
            select(m.Alarm).where(col(m.Alarm.raised_at) <= window.end, or_(
                col(m.Alarm.cleared_at).is_(None), col(m.Alarm.cleared_at) >= window.start)).order_by(
                col(m.Alarm.raised_at).desc()))]
    assert changes and _items(events.changes(None, None, None, window)) == _items(changes)
    alarms = events.alarms(None, "any", None, None, window)
    assert len(alarms) == len(orm_alarms) > 0
    for got, orm in zip(alarms, orm_alarms, strict=True):  # the columns in order, then the peers'
        orm.pop("neighbor")
        assert list(got.items())[:len(orm)] == list(orm.items())
    assert any(a["peer"] for a in alarms)


def test_the_events_reader_equals_the_orms(noisy_lab: Engine) -> None:
    clock = lab_info(noisy_lab).clock
    with Session(noisy_lab) as s:  # a few received lines, one retransmitted (count 3)
        for i in range(6):
            at = clock - timedelta(minutes=10 * i)
            s.add(m.RawEvent(received_at=at, at=at if i % 2 else None, source="syslog", host="192.0.2.9",
                             hostname="DC1-LEAF-03", device="dc1-leaf-03" if i % 3 else None,
                             interface=f"Ethernet{i}", mnemonic="LINK-3-UPDOWN", message=f"line {i}",
                             count=3 if i == 2 else 1, skew_s=0.5 if i % 2 else None))
        s.commit()
        window = Window(start=clock - timedelta(hours=1), end=clock)
        when = func.coalesce(col(m.RawEvent.at), col(m.RawEvent.received_at))
        orm = list(reversed(s.exec(select(m.RawEvent).where(when >= window.start, when <= window.end)
                                   .order_by(when.desc())).all()))
        expected = [{"at": iso_ms(r.at or r.received_at), "device": r.device or r.hostname or r.host,
                     "interface": r.interface, "source": r.source, "mnemonic": r.mnemonic,
                     "kind": r.kind, "message": r.message, "count": r.count,
                     "received_at": iso(as_utc(r.received_at)), "skew_s": r.skew_s, "host": r.host}
                    for r in orm]
    rows, total = StoreEvents(noisy_lab).events(None, window)
    assert total == len(orm) == 6 and _items(rows) == _items(expected)
    assert [r["count"] for r in rows].count(3) == 1
    assert StoreEvents(noisy_lab).events(None, window, interface="Ethernet2")[0] == [expected[-3]]
