"""Ingest at storm rate (issue 28 item 1), what the counters and the batches promise: every
datagram sent is either received or counted as dropped by the kernel; batches write each line
exactly once, and a stop drains the spool; datagrams that are not well-formed syslog stay data;
times written in batches read back as the same instants the ORM would have written. No timing
here: speed is bench/bench_ingest_storm.py's."""

from __future__ import annotations

import socket
import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from sqlmodel import Session, col, select

from netopsai.backends.ingest_stats import line, prometheus, snapshot
from netopsai.backends.syslog.receiver import SyslogContext, parser
from netopsai.backends.udp import Datagrams
from netopsai.store import tables as m
from netopsai.store.apply import Event
from netopsai.store.spool import Spool
from netopsai.store.writer import BATCH, QueuedWriter
from tests.ingest_helpers import fresh_url, raw_events, running, settle, wait_until

T0 = datetime(2026, 11, 23, 3, 10, tzinfo=UTC)


def _line(i: int) -> bytes:
    return b"<190>Nov 23 03:10:00 leaf%d Sysdb: %%SYS-6-LOGMSG_INFO: note %d" % (i % 50, i)


def test_every_datagram_is_received_or_counted_as_a_kernel_drop(tmp_path: Path) -> None:
    """The reading thread is held while a burst overflows a small receive buffer: the kernel
    drops some and holds the rest, the ingest counts both (its /proc/net/udp row), and once the
    thread goes on, what it received and what the kernel dropped add up to what was sent."""
    engine, url = fresh_url(tmp_path)
    n = 3000
    gate = threading.Event()
    with running(url, webhook_port=None, trap_port=None, spool=tmp_path / "spool") as ingest:
        assert ingest.syslog is not None
        intake = ingest.syslog.intake
        assert intake.sock is not None
        take = intake.take

        def held(batch: Datagrams) -> int:
            gate.wait(60)
            return take(batch)

        intake.take = held
        intake.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for i in range(n):
                sock.sendto(_line(i), ("127.0.0.1", ingest.syslog.port))
        dropped = intake.kernel_drops()
        assert dropped > 0, "a burst larger than the buffer must overflow it"
        held_snap = snapshot(ingest)  # the kernel's backlog, before the thread reads it
        gate.set()
        wait_until(lambda: intake.received + intake.kernel_drops() >= n, "the queue drained", 60)
        settle(ingest, intake.received)
        snap = snapshot(ingest)
    assert snap["syslog_kernel_drops"] == dropped  # no more after the burst
    assert snap["syslog_received"] + snap["syslog_kernel_drops"] == n
    assert snap["written"] == snap["syslog_received"] == len(raw_events(engine, "syslog"))
    assert snap["backlog"] == 0
    assert held_snap["syslog_kernel_queue_bytes"] > 0 and snap["syslog_kernel_queue_bytes"] == 0
    assert "bytes still in the kernel)" in line(held_snap)
    assert 'netopsai_ingest_kernel_queue_bytes{source="syslog"} 0' in prometheus(snap)
    assert f"({dropped:,} dropped by the kernel, 0 refused)" in line(snap)
    assert f'netopsai_ingest_kernel_drops_total{{source="syslog"}} {dropped}' in prometheus(snap)


def test_batches_write_each_line_once_and_a_stop_drains_the_spool(tmp_path: Path) -> None:
    """Several batches' worth, parsed in a worker process, stopped as soon as they are taken
    in: every line stored exactly once, nothing left in the spool, nothing replayed next time."""
    engine, url = fresh_url(tmp_path)
    n = 2 * BATCH + 345
    sent = [_line(i) for i in range(n)]
    parsers = {"syslog": parser(SyslogContext())}
    w = QueuedWriter(url, spool=Spool(tmp_path / "spool"), parsers=parsers, parse_workers=1)
    for start in range(0, n, 700):  # as a receiver hands them over: a drained batch at a time
        w.put_raw("syslog", [(d, "127.0.0.1", 1_764_000_000_000_000 + start + i)
                             for i, d in enumerate(sent[start:start + 700])])
    w.stop()  # no wait: stop itself drains what was taken in
    assert (w.stats.written, w.stats.spooled, w.stats.lost, w.stats.pending) == (n, 0, 0, 0)
    stored = [r.message for r in raw_events(engine, "syslog")]
    assert sorted(stored) == sorted(d.decode().split(" ", 4)[4] for d in sent)
    assert len(set(stored)) == n
    again = QueuedWriter(url, spool=Spool(tmp_path / "spool"), parsers=parsers)
    assert again.stats.replayed == 0
    again.stop()
    assert len(raw_events(engine, "syslog")) == n


def test_bad_datagrams_stay_data(tmp_path: Path) -> None:
    """What is not well-formed syslog is stored as received, never dropped, never a crash:
    no priority, not UTF-8, control characters, a line break, an empty datagram, the longest
    datagram UDP carries."""
    engine, url = fresh_url(tmp_path)
    bad = [b"no priority at all", b"<999>out of range", b"\xff\xfe\x00 not utf-8 \xc3",
           b"<13>\x1b[31mred\x1b[0m and a\nsecond line", b"<13>", b"x" * 65_000]
    with running(url, webhook_port=None, trap_port=None, spool=tmp_path / "spool") as ingest:
        assert ingest.syslog is not None and ingest.writer is not None
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for data in bad:
                sock.sendto(data, ("127.0.0.1", ingest.syslog.port))
            sock.sendto(b"", ("127.0.0.1", ingest.syslog.port))
        wait_until(lambda: ingest.syslog is not None and ingest.syslog.received == len(bad) + 1,
                   "every datagram received")
        assert ingest.writer.wait_idle(60)
        stats = ingest.writer.stats
    stored = raw_events(engine, "syslog")
    # each is stored, or (the empty one at most) counted as not decoded: none is lost
    assert stats.written + stats.undecodable == len(bad) + 1 and stats.failed == 0
    assert len(stored) == stats.written >= len(bad)
    messages = " ".join(r.message for r in stored)
    assert "no priority at all" in messages and "out of range" in messages
    assert "\x1b" not in messages and "\n" not in messages  # control characters made visible
    assert any(len(r.message) >= 3000 for r in stored)  # the long one, kept (cut to a maximum)


def test_batched_times_read_back_as_the_same_instants(tmp_path: Path) -> None:
    """Rows inserted in batches (executemany on the driver's cursor) keep their times as the
    ORM writes them, UTC and to the microsecond: a window starting exactly at an event's time
    finds it, and a time given in another zone is stored as its instant."""
    engine, url = fresh_url(tmp_path)
    east = timezone(timedelta(hours=2))
    events = [Event(source="syslog", action="note", message="on the minute", received_at=T0,
                    at=T0, fingerprint="a"),
              Event(source="syslog", action="note", message="in another zone",
                    received_at=T0 + timedelta(seconds=1),
                    at=(T0 + timedelta(seconds=1)).astimezone(east), fingerprint="b")]
    w = QueuedWriter(url)
    for ev in events:
        w.put(ev)
    assert w.wait_idle(60)
    w.stop()
    with Session(engine) as s:
        found = list(s.exec(select(m.RawEvent).where(col(m.RawEvent.at) >= T0)
                            .order_by(col(m.RawEvent.at))))
    assert [r.message for r in found] == ["on the minute", "in another zone"]
    assert [r.at.replace(tzinfo=UTC) for r in found if r.at] == [T0, T0 + timedelta(seconds=1)]
