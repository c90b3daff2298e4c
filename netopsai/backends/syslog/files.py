"""Device logs loaded after the fact: syslog-server files (one host per line), `show logging`
captures of one device (`--device`), RFC 5424 exports; plain or gzip. Each line becomes the
Event the live receiver would have made, on the device's clock, and the events of all files go
through the same writer in device-time order — so the alarms and history are those the live
receiver would have built. A line already stored (the same device and the same text) is not
stored again: loading a file twice stores it once.

The reference for a stamp without a year is the file's modification time (a file of last
March's logs stays in March); a clock marked unsynchronised is believed, as there is no
receipt to compare it with.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, select
from sqlmodel import Session, col

from netopsai.backends.syslog.clock import Zones
from netopsai.backends.syslog.receiver import SyslogContext, syslog_event
from netopsai.common.errors import NetopsError
from netopsai.store import tables as m
from netopsai.store.apply import Event
from netopsai.store.writer import QueuedWriter

CHUNK = 500  # fingerprints looked up per query


@dataclass
class LoadStats:
    lines: int = 0
    stored: int = 0  # new events written
    known: int = 0  # already in the store (an earlier load)
    no_device: int = 0  # lines that name no device, with no --device given
    no_time: int = 0  # lines without a time of their own (placed at the file's time)


def read_lines(path: Path) -> Iterator[bytes]:
    """The non-blank lines of a log file, gzip or plain; a clear error for what cannot be read."""
    if not path.is_file():
        raise NetopsError(f"log file not found: {path}" if not path.exists()
                          else f"log file {path} is not a file")
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            for raw in f:
                line = raw.rstrip(b"\r\n")
                if line.strip():
                    yield line
    except (OSError, EOFError) as exc:  # a truncated or foreign .gz
        raise NetopsError(f"cannot read log file {path}: {exc}") from None


def file_events(path: Path, context: SyslogContext, loaded_at: datetime,
                device: str | None = None) -> Iterator[Event]:
    """The Events of one file. `device`: the device the lines are from, for captures whose
    lines name none (`show logging`); a line that names its host keeps it."""
    lines = read_lines(path)  # checks the file first
    first = next(lines, None)
    if device:  # a line naming no host is the device's: on its zone from ingest.timezones
        context = replace(context, zones=Zones(context.zones.of(device), context.zones.rules))
    written = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    for line in itertools.chain([first] if first is not None else [], lines):
        ev = syslog_event(line, "", loaded_at, context, near=written)
        name = ev.name or device
        stamp = hashlib.sha1((name or "").encode() + b"\0" + line).hexdigest()
        yield replace(ev, name=name, host=path.name, fingerprint=stamp, resolve_sender=False)


def load_files(url: str, paths: Iterable[Path], *, device: str | None = None,
               zone: str | None = None, context: SyslogContext | None = None,
               progress: Callable[[int, int], None] | None = None) -> LoadStats:
    """Load log files into the store at `url`. `zone` overrides the configured zones for
    every line that names none. `progress(done, total)` is called as events are written."""
    ctx = context or SyslogContext()
    ctx = replace(ctx, max_skew_s=math.inf,
                  zones=Zones.from_names(zone, what="the timezone") if zone else ctx.zones)
    loaded_at = datetime.now(UTC)
    stats = LoadStats()
    events: list[Event] = []
    for path in paths:
        for ev in file_events(path, ctx, loaded_at, device):
            stats.lines += 1
            stats.no_device += ev.name is None
            stats.no_time += ev.device_time is None
            events.append(ev)
    events.sort(key=lambda e: e.at or loaded_at)  # device-time order across files; stable
    writer = QueuedWriter(url)
    try:
        new = _unknown(writer.engine, events)
        stats.known = len(events) - len(new)
        for i, ev in enumerate(new, 1):
            writer.put(ev)
            if progress and (i % 1000 == 0 or i == len(new)):
                writer.wait_idle(600)
                progress(i, len(new))
        writer.wait_idle(600)
    finally:
        writer.stop()
    stats.stored = writer.stats.written - writer.stats.duplicates - writer.stats.failed
    return stats


def _unknown(engine: Engine, events: list[Event]) -> list[Event]:
    """The events whose fingerprint the store does not hold yet."""
    stamps = sorted({ev.fingerprint for ev in events})
    seen: set[str] = set()
    with Session(engine) as s:
        for i in range(0, len(stamps), CHUNK):
            part = stamps[i:i + CHUNK]
            q = select(col(m.RawEvent.fingerprint)).where(col(m.RawEvent.fingerprint).in_(part))
            seen.update(f for (f,) in s.execute(q) if f)
    return [ev for ev in events if ev.fingerprint not in seen]
