"""Ingest durability: `kill -9` of `netopsai ingest` loses nothing it had taken in. Events wait
in the write-ahead spool until the store has them; the next start writes the rest, each once."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine

from netopsai.store.apply import Event
from netopsai.store.engine import engine_for
from netopsai.store.spool import Spool, decode, encode
from tests.backends.test_ingest_store import _alert, _start_cli, _syslog
from tests.ingest_helpers import raw_events, send_udp, wait_until

pytestmark = pytest.mark.integration


def _kernel_queue(port: int) -> int:
    """Bytes the kernel holds for our UDP socket on `port`, not yet read by the process."""
    for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port:
            return int(fields[4].split(":")[1], 16)
    raise AssertionError(f"no UDP socket on port {port}")


def _store(home: Path) -> Engine:
    return engine_for(f"sqlite:///{home / 'netopsai.db'}")


def _restart_and_drain(home: Path, expected: int) -> tuple[str, Engine]:
    """Start ingest again, wait for `expected` raw events, stop it with Ctrl-C."""
    proc, _ = _start_cli(home)
    engine = _store(home)
    try:
        wait_until(lambda: len(raw_events(engine)) >= expected, f"{expected} events stored", 60)
        time.sleep(0.3)  # anything beyond `expected` would be a duplicate: give it time to show
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return out, engine


def test_kill_9_while_the_store_is_locked_loses_nothing_taken_in(tmp_path: Path) -> None:
    """The worst case for an in-memory queue: the store is locked by another writer, so every
    event received is still waiting when the receiver is killed."""
    proc, ports = _start_cli(tmp_path)
    n_syslog, n_alerts = 300, 20
    holder = sqlite3.connect(tmp_path / "netopsai.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process writing: nothing can be stored
        for i in range(n_syslog):
            send_udp(ports["syslog"], _syslog(i))
        for i in range(n_alerts):  # each acknowledged with 200 before the next
            r = httpx.post(f"http://127.0.0.1:{ports['Alertmanager']}/",
                           json={"version": "4", "status": "firing", "alerts": [_alert(i)]})
            assert r.status_code == 200
        wait_until(lambda: _kernel_queue(ports["syslog"]) == 0, "the kernel handed over every datagram")
        time.sleep(0.3)  # the last datagram read is being handled
        proc.kill()
        proc.wait(30)
        assert proc.returncode == -signal.SIGKILL
        holder.execute("COMMIT")
    finally:
        holder.close()
        if proc.poll() is None:
            proc.kill()
    engine = _store(tmp_path)
    assert raw_events(engine) == []  # nothing reached the store before the kill
    out, engine = _restart_and_drain(tmp_path, n_syslog + n_alerts)
    total = n_syslog + n_alerts  # taken from the spool: none of them arrived in this run
    assert f"stopped: 0 events received, {total} written, 0 repeats, 0 lost" in out
    raw = raw_events(engine)
    assert len(raw) == n_syslog + n_alerts  # each exactly once
    assert len({r.message for r in raw if r.source == "syslog"}) == n_syslog
    assert sum(r.source == "alertmanager" for r in raw) == n_alerts
    assert sorted(p.name for p in (tmp_path / "spool").iterdir()) == ["00000001.jsonl", "lock"]


def test_kill_9_mid_stream_keeps_every_acknowledged_alert(tmp_path: Path) -> None:
    """Alerts keep arriving while the receiver is killed: every one answered 200 is stored."""
    proc, ports = _start_cli(tmp_path)
    acked: list[str] = []
    stop = threading.Event()

    def post() -> None:
        with httpx.Client() as client:
            for i in range(100_000):
                if stop.is_set():
                    return
                try:
                    r = client.post(f"http://127.0.0.1:{ports['Alertmanager']}/", timeout=5,
                                    json={"version": "4", "status": "firing", "alerts": [_alert(i)]})
                except httpx.HTTPError:
                    return  # the receiver is gone
                if r.status_code == 200:
                    acked.append(f"fp{i:04d}")

    sender = threading.Thread(target=post)
    sender.start()
    try:
        wait_until(lambda: len(acked) >= 150, "150 alerts acknowledged", 60)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        stop.set()
        sender.join(30)
        if proc.poll() is None:
            proc.kill()
    _, engine = _restart_and_drain(tmp_path, len(acked))
    stored = [(r.key or "").rsplit("|", 1)[-1] for r in raw_events(engine)]
    assert set(acked) <= set(stored) and len(set(stored)) == len(stored)  # all, none twice
    assert len(stored) <= len(acked) + 1  # at most the one in flight when the kill came


def test_a_second_ingest_on_one_home_is_refused(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    try:
        with pytest.raises(Exception, match="another netopsai ingest is using the spool"):
            Spool(tmp_path / "spool")
    finally:
        spool.close()


def test_spool_rolls_over_and_reads_back_from_a_mark(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    spool = Spool(tmp_path, segment_bytes=2_000)
    events = [Event(source="syslog", action="note", message=f"line {i} ü", fingerprint=str(i),
                    received_at=datetime(2026, 11, 24, 3, 0, i % 60, tzinfo=UTC),
                    device_time=datetime(2026, 11, 24, 3, 0, 0, 123000, tzinfo=UTC), skew_s=-i / 10,
                    mnemonic="LINK-3-UPDOWN") for i in range(40)]
    marks = [spool.append(ev) for ev in events]
    assert len(spool.segments()) > 1  # it rolled over
    assert [ev.message for ev, _ in spool.pending(marks[24])] == [e.message for e in events[25:]]
    assert [ev for ev, _ in spool.pending(None)] == events  # times and text survive the trip
    spool.release(marks[-1])
    assert spool.segments() == [marks[-1].segment]
    with open(tmp_path / f"{marks[-1].segment:08d}.jsonl", "ab") as f:
        f.write(encode(events[0])[:20])  # a write torn by a kill
    assert [ev for ev, _ in spool.pending(marks[-1])] == []
    spool.close()
    again = Spool(tmp_path, segment_bytes=2_000)  # the next start, after that kill
    after = again.append(events[5])
    assert [(ev, pos) for ev, pos in again.pending(marks[-1])] == [(events[5], after)]
    again.close()
    assert decode(encode(events[3])) == events[3]
    assert oct(os.stat(tmp_path / f"{marks[-1].segment:08d}.jsonl").st_mode & 0o777) == "0o600"
