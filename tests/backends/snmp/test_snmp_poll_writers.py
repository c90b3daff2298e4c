"""Per-chunk poll writers (backends/snmp/writers.py): two rounds of a generated fleet (ports
going down, counters moving and wrapping, an agent restarting, an unreachable device, one
device answering on two targets) stored by parallel writers leave the store exactly as the
single writer does, on SQLite and on PostgreSQL; chunks are in the store before the round
ends; a writer's failure reaches the caller; no thread or descriptor outlives a round."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.poller import PollReport, ensure_real_store, store_readings
from netopsai.backends.snmp.walk import DeviceReading, IfReading
from netopsai.backends.snmp.writers import PollWriters, default_writers, shard_of
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.postgres import fresh_database, pg_url
from netopsai_testkit.stores import content

__all__ = ["pg_url"]
T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
DEVICES, PORTS = 30, 6


def target(i: int, name: str = "") -> SnmpTarget:
    return SnmpTarget(host="127.0.0.1", port=20000 + i, name=name,
                      auth=SnmpAuth(community=SecretStr(f"c{i}")))


def reading(i: int, rnd: int) -> DeviceReading:
    """Device i in round rnd (0 or 1). Round 1 moves every counter, takes port 2 of every third
    device down, wraps device 4's 32-bit error counter and restarts device 5's agent."""
    at = T0 + timedelta(minutes=5 * rnd, seconds=i)
    uptime = 8_640_000 + 30_000 * rnd if i != 5 or rnd == 0 else 1_000
    r = DeviceReading(target=target(i), at=at, ok=True, sys_name=f"gen-{i:02d}",
                      sys_descr="Cisco NX-OS(tm) n9000, Version 10.2(5)", uptime_cs=uptime)
    for p in range(1, PORTS + 1):
        down = rnd == 1 and i % 3 == 0 and p == 2
        errors = (2**32 - 10 if rnd == 0 else 5) if i == 4 else 7 * rnd
        r.interfaces[p] = IfReading(
            index=p, name=f"Ethernet{p}", descr=f"Ethernet{p}", admin="up",
            oper="down" if down or (i == 7 and p == 3) else "up", speed_mbps=10_000,
            in_octets=10**6 * p + rnd * 37_000 * (i + 1), out_octets=5 * 10**5 * p + rnd * 11_000,
            in_errors=errors, in_discards=rnd, out_discards=0)
    return r


def round_of(rnd: int) -> list[DeviceReading]:
    out = [reading(i, rnd) for i in range(DEVICES)]
    out.append(DeviceReading(target=target(90, name="gone-01"), at=T0, error="no answer"))
    twin = reading(11, rnd)  # a second target answering with device 11's sysName
    twin.target, twin.uptime_cs = target(91), (twin.uptime_cs or 0) + 5
    out.insert(3, twin)  # before the first: the order decides the final row
    return out


def store(url: str) -> Engine:
    engine = engine_for(url)
    ensure_real_store(engine)
    with Session(engine) as s:  # the unreachable device was known before (configured)
        s.add(m.Device(name="gone-01", role="leaf", site="dc1", status="up"))
        s.commit()
    return engine


def summary(rep: PollReport) -> tuple[object, ...]:
    return rep.devices, rep.interfaces, rep.events, rep.samples, rep.restarted, rep.went_down


def parallel(engine: Engine, readings: list[DeviceReading], writers: int, chunk: int = 4,
             order: list[int] | None = None) -> PollReport:
    """Fed out of order, as answers arrive, then closed."""
    with PollWriters(engine, len(readings), writers, 0, chunk=chunk) as w:
        for i in order or list(reversed(range(len(readings)))):
            w.feed(i, readings[i])
        return w.close(readings)


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def same_as_single_writer(single: Engine, multi: Engine, writers: int) -> None:
    threads = threading.active_count()
    for rnd in (0, 1):
        one = store_readings(single, round_of(rnd), sample_every=0)
        many = parallel(multi, round_of(rnd), writers)
        assert summary(many) == summary(one)
    assert content(multi) == content(single)
    assert threading.active_count() == threads
    rows = content(multi)
    # the fleet did what it should, so the equality above compares something
    assert len(rows["countersample"]) == (DEVICES - 1) * PORTS  # device 5 restarted: no sample
    assert ("gen-11", "Ethernet1") in {r[:2] for r in rows["interface"]}
    assert one.restarted == ["gen-05", "gen-11"] and len(one.went_down) == 10  # 11: its twin
    with Session(multi) as s:
        assert (gone := s.get(m.Device, "gone-01")) is not None and gone.status == "unreachable"


def test_sqlite_one_writer_per_chunk_equals_the_single_writer(tmp_path: Path) -> None:
    single = store(f"sqlite:///{tmp_path / 'single.db'}")
    multi = store(f"sqlite:///{tmp_path / 'multi.db'}")
    before = fds()
    same_as_single_writer(single, multi, writers=4)  # capped at one on SQLite
    assert default_writers(multi) == 1 and default_writers(engine_for("sqlite://")) == 0
    for eng in (single, multi):
        eng.dispose()
    assert fds() <= before


@pytest.mark.integration
def test_postgresql_sharded_writers_equal_the_single_writer(pg_url: str) -> None:  # noqa: F811
    single = store(fresh_database(pg_url, "poll_single"))
    multi = store(fresh_database(pg_url, "poll_multi"))
    shards = {shard_of(r.device, 4) for r in round_of(0)}
    assert len(shards) == 4  # the fleet spreads over every writer
    try:
        same_as_single_writer(single, multi, writers=4)
        assert default_writers(multi) == 4
    finally:
        single.dispose()
        multi.dispose()


def test_released_chunks_are_stored_before_the_round_ends(tmp_path: Path) -> None:
    """The single writer stores nothing until the whole round is read; here a chunk is
    written as soon as all its readings are in, and chunks go in the targets' order."""
    engine = store(f"sqlite:///{tmp_path / 'early.db'}")
    readings = round_of(0)
    with PollWriters(engine, len(readings), 1, 0, chunk=4) as w:
        for i in range(8, len(readings)):  # all but the first two chunks
            w.feed(i, readings[i])
        w.flush()
        assert stored(engine) == set()  # held back behind chunk 0
        for i in range(4):
            w.feed(i, readings[i])
        w.flush()
        assert stored(engine) == {r.device for r in readings[:4] if r.ok}
        for i in range(4, 8):
            w.feed(i, readings[i])
        w.flush()
        assert stored(engine) == {r.device for r in readings if r.ok}
        rep = w.close(readings)
    assert rep.devices == sum(r.ok for r in readings)
    engine.dispose()


def stored(engine: Engine) -> set[str]:
    with Session(engine) as s:
        return {d.name for d in s.exec(select(m.Device)) if d.name.startswith("gen-")}


@pytest.fixture
def broken(tmp_path: Path) -> Iterator[Engine]:
    engine = engine_for(f"sqlite:///{tmp_path / 'broken.db'}")  # no schema: every write fails
    yield engine
    engine.dispose()


def test_a_writer_failure_reaches_the_caller_and_no_thread_is_left(broken: Engine) -> None:
    threads = threading.active_count()
    readings = round_of(0)
    with pytest.raises(Exception, match="no such table"):
        parallel(broken, readings, 1)
    assert threading.active_count() == threads


def test_a_failed_read_ends_the_writers(tmp_path: Path) -> None:
    engine = store(f"sqlite:///{tmp_path / 'cut.db'}")
    threads = threading.active_count()
    readings = round_of(0)
    with pytest.raises(KeyboardInterrupt), PollWriters(engine, len(readings), 1, 0, chunk=4) as w:
        for i in range(6):
            w.feed(i, readings[i])
        raise KeyboardInterrupt
    assert threading.active_count() == threads
    assert stored(engine) == {r.device for r in readings[:4]}  # the chunk complete at the stop
    engine.dispose()
