"""The ingest write-ahead spool: every Event a receiver takes in is appended to a file before the
receiver returns (before an HTTP 200, before the datagram is counted), so a `kill -9` of ingest
loses only what the kernel had not yet handed over. The queued writer records how far the
spool is in the store, in the same transaction as the events it wrote (a SpoolMark row), and
the next start writes whatever lies beyond that mark: nothing twice, nothing dropped.

Segments are `NNNNNNNN.jsonl` files of one JSON object per line; appends go to the newest,
which rolls over at `segment_bytes`; segments wholly behind the mark are deleted. A lock file
keeps two ingest processes off one spool. `fsync=True` also survives a power cut, at the cost
of one disk flush per event."""

from __future__ import annotations

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

from netopsai.errors import NetopsError
from netopsai.store.apply import Event

log = logging.getLogger("netopsai.ingest")
SEGMENT_BYTES = 16 * 1024 * 1024


class Position(NamedTuple):
    """Just after one event: segment number and byte offset in it."""

    segment: int
    offset: int


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

    def pending(self, mark: Position | None) -> Iterator[tuple[Event, Position]]:
        """Events after `mark` (all of them when None). A torn last line, from a kill in the
        middle of a write, is skipped with a warning."""
        start = mark or Position(0, 0)
        for seg in self.segments():
            if seg < start.segment:
                continue
            offset = start.offset if seg == start.segment else 0
            with open(self._path(seg), "rb") as f:
                f.seek(offset)
                for line in f:
                    offset += len(line)
                    try:
                        yield decode(line), Position(seg, offset)
                    except (ValueError, TypeError):
                        log.warning("spool %s: an unreadable entry at byte %d skipped",
                                    self._path(seg), offset - len(line))

    def release(self, mark: Position) -> None:
        """Delete the segments wholly before `mark` (they are in the store)."""
        for seg in self.segments():
            if seg < mark.segment:
                with contextlib.suppress(FileNotFoundError):
                    self._path(seg).unlink()

    def close(self) -> None:
        with self._mutex:
            os.close(self._fd)
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
