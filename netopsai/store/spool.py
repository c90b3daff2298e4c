"""The ingest write-ahead spool: every Event a receiver takes in is appended to a file before the
receiver returns (before an HTTP 200, before the datagram is counted), so a `kill -9` of ingest
loses only what the kernel had not yet handed over. The queued writer records how far the
spool is in the store, in the same transaction as the events it wrote (a SpoolMark row), and
the next start writes whatever lies beyond that mark: nothing twice, nothing dropped.

What the UDP receivers take in is spooled raw, before any parsing (`encode_raw`: the kind, the
time received, the sender and the datagram in base64, one line each, a whole drained batch in
one write): the writer reads the spool behind them (`read`), parses and stores in batches, and
a burst larger than the writer's pace waits here, on disk, not in memory. Webhook alerts and
loaded log lines are spooled as parsed Events (one JSON object a line, starting with `{`).

Segments are `NNNNNNNN.jsonl` files of one record per line; appends go to the newest,
which rolls over at `segment_bytes`; segments wholly behind the mark are deleted. A lock file
keeps two ingest processes off one spool. `fsync=True` also survives a power cut, at the cost
of one disk flush per append (a whole batch of datagrams, or one event)."""

from __future__ import annotations

import binascii
import contextlib
import dataclasses
import fcntl
import json
import logging
import os
import socket
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from netopsai.common.errors import NetopsError
from netopsai.store.apply import Event

log = logging.getLogger("netopsai.ingest")
SEGMENT_BYTES = 16 * 1024 * 1024
CHUNK = 1024 * 1024  # what one read of the spool takes at most (more for one longer line)


class Position(NamedTuple):
    """Just after one event: segment number and byte offset in it."""

    segment: int
    offset: int


class Raw(NamedTuple):
    """A datagram as received: parsed behind the spool by the writer's parser for `kind`."""

    kind: str  # syslog | trap
    received_us: int  # when it was received, microseconds since the epoch (UTC)
    sender: str  # the sender's address
    data: bytes


Record = Event | Raw


def encode_raw(kind: str, received_us: int, sender: str, data: bytes) -> bytes:
    return b"%s %d %s " % (kind.encode(), received_us, sender.encode()) + binascii.b2a_base64(data)


def decode_record(line: bytes) -> Record:
    """One spool line: an Event (JSON) or a Raw datagram."""
    if line[:1] == b"{":
        return decode(line)
    kind, when, sender, data = line.split(b" ", 3)
    return Raw(kind.decode(), int(when), sender.decode(), binascii.a2b_base64(data))


# the Event fields that hold times (ISO 8601 in the spool)
_TIMES = frozenset(f.name for f in dataclasses.fields(Event) if "datetime" in str(f.type))
_TUPLES = frozenset(f.name for f in dataclasses.fields(Event) if "tuple" in str(f.type))
_FIELDS = frozenset(f.name for f in dataclasses.fields(Event))


def encode(ev: Event) -> bytes:
    row = dataclasses.asdict(ev)
    for key in _TIMES:
        if row.get(key) is not None:
            row[key] = row[key].isoformat()
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> Event:
    row: dict[str, Any] = json.loads(line)
    for key in _TIMES:
        if row.get(key) is not None:
            row[key] = datetime.fromisoformat(row[key])
    for key in _TUPLES:  # JSON has lists only
        if isinstance(row.get(key), list):
            row[key] = tuple(row[key])
    return Event(**{k: v for k, v in row.items() if k in _FIELDS})  # a field since dropped: ignored


class Spool:
    """Thread-safe `append`; `pending(mark)` yields what lies after a mark, oldest first."""

    def __init__(self, directory: Path, *, fsync: bool = False,
                 segment_bytes: int = SEGMENT_BYTES) -> None:
        self.dir, self.fsync, self.segment_bytes = directory, fsync, segment_bytes
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock_fd = _lock(self.dir)
        self._mutex = threading.Lock()
        self._readers: dict[int, int] = {}  # segment -> a descriptor the writer reads it by
        self.unreadable = 0  # lines `read` skipped
        segments = self.segments()
        self._segment = segments[-1] if segments else 1
        self._fd = self._open(self._segment)
        self._offset = os.lseek(self._fd, 0, os.SEEK_END)
        if self._offset and _last_byte(self._path(self._segment)) != b"\n":
            self.append_raw(b"\n")  # end a line torn by a kill, so the next event starts clean

    @property
    def name(self) -> str:
        """This spool's key in the store (several machines may share one database)."""
        return f"{socket.gethostname()}:{self.dir.resolve()}"

    def segments(self) -> list[int]:
        return sorted(int(p.stem) for p in self.dir.glob("*.jsonl") if p.stem.isdigit())

    def append(self, ev: Event) -> Position:
        return self.append_raw(encode(ev))

    def append_raw(self, data: bytes) -> Position:
        with self._mutex:
            if self._offset and self._offset + len(data) > self.segment_bytes:
                os.close(self._fd)
                self._segment += 1
                self._fd, self._offset = self._open(self._segment), 0
            _write_all(self._fd, data)
            if self.fsync:
                os.fsync(self._fd)
            self._offset += len(data)
            return Position(self._segment, self._offset)

    @property
    def end(self) -> Position:
        """Just after the last append."""
        with self._mutex:
            return Position(self._segment, self._offset)

    def start(self, mark: Position | None) -> Position:
        """Where reading resumes: at the store's mark, else at the oldest segment's start."""
        if mark is not None:
            return mark
        segments = self.segments()
        return Position(segments[0] if segments else self._segment, 0)

    def pending(self, mark: Position | None) -> Iterator[tuple[Record, Position]]:
        """Records after `mark` (all of them when None) up to the last append, oldest first."""
        at, end = self.start(mark), self.end
        while True:
            got, at = self.read(at, end, 10_000)
            if not got:
                return
            yield from got

    def count(self, start: Position, end: Position) -> int:
        """How many records lie between two positions."""
        n, seg, off = 0, start.segment, start.offset
        while (seg, off) < end:
            chunk = self._chunk(seg, off, end.offset if seg == end.segment else None)
            if not chunk:
                seg, off = seg + 1, 0
                continue
            n, off = n + chunk.count(b"\n"), off + len(chunk)
        return n

    def read(self, start: Position, end: Position,
             limit: int) -> tuple[list[tuple[Record, Position]], Position]:
        """Up to `limit` records from `start` until `end` (a position an append returned, so
        whole lines), each with the position just after it, and where the next read starts. An
        unreadable line (torn by a kill mid-write) is skipped with a warning."""
        out: list[tuple[Record, Position]] = []
        seg, off = start
        while len(out) < limit and (seg, off) < end:
            chunk = self._chunk(seg, off, end.offset if seg == end.segment else None)
            if not chunk:  # the end of a segment an append rolled over from
                seg, off = seg + 1, 0
                continue
            for line in chunk.split(b"\n", limit - len(out))[:-1]:  # the rest, or b"", last
                off += len(line) + 1
                try:
                    out.append((decode_record(line), Position(seg, off)))
                except (ValueError, TypeError, binascii.Error):
                    self.unreadable += 1
                    log.warning("spool %s: an unreadable entry at byte %d skipped",
                                self._path(seg), off - len(line) - 1)
        self._forget_readers(seg)
        return out, Position(seg, off)

    def _chunk(self, seg: int, off: int, stop: int | None) -> bytes:
        """Whole lines of segment `seg` from `off` (up to `stop`): b"" at its end."""
        fd = self._reader(seg)
        if fd is None:
            return b""
        size = CHUNK if stop is None else min(CHUNK, stop - off)
        while True:
            data = os.pread(fd, size, off)
            cut = data.rfind(b"\n") + 1
            if cut or len(data) < size:
                return data[:cut]  # nothing but a torn line at a segment's end: b""
            size *= 2  # one line longer than a chunk

    def _reader(self, seg: int) -> int | None:
        if seg not in self._readers:
            try:
                self._readers[seg] = os.open(self._path(seg), os.O_RDONLY)
            except FileNotFoundError:
                return None
        return self._readers[seg]

    def _forget_readers(self, current: int) -> None:
        for seg in [s for s in self._readers if s < current]:
            os.close(self._readers.pop(seg))

    def release(self, mark: Position) -> None:
        """Delete the segments wholly before `mark` (they are in the store)."""
        for seg in self.segments():
            if seg < mark.segment:
                with contextlib.suppress(FileNotFoundError):
                    self._path(seg).unlink()

    def close(self) -> None:
        with self._mutex:
            os.close(self._fd)
        self._forget_readers(1 << 62)
        os.close(self._lock_fd)

    def _path(self, segment: int) -> Path:
        return self.dir / f"{segment:08d}.jsonl"

    def _open(self, segment: int) -> int:
        return os.open(self._path(segment), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)


def _last_byte(path: Path) -> bytes:
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _lock(directory: Path) -> int:
    fd = os.open(directory / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise NetopsError(f"another netopsai ingest is using the spool {directory}; "
                          "stop it first (one ingest per NETOPSAI_HOME)") from None
    return fd
