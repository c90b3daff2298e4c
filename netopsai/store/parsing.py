"""Parsing the datagrams the receivers spooled raw, for the queued writer: in its own thread, or
in worker processes so that parsing a storm (tens of microseconds a syslog line) and writing it
use two cores instead of sharing one interpreter. The writer submits each batch as it reads it
and writes the batches in order as their parses come back, a few batches ahead.

A parser is a picklable callable `(datagram, sender, received at) -> Event` that raises
ValueError for a datagram that is not one of its kind (the receivers' `parser`s); a worker gets
them once, when it starts. A pool that breaks (a worker killed) is left for parsing in the
writer's thread: nothing taken in is lost to it."""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing as mp
import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import UTC, datetime, timedelta

from netopsai.store.apply import Event
from netopsai.store.spool import Position, Raw, Record

log = logging.getLogger("netopsai.ingest")


def stop_resource_tracker() -> None:
    """Stop multiprocessing's resource tracker once the workers are gone (it would outlive the
    process by a moment otherwise); the next pool starts another. A private API: at worst the
    tracker ends on its own."""
    from multiprocessing import resource_tracker

    with contextlib.suppress(Exception):
        resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ORPHAN_CHECK_S = 0.5
Parser = Callable[[bytes, str, datetime], Event]  # (datagram, sender, received at) -> Event
Parsers = Mapping[str, Parser]
Item = tuple[Record, Position | None]
Parsed = tuple[Event, Position | None]  # an event and where its record ends in the spool
Outcome = Event | str  # an Event, or why the datagram was not one

_WORKER_PARSERS: Parsers = {}


def parse_raw(parsers: Parsers, records: list[Raw]) -> list[Outcome]:
    """Each raw record's Event, or why there is none."""
    out: list[Outcome] = []
    for rec in records:
        parser = parsers.get(rec.kind)
        if parser is None:
            out.append(f"no parser for {rec.kind} datagrams")
            continue
        try:
            out.append(parser(rec.data, rec.sender, EPOCH + timedelta(microseconds=rec.received_us)))
        except ValueError as exc:
            out.append(f"{rec.kind} datagram from {rec.sender} not decoded: {exc}")
    return out


def _start_worker(parsers: Parsers, parent: int) -> None:
    global _WORKER_PARSERS
    _WORKER_PARSERS = parsers
    for parser in parsers.values():  # what a parser loads lazily, loaded before `wait_ready`
        warm = getattr(parser, "warm", None)  # answers, not while the first batch waits
        if warm is not None:
            warm()
    gc.freeze()  # the parsers and their rules, for the worker's life
    gc.set_threshold(50_000, 20, 100)  # events are freed by reference count: collect rarely
    threading.Thread(target=_orphaned, args=(parent,), name="orphan-watch", daemon=True).start()


def _orphaned(parent: int) -> None:
    """A worker outlives a killed ingest (it holds its own end of the task queue's pipe, so
    never reads an end of it): it leaves once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_S)
    os._exit(0)


def _parse_in_worker(records: list[Raw]) -> list[Outcome]:
    return parse_raw(_WORKER_PARSERS, records)


def default_workers() -> int:
    """One worker per core the receivers and the writer leave (at least one, at most four)."""
    return max(1, min(4, (os.cpu_count() or 1) - 1))


class Pending:
    """A batch's parse under way; `result` gives its events and how many were refused."""

    def __init__(self, parsing: Parsing, items: list[Item], future: Future[list[Outcome]] | None):
        self.parsing, self.items, self.future = parsing, items, future

    def result(self) -> tuple[list[Parsed], list[str]]:
        raws = [rec for rec, _ in self.items if isinstance(rec, Raw)]
        outcomes: list[Outcome] | None = None
        if self.future is not None:
            try:
                outcomes = self.future.result()
            except BrokenProcessPool:
                self.parsing.broken()
        if outcomes is None:
            outcomes = parse_raw(self.parsing.parsers, raws)
        it = iter(outcomes)
        parsed: list[Parsed] = []
        refused: list[str] = []
        for rec, pos in self.items:
            got = next(it) if isinstance(rec, Raw) else rec
            if isinstance(got, str):
                refused.append(got)
            else:
                parsed.append((got, pos))
        return parsed, refused


class Parsing:
    """`workers` 0: parse in the caller's thread when the result is asked for."""

    def __init__(self, parsers: Parsers, workers: int = 0) -> None:
        self.parsers = dict(parsers)
        self._pool: ProcessPoolExecutor | None = None
        if workers > 0 and self.parsers:
            self._pool = ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn"),
                                             initializer=_start_worker,
                                             initargs=(self.parsers, os.getpid()))
            self._warm = [self._pool.submit(_parse_in_worker, []) for _ in range(workers)]
        self.depth = workers  # batches submitted ahead of the one being written

    def wait_ready(self, timeout: float) -> bool:
        """Whether the workers have started (they import the parsers first: a second or so)."""
        if self._pool is None:
            return True
        try:
            for future in self._warm:
                future.result(timeout)
        except Exception:  # noqa: BLE001 - a pool that cannot start parses in the thread
            return False
        return True

    def submit(self, items: list[Item]) -> Pending:
        raws = [rec for rec, _ in items if isinstance(rec, Raw)]
        if self._pool is None or not raws:
            return Pending(self, items, None)
        try:
            return Pending(self, items, self._pool.submit(_parse_in_worker, raws))
        except (BrokenProcessPool, RuntimeError):
            self.broken()
            return Pending(self, items, None)

    def broken(self) -> None:
        if self._pool is not None:
            log.warning("the parsing workers stopped: parsing in the writer's thread from now on")
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool, self.depth = None, 0

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            stop_resource_tracker()  # nothing of ours outlives the ingest
