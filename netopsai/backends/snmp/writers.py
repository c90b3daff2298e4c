"""Per-chunk poll writers (issue 28 §2): a round's rows stored while the round is still read,
by several writers at once on PostgreSQL.

The single writer (poller.store_readings) waits for the whole round and writes it in one
transaction: at 10,000 devices that is 1.44 M rows, a minute, after the read. Here readings are
fed as they arrive (poll_targets' or the Ray reader's `on_reading`); once every reading of a
chunk of consecutive targets (CHUNK, fewer in a small round) is in, the chunk is released and
split by device over the writers. Each writer is a thread with its own connection that writes
its part of each chunk in one transaction, in the targets' order.

- Sharded by device (a stable hash of the device name): a device's rows, its counter state and
  its transitions are only ever touched by one writer, so no two transactions race on a row and
  each device's readings are applied in the targets' order (the same target twice, or two
  targets answering with one sysName, give the single writer's result).
- Chunks are released in the targets' order (a chunk whose slow device has not answered holds
  back the ones after it; they queue and are written as soon as it answers).
- SQLite takes one writer at a time (a database-wide lock): more writer threads would only wait
  on it, so SQLite gets one writer thread, still one transaction per chunk — the writing
  overlaps the reading, and a round interrupted half way keeps the chunks already written.
  An in-memory SQLite database is per connection: it keeps the single writer (`0`).
- The report is the single writer's: counts summed, restarts and ports gone down in the
  targets' order."""

from __future__ import annotations

import queue
import threading
import time
import zlib
from types import TracebackType
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.snmp.poller import PollReport, store_one
from netopsai.backends.snmp.walk import DeviceReading
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert

CHUNK = 50  # targets per released chunk (at most): 7,200 rows a transaction for 48-port devices
# PostgreSQL's default. Threads share the GIL: bench_poll_writers measured 1.11x / 1.13x / 1.19x the
# single writer's rows/s with 1 / 2 / 4 (their connections' waits on the server overlap, Python
# does not); the real gain is the overlap with the read (docs/ray.md)
PG_WRITERS = 4

Part = list[tuple[int, DeviceReading]]


def default_writers(engine: Engine) -> int:
    """Writer threads for this store: PG_WRITERS on a server database, 1 on an SQLite file,
    0 (the single writer after the read) on an in-memory SQLite database."""
    if engine.dialect.name != "sqlite":
        return PG_WRITERS
    return 0 if engine.url.database in (None, "", ":memory:") else 1


def shard_of(device: str, writers: int) -> int:
    """The writer that owns a device: stable across rounds and processes (not hash())."""
    return zlib.crc32(device.encode()) % writers


class PollWriters:
    """One round's writers: `feed` each reading as it arrives (any order, from any thread),
    `close` when the round is read. Used as a context manager, so the threads end even when the
    reading fails."""

    def __init__(self, engine: Engine, total: int, writers: int, sample_every: float,
                 chunk: int | None = None) -> None:
        # a small round gets small chunks, or its one chunk would only be written after the read
        chunk = chunk or min(CHUNK, total // 16)
        self.engine, self.sample_every, self.chunk = engine, sample_every, max(1, chunk)
        self.n = 1 if engine.dialect.name == "sqlite" else max(1, writers)
        self.readings: list[DeviceReading | None] = [None] * total
        self.filled = [0] * ((total + self.chunk - 1) // self.chunk)
        self.released = 0  # chunks handed to the writers so far (in order)
        self.lock = threading.Lock()
        self.queues: list[queue.Queue[Part | None]] = [queue.Queue() for _ in range(self.n)]
        self.done: list[list[tuple[int, PollReport]]] = [[] for _ in range(self.n)]
        self.samples = [0] * self.n
        self.busy = [0.0] * self.n  # seconds each writer spent writing (bench_poll_writers)
        self.errors: list[BaseException] = []
        self.threads = [threading.Thread(target=self._run, args=(k,), name=f"poll-writer-{k}",
                                         daemon=True) for k in range(self.n)]
        for t in self.threads:
            t.start()

    def feed(self, index: int, reading: DeviceReading) -> None:
        with self.lock:
            if self.readings[index] is None:
                self.filled[index // self.chunk] += 1
            self.readings[index] = reading
            while self._complete(self.released):
                self._release(self.released)
                self.released += 1

    def _complete(self, c: int) -> bool:
        return c < len(self.filled) and self.filled[c] == self._size(c)

    def _size(self, c: int) -> int:
        return min(self.chunk, len(self.readings) - c * self.chunk)

    def _release(self, c: int) -> None:
        parts: list[Part] = [[] for _ in range(self.n)]
        for i in range(c * self.chunk, c * self.chunk + self._size(c)):
            r = self.readings[i]
            assert r is not None
            parts[shard_of(r.device, self.n)].append((i, r))
        for k, part in enumerate(parts):
            if part:
                self.queues[k].put(part)

    def flush(self) -> None:
        """Wait until every chunk released so far is written (committed)."""
        for q in self.queues:
            q.join()

    def _run(self, k: int) -> None:
        while (part := self.queues[k].get()) is not None:
            try:
                if not self.errors:  # else the round has failed: drain without writing
                    t0 = time.perf_counter()
                    self.samples[k] += self._write(part, self.done[k])
                    self.busy[k] += time.perf_counter() - t0
            except BaseException as exc:  # re-raised by close() in the caller's thread
                self.errors.append(exc)
            finally:
                self.queues[k].task_done()

    def _write(self, part: Part, done: list[tuple[int, PollReport]]) -> int:
        samples: list[dict[str, Any]] = []
        with Session(self.engine) as s:
            for i, r in part:
                rep = PollReport([])
                store_one(s, r, rep, self.sample_every, samples)
                done.append((i, rep))
            n = bulk_insert(s, m.CounterSample, samples)
            s.commit()
        return n

    def _stop(self) -> None:
        for q in self.queues:
            q.put(None)
        for t in self.threads:
            t.join()

    def close(self, readings: list[DeviceReading]) -> PollReport:
        """Wait for the writers; the round's report (a writer's failure is raised here)."""
        for i, r in enumerate(readings):  # a reader that did not stream: fed now
            if self.readings[i] is None:
                self.feed(i, r)
        self._stop()
        if self.errors:
            raise self.errors[0]
        report = PollReport(readings, samples=sum(self.samples))
        for _, rep in sorted((x for done in self.done for x in done), key=lambda x: x[0]):
            report.devices += rep.devices
            report.interfaces += rep.interfaces
            report.events += rep.events
            report.restarted += rep.restarted
            report.went_down += rep.went_down
        return report

    def __enter__(self) -> PollWriters:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        if any(t.is_alive() for t in self.threads):
            self._stop()  # the reading failed: what was released is written, then the threads end
