"""What the queued writer takes in, in the order it was received: parsed Events (webhook alerts,
loaded log lines) and raw datagrams (syslog, traps) that the writer parses itself.

With a spool every record is appended to it before `add_*` returns, and the writer reads the
spool behind the receivers (from the store's mark at start, then as it grows), so a burst the
writer cannot keep up with waits on disk, not in memory, and a restart reads on from the mark.
Without a spool (tests, benchmarks) records wait in memory."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence

from netopsai.store.apply import Event
from netopsai.store.spool import Position, Raw, Record, Spool, encode_raw

Item = tuple[Record, Position | None]  # a record and where it ends in the spool


class Feed:
    """Thread-safe `add_event`/`add_raw` for the receivers; `take` for the one writer."""

    def __init__(self, spool: Spool | None = None, mark: Position | None = None) -> None:
        self.spool = spool
        self._cond = threading.Condition()
        self._memory: deque[Item] = deque()
        self._cursor = spool.start(mark) if spool is not None else Position(0, 0)
        self._end = spool.end if spool is not None else Position(0, 0)
        # taken in and not yet written (or given up): what a backlog is
        self.pending = spool.count(self._cursor, self._end) if spool is not None else 0
        self.replayed = self.pending  # in the spool from an earlier run
        self.received = 0  # taken in by this run
        self._closed = False

    def add_event(self, ev: Event) -> None:
        """Returns once the event is safe: on disk when there is a spool, else queued."""
        if self.spool is None:
            self._add_memory([ev])
            return
        with self._cond:
            self._end = self.spool.append(ev)
            self._added(1)

    def add_raw(self, kind: str, datagrams: Sequence[tuple[bytes, str, int]]) -> None:
        """Datagrams (bytes, sender address, µs since the epoch received), in one append."""
        if not datagrams:
            return
        if self.spool is None:
            self._add_memory([Raw(kind, at, sender, data) for data, sender, at in datagrams])
            return
        blob = b"".join([encode_raw(kind, at, sender, data) for data, sender, at in datagrams])
        with self._cond:
            self._end = self.spool.append_raw(blob)
            self._added(len(datagrams))

    def _add_memory(self, records: Sequence[Record]) -> None:
        with self._cond:
            self._memory.extend((r, None) for r in records)
            self._added(len(records))

    def _added(self, n: int) -> None:
        self.pending += n
        self.received += n
        self._cond.notify_all()

    def take(self, limit: int, timeout: float) -> list[Item] | None:
        """Up to `limit` records, oldest first, waiting up to `timeout` for the first; [] when
        none came, None once closed with nothing left."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._ready() or self._closed, timeout):
                return []
            end = self._end
            if self.spool is None:
                n = min(limit, len(self._memory))
                return [self._memory.popleft() for _ in range(n)] or None
        if self._cursor >= end:
            return None
        assert self.spool is not None
        skipped = self.spool.unreadable
        got, self._cursor = self.spool.read(self._cursor, end, limit)
        if self.spool.unreadable > skipped:  # counted as taken in, never to be written
            self.done(self.spool.unreadable - skipped)
        return list(got)

    def _ready(self) -> bool:
        return bool(self._memory) or self._cursor < self._end

    def done(self, n: int) -> None:
        """`n` records taken are written (or given up)."""
        with self._cond:
            self.pending -= n
            self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """True once everything taken in so far is written (or given up)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            return self._cond.wait_for(lambda: self.pending <= 0,
                                       max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        """No more records: `take` returns what is left, then None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
