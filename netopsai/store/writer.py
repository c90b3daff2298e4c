"""The queued writer behind every receiver: receivers hand it Events (`put`) or raw datagrams
(`put_raw`) and never touch the database; one thread parses the datagrams (with the parser
given for their kind) and applies everything in order, in batches of up to BATCH events, one
transaction each, and retries a batch while the store is locked, so nothing received is lost
when another process holds the SQLite write lock for a while. With a spool
(netopsai.store.spool) every record is on disk before `put`/`put_raw` returns, the writer reads
it back behind the receivers (netopsai.store.feed), and the spool's mark advances in the same
transaction as the events, so a killed ingest loses nothing it had taken in: the next start
parses and writes the rest. Retransmissions of one event (same fingerprint) within the dedupe
window are counted on the first event's row instead of being applied again."""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import update
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from netopsai.store import tables as m
from netopsai.store.alarmbook import LinkCache
from netopsai.store.apply import Batch, Event
from netopsai.store.feed import Feed
from netopsai.store.flaps import Flaps
from netopsai.store.naming import DeviceCache
from netopsai.store.parsing import Parsed, Parsers, Parsing, Pending
from netopsai.store.spool import Position, Spool
from netopsai.store.writing import create_tables, is_locked, save_mark, writer_engine

log = logging.getLogger("netopsai.ingest")
BATCH = 1000  # events per transaction at most
BACKOFF_MAX = 1.0
IDLE_S = 30.0  # a quiet writer clears ended flap storms this often
EXPIRE_EVERY = 1.0  # seconds of event time between two ends of quiet flap storms in a stream
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
    undecodable: int = 0  # datagrams their parser refused (not a trap, a wrong version)
    pending: int = 0  # taken in and not yet written: the backlog (refreshed when read)
    kinds: dict[str, int] = field(default_factory=dict)


class QueuedWriter:
    """Thread-safe `put`/`put_raw`; `stop` drains what was taken in (retrying a locked store up
    to `drain_s`; with a spool, writing for `drain_s` at most, the rest left in the spool).
    Given a spool, the writer owns it: writes what an earlier run left in it first, closes it
    at stop. `parsers` turn raw datagrams into Events by kind ("syslog", "trap"), in
    `parse_workers` processes (0: in the writer's thread). `on_open` hears of each alarm
    opened, once its batch is committed (it must return quickly: snapshots)."""

    def __init__(self, url: str, dedupe_s: float = 30.0, drain_s: float = 30.0,
                 spool: Spool | None = None, on_open: OnOpen | None = None,
                 parsers: Parsers | None = None, parse_workers: int = 0) -> None:
        self.engine = writer_engine(url, durable=spool is None or spool.fsync)
        create_tables(self.engine, drain_s)
        self.dedupe_s, self.drain_s, self.spool = dedupe_s, drain_s, spool
        self.on_open = on_open
        self.parsing = Parsing(parsers or {}, parse_workers)
        self._stats = WriterStats()
        self._seen: dict[str, tuple[int, datetime]] = {}  # fingerprint -> (RawEvent id, first)
        self.devices, self.links, self.flaps = DeviceCache(), LinkCache(), Flaps()
        self._deadline: float | None = None  # set by stop: when a locked store is given up
        self._expired_at: datetime | None = None  # the event time flap storms were last ended at
        self.feed = Feed(spool, self._mark(spool) if spool is not None else None)
        self._stats.replayed = self.feed.replayed
        if self.feed.replayed:
            log.info("%d events from the spool not yet in the store: writing them first",
                     self.feed.replayed)
        self._thread = threading.Thread(target=self._run, name="netopsai-ingest-writer", daemon=True)
        self._thread.start()

    @property
    def stats(self) -> WriterStats:
        self._stats.received, self._stats.pending = self.feed.received, self.feed.pending
        return self._stats

    def put(self, ev: Event) -> None:
        """Returns once the event is safe: on disk when there is a spool, else queued."""
        self.feed.add_event(ev)

    def put_raw(self, kind: str, datagrams: Sequence[tuple[bytes, str, int]]) -> None:
        """Datagrams (bytes, sender address, when received in microseconds since the epoch)
        for the parser of `kind`: on disk, in one append, when this returns."""
        self.feed.add_raw(kind, datagrams)

    def _mark(self, spool: Spool) -> Position | None:
        with Session(self.engine) as s:
            row = s.get(m.SpoolMark, spool.name)
        return Position(row.segment, row.offset) if row is not None else None

    def wait_idle(self, timeout: float) -> bool:
        """True once everything put so far is written (or given up)."""
        return self.feed.wait_idle(timeout)

    def stop(self) -> None:
        self._deadline = time.monotonic() + self.drain_s
        self.feed.close()
        self._thread.join()
        self.parsing.close()
        self.engine.dispose()
        if self.spool is not None:
            self.spool.close()

    def _run(self) -> None:
        """Read batches, have them parsed (a few ahead when workers parse), write them in order."""
        inflight: deque[Pending] = deque()
        while True:
            items = self.feed.take(BATCH, 0.0 if inflight else IDLE_S)
            if items:
                inflight.append(self.parsing.submit(items))
                if len(inflight) <= self.parsing.depth:
                    continue
            if not inflight:
                if items is None:
                    break
                self._expire_flaps()  # quiet: storms that have ended are cleared
                continue
            if not self._write_parsed(inflight.popleft()):
                self._give_up(self.feed.pending)  # stopping, the store still locked
                return
            if self._past_deadline() and self.spool is not None:  # a backlog at stop stays
                self._leave(self.feed.pending)  # in the spool: the next start writes it
                return
        self._expire_flaps(every=True)  # the state ends with the writer: so do its storms

    def _past_deadline(self) -> bool:
        return self._deadline is not None and time.monotonic() > self._deadline

    def _leave(self, n: int) -> None:
        if n > 0:
            self._stats.spooled += n
            log.warning("stopping after %.0f s of writing: %d events stay in the spool for the "
                        "next start", self.drain_s, n)

    def _write_parsed(self, pending: Pending) -> bool:
        parsed, refused = pending.result()
        for why in refused:  # a datagram that is not one of ours: counted, kept out
            self._stats.undecodable += 1
            log.debug("%s", why)
        if not self._write(parsed, pending.items[-1][1]):
            return False
        self.feed.done(len(pending.items))
        return True

    def _expire_flaps(self, every: bool = False) -> None:
        """End the storms quiet by now (`every`: all of them, at stop), opening the outages of
        those that ended with their port down."""
        try:
            with Session(self.engine, autoflush=False) as s:
                work = Batch(s, self.devices, self.flaps, self.links)
                work.end_storms(datetime.now(UTC), every)
                s.commit()
        except OperationalError as exc:  # locked: the next quiet moment will do it
            log.warning("flapping state not updated: %s", exc.orig)
            return
        self._opened(work.opened)

    def _write(self, batch: list[Parsed], mark: Position | None) -> bool:
        """Commit the batch and the spool's mark; False when stopping gave up on a lock."""
        delay = 0.02
        while True:
            try:
                self._commit(batch, mark)
                return True
            except OperationalError as exc:
                if not is_locked(exc):
                    self._one_by_one(batch, exc)
                    return True
            except Exception as exc:  # a bad event or a bug: isolate it, keep the writer alive
                self._one_by_one(batch, exc)
                return True
            self._stats.retries += 1
            if self._past_deadline():
                return False
            time.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    def _give_up(self, n: int) -> None:
        if self.spool is not None:
            self._stats.spooled += n
            log.error("store still locked after %.0f s: %d events stay in the spool for the "
                      "next start", self.drain_s, n)
        else:
            self._stats.lost += n
            log.error("store still locked after %.0f s: %d events not written", self.drain_s, n)

    def _commit(self, batch: list[Parsed], mark: Position | None) -> None:
        """One transaction for the batch and the spool's mark; dedupe state changes only once
        it is committed."""
        kept, extra, bumps = self._dedupe([ev for ev, _ in batch])
        with Session(self.engine, autoflush=False) as s:
            work = Batch(s, self.devices, self.flaps, self.links)
            rows = work.apply_all(kept)
            for index, n in extra.items():
                rows[index]["count"] += n
            for raw_id, n in bumps.items():
                s.execute(update(m.RawEvent).where(m.RawEvent.id == raw_id)  # type: ignore[arg-type]
                          .values(count=m.RawEvent.count + n))
            expire = self._expire_due(work.latest)
            ids = work.finish(expire)
            if self.spool is not None and mark is not None:
                save_mark(s.connection(), self.spool.name, mark)
            s.commit()
        if expire:
            self._expired_at = work.latest
        self._opened(work.opened)
        if self.spool is not None and mark is not None:
            self.spool.release(mark)
        seen = self._seen
        for ev, raw_id in zip(kept, ids, strict=True):  # a later same-fingerprint row wins,
            seen.pop(ev.fingerprint, None)  # moved to the end: the dict stays in arrival order
            seen[ev.fingerprint] = (raw_id, ev.received_at)
        self._stats.written += len(batch)
        self._stats.duplicates += sum(extra.values()) + sum(bumps.values())
        kinds = self._stats.kinds  # counted per kind (a storm has a few), not per event
        for kind, n in Counter(ev.kind or "raw" for ev, _ in batch).items():
            kinds[kind] = kinds.get(kind, 0) + n
        if batch:
            self._forget(batch[-1][0].received_at)

    def _expire_due(self, latest: datetime | None) -> bool:
        """Whether this batch ends quiet flap storms: once per EXPIRE_EVERY of event time."""
        last = self._expired_at
        return latest is not None and (
            last is None or abs((latest - last).total_seconds()) >= EXPIRE_EVERY)

    def _dedupe(self, events: list[Event]) -> tuple[list[Event], dict[int, int], dict[int, int]]:
        """Retransmissions within the window: the events to apply, the repeats of each (by its
        index) in this batch, and the repeats of rows stored earlier (by RawEvent id)."""
        first: dict[str, tuple[int, datetime]] = {}  # fingerprint -> (index in kept, when)
        kept: list[Event] = []
        extra: dict[int, int] = {}
        bumps: dict[int, int] = {}
        for ev in events:
            fp = ev.fingerprint
            if fp in first:
                index, at = first[fp]
                if (ev.received_at - at).total_seconds() <= self.dedupe_s:
                    extra[index] = extra.get(index, 0) + 1
                    continue
            elif (seen := self._seen.get(fp)) and \
                    (ev.received_at - seen[1]).total_seconds() <= self.dedupe_s:
                bumps[seen[0]] = bumps.get(seen[0], 0) + 1
                continue
            first[fp] = (len(kept), ev.received_at)
            kept.append(ev)
        return kept, extra, bumps

    def _opened(self, opened: list[tuple[int, str]]) -> None:
        if self.on_open is None or not opened:
            return
        try:
            self.on_open(opened)
        except Exception as exc:  # noqa: BLE001 - an observer never costs the store an event
            log.error("alarm observer failed: %s", type(exc).__name__)

    def _one_by_one(self, batch: list[Parsed], exc: Exception) -> None:
        """A batch failed for a reason other than a lock: write its events alone, so one bad
        event costs only itself."""
        if len(batch) == 1:
            self._stats.failed += 1
            log.error("could not store a %s event: %s", batch[0][0].source, exc)
            return
        for item in batch:
            self._write([item], item[1])

    def _forget(self, now: datetime) -> None:
        """Drop the fingerprints older than the dedupe window, oldest first (arrival order):
        only those are looked at, where rebuilding the whole dict after every batch cost the
        writer ~5 % of its time in a storm (tens of thousands of fingerprints in the window)."""
        old = []
        for fp, (_, first) in self._seen.items():
            if (now - first).total_seconds() <= self.dedupe_s:
                break
            old.append(fp)
        for fp in old:
            del self._seen[fp]
