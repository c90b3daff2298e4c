"""The queued writer behind every receiver: receivers put Events on a queue and never touch the
database; one thread applies them in order, in batches, and retries a batch while the store is
locked, so nothing received is lost when another process holds the SQLite write lock for a
while. With a spool (netopsai.store.spool) every event is on disk before `put` returns, and
the spool's mark advances in the same transaction as the events, so a killed ingest loses
nothing it had taken in: the next start writes the rest. Retransmissions of one event (same
fingerprint) within the dedupe window are counted on the first event's row instead of being
applied again."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, create_engine, event, update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from netopsai.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.apply import Batch, Event
from netopsai.store.engine import create_all
from netopsai.store.flaps import Flaps
from netopsai.store.naming import DeviceCache
from netopsai.store.spool import Position, Spool

log = logging.getLogger("netopsai.ingest")
BATCH = 200
BUSY_MS = 200  # short: a locked store is retried by us, so the receivers' queue keeps moving
BACKOFF_MAX = 1.0
IDLE_S = 30.0  # a quiet writer clears ended flap storms this often


Item = tuple[Event, Position | None]  # an event and where it ends in the spool
OnOpen = Callable[[list[tuple[int, str]]], None]  # (alarm id, device) of alarms a batch opened


@dataclass
class WriterStats:
    received: int = 0
    written: int = 0
    duplicates: int = 0
    retries: int = 0
    failed: int = 0
    lost: int = 0
    replayed: int = 0  # taken from the spool at start: received before a crash, not yet written
    spooled: int = 0  # left in the spool at stop (the store stayed locked): written next start
    kinds: dict[str, int] = field(default_factory=dict)


def writer_engine(url: str) -> Engine:
    """Our own engine: SQLite transactions begin IMMEDIATE (take the write lock first, so a
    batch never fails half-way on a read-to-write upgrade) with a short busy timeout."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True)
    eng = create_engine(url, connect_args={"check_same_thread": False})

    @event.listens_for(eng, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        cur.close()

    @event.listens_for(eng, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return eng


def _is_locked(exc: OperationalError) -> bool:
    """Worth retrying: SQLite's lock, or a database connection that dropped."""
    text = str(exc.orig).lower()
    return exc.connection_invalidated or "locked" in text or "busy" in text


def _create_tables(engine: Engine, wait_s: float) -> None:
    """The store's tables (RawEvent may be new), waiting out a lock held at start-up."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            create_all(engine)
            return
        except OperationalError as exc:
            if not _is_locked(exc) or time.monotonic() > deadline:
                raise NetopsError(f"cannot prepare the store: {exc.orig}") from None
            time.sleep(0.2)


class QueuedWriter:
    """Thread-safe `put`; `stop` drains the queue (retrying a locked store up to `drain_s`).
    Given a spool, the writer owns it: replays it at start, closes it at stop. `on_open` hears
    of each alarm opened, once its batch is committed (it must return quickly: snapshots)."""

    def __init__(self, url: str, dedupe_s: float = 30.0, drain_s: float = 30.0,
                 spool: Spool | None = None, on_open: OnOpen | None = None) -> None:
        self.engine = writer_engine(url)
        _create_tables(self.engine, drain_s)
        self.dedupe_s, self.drain_s, self.spool = dedupe_s, drain_s, spool
        self.on_open = on_open
        self.stats = WriterStats()
        self._q: queue.Queue[Item | None] = queue.Queue()
        self._seen: dict[str, tuple[int, datetime]] = {}  # fingerprint -> (RawEvent id, first)
        self.devices = DeviceCache()
        self.flaps = Flaps()
        self._pending = 0
        self._idle = threading.Condition()
        self._stopping = False
        if spool is not None:
            self._replay(spool)
        self._thread = threading.Thread(target=self._run, name="netopsai-ingest-writer", daemon=True)
        self._thread.start()

    def put(self, ev: Event) -> None:
        """Returns once the event is safe: on disk when there is a spool, else queued."""
        pos = self.spool.append(ev) if self.spool is not None else None
        with self._idle:
            self._pending += 1
            self.stats.received += 1
        self._q.put((ev, pos))

    def _replay(self, spool: Spool) -> None:
        with Session(self.engine) as s:
            row = s.get(m.SpoolMark, spool.name)
        mark = Position(row.segment, row.offset) if row is not None else None
        for ev, pos in spool.pending(mark):
            self._pending += 1
            self.stats.replayed += 1
            self._q.put((ev, pos))
        if self.stats.replayed:
            log.info("%d events from the spool not yet in the store: writing them first",
                     self.stats.replayed)

    def wait_idle(self, timeout: float) -> bool:
        """True once everything put so far is written (or given up)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def stop(self) -> None:
        self._stopping = True
        self._q.put(None)
        self._thread.join()
        self.engine.dispose()
        if self.spool is not None:
            self.spool.close()

    def _run(self) -> None:
        while True:
            try:
                first = self._q.get(timeout=IDLE_S)
            except queue.Empty:  # quiet: storms that have ended are cleared
                self._expire_flaps()
                continue
            batch = [first] if first is not None else []
            while len(batch) < BATCH:
                try:
                    nxt = self._q.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    first = None
                else:
                    batch.append(nxt)
            if batch:
                self._write(batch)
                self._done(len(batch))
            if first is None:
                self._expire_flaps()
                return

    def _expire_flaps(self) -> None:
        try:
            with self.engine.begin() as conn:
                self.flaps.expire(conn, datetime.now(UTC))
        except OperationalError as exc:  # locked: the next quiet moment will do it
            log.warning("flapping state not updated: %s", exc.orig)

    def _done(self, n: int) -> None:
        with self._idle:
            self._pending -= n
            self._idle.notify_all()

    def _write(self, batch: list[Item]) -> None:
        deadline: float | None = None
        delay = 0.02
        while True:
            try:
                self._commit(batch)
                return
            except OperationalError as exc:
                if not _is_locked(exc):
                    self._one_by_one(batch, exc)
                    return
            except Exception as exc:  # a bad event or a bug: isolate it, keep the writer alive
                self._one_by_one(batch, exc)
                return
            self.stats.retries += 1
            if self._stopping:
                deadline = deadline or time.monotonic() + self.drain_s
                if time.monotonic() > deadline:
                    self._give_up(len(batch))
                    return
            time.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    def _give_up(self, n: int) -> None:
        if self.spool is not None:
            self.stats.spooled += n
            log.error("store still locked after %.0f s: %d events stay in the spool for the "
                      "next start", self.drain_s, n)
        else:
            self.stats.lost += n
            log.error("store still locked after %.0f s: %d events not written", self.drain_s, n)

    def _commit(self, items: list[Item]) -> None:
        """One transaction for the batch and the spool's mark; dedupe state changes only once
        it is committed."""
        fresh: dict[str, tuple[dict[str, Any], datetime]] = {}  # this batch's first events
        order: list[str] = []
        dups = 0
        batch = [ev for ev, _ in items]
        mark = items[-1][1]
        with Session(self.engine, autoflush=False) as s:
            work = Batch(s, self.devices, self.flaps)
            for ev in batch:
                if self._repeat(s, ev, fresh):
                    dups += 1
                    continue
                fresh[ev.fingerprint] = (work.apply(ev), ev.received_at)
                order.append(ev.fingerprint)
            ids = work.finish()
            if self.spool is not None and mark is not None:
                s.merge(m.SpoolMark(name=self.spool.name, segment=mark.segment, offset=mark.offset))
            s.commit()
        self._opened(work.opened)
        if self.spool is not None and mark is not None:
            self.spool.release(mark)
        for fp, raw_id in zip(order, ids, strict=True):  # a later same-fingerprint row wins
            self._seen[fp] = (raw_id, fresh[fp][1])
        self.stats.written += len(batch)
        self.stats.duplicates += dups
        for ev in batch:
            self.stats.kinds[ev.kind or "raw"] = self.stats.kinds.get(ev.kind or "raw", 0) + 1
        self._forget(batch[-1].received_at)

    def _opened(self, opened: list[tuple[int, str]]) -> None:
        if self.on_open is None or not opened:
            return
        try:
            self.on_open(opened)
        except Exception as exc:  # noqa: BLE001 - an observer never costs the store an event
            log.error("alarm observer failed: %s", type(exc).__name__)

    def _repeat(self, s: Session, ev: Event, fresh: dict[str, tuple[dict[str, Any], datetime]]) -> bool:
        """A retransmission within the window: count it on the first event's row."""
        if ev.fingerprint in fresh:
            row, first_at = fresh[ev.fingerprint]
            if (ev.received_at - first_at).total_seconds() <= self.dedupe_s:
                row["count"] += 1
                return True
            return False
        seen = self._seen.get(ev.fingerprint)
        if seen and (ev.received_at - seen[1]).total_seconds() <= self.dedupe_s:
            s.execute(update(m.RawEvent).where(m.RawEvent.id == seen[0])  # type: ignore[arg-type]
                      .values(count=m.RawEvent.count + 1))
            return True
        return False

    def _one_by_one(self, batch: list[Item], exc: Exception) -> None:
        """A batch failed for a reason other than a lock: write its events alone, so one bad
        event costs only itself."""
        if len(batch) == 1:
            self.stats.failed += 1
            log.error("could not store a %s event: %s", batch[0][0].source, exc)
            return
        for item in batch:
            self._write([item])

    def _forget(self, now: datetime) -> None:
        if len(self._seen) > 10_000:
            self._seen = {k: v for k, v in self._seen.items()
                          if (now - v[1]).total_seconds() <= self.dedupe_s}
