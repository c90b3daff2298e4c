"""Ingest at storm rate (issue 28 item 1): datagrams are spooled raw by receivers that do not
parse, the writer reads the spool behind them and parses (in worker processes too), a burst is
taken in whole, and the ingest counts what it received, refused, what the kernel dropped and
what waits in the spool. No timing here: speed is bench/bench_ingest_storm.py's."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import psutil
import pytest
from sqlalchemy import Engine

from netopsai.backends.ingest_stats import line, prometheus, snapshot
from netopsai.backends.syslog.receiver import SyslogContext, parser
from netopsai.backends.traps.receiver import parser as trap_parser
from netopsai.store.feed import Feed
from netopsai.store.spool import Position, Raw, Spool, decode_record, encode_raw
from netopsai.store.writer import QueuedWriter
from tests.backends.test_ingest_store import _start_cli, _syslog
from tests.ingest_helpers import (
    alarms,
    fresh_url,
    lab_with_senders,
    raw_events,
    running,
    send_trap,
    send_udp,
    settle,
    wait_until,
)

LINK_DOWN = "1.3.6.1.6.3.1.1.5.3"


def test_raw_records_survive_the_spool_byte_for_byte(tmp_path: Path) -> None:
    odd = b"<13>line\nwith newline \x00 nul and spaces \xff\xfe not utf-8"
    assert decode_record(encode_raw("syslog", 1_764_216_000_123_456, "::ffff:10.0.0.1", odd)[:-1]) == \
        Raw("syslog", 1_764_216_000_123_456, "::ffff:10.0.0.1", odd)
    spool = Spool(tmp_path, segment_bytes=600)
    feed = Feed(spool)
    sent = [(f"<13>datagram {i}".encode() + b"\n" * (i % 3), f"127.0.0.{i % 7}", 1000 + i)
            for i in range(40)]
    for start in range(0, 40, 8):
        feed.add_raw("syslog", sent[start:start + 8])
    assert len(spool.segments()) > 1 and feed.pending == feed.received == 40
    got: list[tuple[Raw, Position]] = []
    while len(got) < 40:
        batch = feed.take(7, 1.0)
        assert batch, "the feed stalled"
        got += [(r, p) for r, p in batch if isinstance(r, Raw) and p is not None]
    assert [(r.data, r.sender, r.received_us) for r, _ in got] == sent
    positions = [p for _, p in got]
    assert positions == sorted(positions)  # a mark after each record, in order
    spool.close()
    again = Spool(tmp_path, segment_bytes=600)  # a restart resumes after a mark
    resumed = Feed(again, positions[24])
    assert resumed.replayed == 15
    rest = resumed.take(100, 1.0)
    assert rest is not None
    assert [r.data for r, _ in rest if isinstance(r, Raw)] == [d for d, _, _ in sent[25:]]
    again.close()


def test_parse_workers_store_what_the_writer_thread_stores(tmp_path: Path) -> None:
    """The same datagrams, parsed in the writer's thread and in a worker process; the worker
    leaves with the writer."""
    lines = [_syslog(i) for i in range(300)] + [b"\x00not a trap"]
    at = int(datetime(2026, 11, 23, 3, 10, tzinfo=UTC).timestamp() * 1e6)
    stored = []
    for workers in (0, 1):
        (tmp_path / str(workers)).mkdir()
        engine, url = fresh_url(tmp_path / str(workers))
        before = {c.pid for c in psutil.Process().children(recursive=True)}
        w = QueuedWriter(url, parsers={"syslog": parser(SyslogContext()), "trap": trap_parser()},
                         parse_workers=workers)
        w.put_raw("syslog", [(d, "127.0.0.1", at + i) for i, d in enumerate(lines[:-1])])
        w.put_raw("trap", [(lines[-1], "127.0.0.1", at)])
        assert w.wait_idle(120)
        w.stop()
        left = [c for c in psutil.Process().children(recursive=True) if c.pid not in before]
        assert not left, [c.cmdline() for c in left]  # nor multiprocessing's resource tracker
        assert (w.stats.written, w.stats.undecodable, w.stats.failed) == (300, 1, 0)
        stored.append([(r.device, r.interface, r.kind, r.message, r.at) for r in raw_events(engine)])
    assert stored[0] == stored[1] and len(stored[0]) == 300


@pytest.mark.integration
def test_a_burst_is_taken_in_whole_and_counted(make_lab: Callable[..., Engine], tmp_path: Path) -> None:
    """20,000 datagrams sent as fast as one socket sends them: every one in the spool, none
    dropped by the kernel, every one stored."""
    engine, url = lab_with_senders(make_lab)
    n = 20_000
    with running(url, spool=tmp_path / "spool") as ingest:
        assert ingest.syslog is not None and ingest.traps is not None and ingest.writer is not None
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for i in range(n):
                sock.sendto(b"<190>Nov 23 03:00:00 leaf%d Sysdb: %%SYS-6-LOGMSG_INFO: note %d" % (i % 50, i),
                            ("127.0.0.1", ingest.syslog.port))
        send_trap(ingest.traps.port, LINK_DOWN, [], community="wrong")  # refused on receipt
        wait_until(lambda: ingest.syslog is not None and ingest.syslog.received == n, "the burst", 120)
        settle(ingest, n)
        snap = snapshot(ingest)
    assert snap["syslog_received"] == n and snap["syslog_kernel_drops"] == 0
    assert snap["trap_refused"] == 1 and snap["trap_received"] == 0
    assert (snap["written"], snap["backlog"], snap["failed"]) == (n, 0, 0)
    assert len(raw_events(engine, "syslog")) == n
    assert f"syslog {n:,} received (0 dropped by the kernel, 0 refused)" in line(snap)
    text = prometheus(snap)
    assert f'netopsai_ingest_received_total{{source="syslog"}} {n}' in text
    assert 'netopsai_ingest_kernel_drops_total{source="syslog"} 0' in text
    assert "netopsai_ingest_backlog 0" in text
    for row in text.splitlines():  # the text exposition format: comments, or `name{labels} value`
        assert row.startswith("# ") or len(row.rsplit(" ", 1)) == 2 and row.rsplit(" ", 1)[1].isdigit()


@pytest.mark.integration
def test_a_kernel_drop_is_counted(make_lab: Callable[..., Engine]) -> None:
    """A receive buffer too small for a burst the receiver cannot drain in time: the drops are
    the kernel's, and the counters say so."""
    _, url = lab_with_senders(make_lab)
    with running(url, webhook_port=None) as ingest:
        assert ingest.syslog is not None
        intake = ingest.syslog.intake
        assert intake.sock is not None
        intake._stopping = True  # the reading thread stops taking; the socket stays open
        send_udp(ingest.syslog.port, _syslog(0))
        intake.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        time.sleep(0.3)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            for i in range(500):
                sock.sendto(_syslog(i) * 4, ("127.0.0.1", ingest.syslog.port))
        wait_until(lambda: intake.kernel_drops() > 0, "the kernel dropping datagrams", 10)
        assert snapshot(ingest)["syslog_kernel_drops"] == intake.kernel_drops() > 0


@pytest.mark.integration
def test_the_command_prints_and_exports_its_counters(tmp_path: Path) -> None:
    proc, ports = _start_cli(tmp_path)
    try:
        for i in range(3):
            send_udp(ports["syslog"], _syslog(i))
        send_trap(ports["SNMP"], LINK_DOWN, [], community="not-the-community")
        wait_until(lambda: (tmp_path / "ingest.prom").exists() and 'source="syslog"} 3' in
                   (tmp_path / "ingest.prom").read_text(), "the counters exported", 60)
        proc.send_signal(signal.SIGUSR1)
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    # on SIGUSR1 and at exit (and once a minute while the counts move, on a slow machine)
    assert out.count("ingest: syslog 3 received (0 dropped by the kernel, 0 refused)") >= 2
    assert "trap 0 received (0 dropped by the kernel, 1 refused)" in out
    assert "3 written, 0 waiting in the spool" in out
    assert oct(os.stat(tmp_path / "ingest.prom").st_mode & 0o777) == "0o644"


@pytest.mark.integration
def test_kill_9_leaves_no_parsing_worker_behind(tmp_path: Path) -> None:
    proc, ports = _start_cli(tmp_path)
    try:
        send_udp(ports["syslog"], _syslog(1))
        wait_until(lambda: len(psutil.Process(proc.pid).children(recursive=True)) > 0,
                   "the parsing worker started", 60)
        children = psutil.Process(proc.pid).children(recursive=True)
        proc.kill()
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [c.cmdline() for c in alive]


@pytest.mark.integration
def test_postgresql_takes_batches_by_copy(tmp_path: Path) -> None:
    from netopsai_testkit.peers.postgres import fresh_database, postgres_server, skip_reason

    if skip_reason():
        pytest.skip(skip_reason() or "")
    with postgres_server() as server:
        url = fresh_database(server, "fleet")
        w = QueuedWriter(url, parsers={"syslog": parser(SyslogContext())})
        at = int(datetime(2026, 11, 23, 3, 10, tzinfo=UTC).timestamp() * 1e6)
        down = [(_syslog(i), "127.0.0.1", at + i) for i in range(1500)]
        up = [(d.replace(b"to down", b"to up"), s, t + 5_000_000) for d, s, t in down[:500]]
        w.put_raw("syslog", down)
        w.put_raw("syslog", up)
        assert w.wait_idle(300)
        w.stop()
        from netopsai.store.engine import engine_for

        engine = engine_for(url)
        raw = raw_events(engine, "syslog")
        found = alarms(engine, "syslog")
    assert len(raw) == 2000 and len({r.id for r in raw}) == 2000
    assert len(found) == 1500 and sum(a.state == "closed" for a in found) == 500
    ids = {a.id for a in found}
    assert all(r.alarm_id in ids for r in raw)  # every row names its alarm by its real id
    assert raw[0].received_at.replace(tzinfo=None) == datetime(2026, 11, 23, 3, 10)  # naive UTC


def test_a_backlog_at_stop_stays_in_the_spool_for_the_next_start(tmp_path: Path) -> None:
    """With a spool, stop writes for drain_s at most: what is left is written by the next start,
    each event once."""
    engine, url = fresh_url(tmp_path)
    parsers = {"syslog": parser(SyslogContext())}
    n = 5000
    w = QueuedWriter(url, drain_s=0.0, spool=Spool(tmp_path / "spool"), parsers=parsers)
    w.put_raw("syslog", [(_syslog(i), "127.0.0.1", 1_764_000_000_000_000 + i) for i in range(n)])
    w.stop()
    first = w.stats
    assert first.spooled > 0 and first.written + first.spooled == n and first.lost == 0
    again = QueuedWriter(url, spool=Spool(tmp_path / "spool"), parsers=parsers)
    assert again.stats.replayed == first.spooled
    assert again.wait_idle(300)
    again.stop()
    stored = raw_events(engine, "syslog")
    assert len(stored) == n and len({r.message for r in stored}) == n
