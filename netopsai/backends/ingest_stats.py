"""The ingest's own counters: what each receiver took in and refused, what the kernel dropped
before it could (the socket's `drops` in /proc/net/udp) and still holds for it (its queue),
what the writer stored, refused and still has to store (the backlog, on disk in the spool).

`netopsai ingest` prints them as one line every REPORT_EVERY seconds while they change, on
SIGUSR1 and at exit, and keeps them in NETOPSAI_HOME/ingest.prom, rewritten every
EXPORT_EVERY seconds in Prometheus' text format: node_exporter's textfile collector
(`--collector.textfile.directory`) serves them from there."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netopsai.backends.receivers import Ingest

REPORT_EVERY = 60.0
EXPORT_EVERY = 5.0
PREFIX = "netopsai_ingest"
# (metric, type, help) for the writer's counters
WRITER = (("written", "counter", "Events stored (repeats within the dedupe window included)"),
          ("duplicates", "counter", "Retransmissions counted on an earlier event's row"),
          ("failed", "counter", "Events that could not be stored"),
          ("undecodable", "counter", "Datagrams their parser refused (not syslog, not a trap)"),
          ("lost", "counter", "Events not stored at stop, without a spool to keep them"),
          ("replayed", "counter", "Events taken from the spool at start (received before a stop)"),
          ("backlog", "gauge", "Events taken in and not yet stored (waiting in the spool)"))



def snapshot(ingest: Ingest) -> dict[str, int]:
    """Every counter now, by name: `syslog_received`, `trap_kernel_drops`, `written`, ..."""
    out: dict[str, int] = {}
    for source, receiver in (("syslog", ingest.syslog), ("trap", ingest.traps)):
        if receiver is None:
            continue
        intake = receiver.intake
        out[f"{source}_received"] = intake.received
        out[f"{source}_refused"] = intake.refused
        out[f"{source}_kernel_drops"], out[f"{source}_kernel_queue_bytes"] = intake.kernel_counts()
    if ingest.webhook is not None:
        out["alertmanager_received"] = ingest.webhook.received
    if ingest.writer is not None:
        stats = ingest.writer.stats
        out.update(written=stats.written, duplicates=stats.duplicates, failed=stats.failed,
                   undecodable=stats.undecodable, lost=stats.lost, replayed=stats.replayed,
                   backlog=max(0, stats.pending))
    return out


def line(snap: dict[str, int]) -> str:
    """One line for the terminal."""
    parts = []
    for source in ("syslog", "trap", "alertmanager"):
        if f"{source}_received" in snap:
            extra = ""
            if f"{source}_kernel_drops" in snap:
                queued = snap.get(f"{source}_kernel_queue_bytes", 0)
                extra = (f" ({snap[f'{source}_kernel_drops']:,} dropped by the kernel, "
                         f"{snap[f'{source}_refused']:,} refused"
                         + (f", {queued:,} bytes still in the kernel" if queued else "") + ")")
            parts.append(f"{source} {snap[f'{source}_received']:,} received{extra}")
    if "written" in snap:
        parts.append(f"{snap['written']:,} written, {snap['backlog']:,} waiting in the spool, "
                     f"{snap['failed'] + snap['undecodable']:,} not stored, {snap['lost']:,} lost")
    return "ingest: " + "; ".join(parts)


def prometheus(snap: dict[str, int]) -> str:
    """The counters in Prometheus' text exposition format."""
    out: list[str] = []
    for metric, what in (("received", "Events each receiver took in (into the spool)"),
                         ("refused", "Datagrams refused on receipt (a wrong community)"),
                         ("kernel_drops", "Datagrams the kernel dropped: the socket's buffer "
                                          "was full")):
        rows = [(s, snap[f"{s}_{metric}"]) for s in ("syslog", "trap", "alertmanager")
                if f"{s}_{metric}" in snap]
        if rows:
            out += [f"# HELP {PREFIX}_{metric}_total {what}", f"# TYPE {PREFIX}_{metric}_total counter"]
            out += [f'{PREFIX}_{metric}_total{{source="{s}"}} {v}' for s, v in rows]
    queue = [(s, snap[f"{s}_kernel_queue_bytes"]) for s in ("syslog", "trap")
             if f"{s}_kernel_queue_bytes" in snap]
    if queue:  # the backlog before the spool: datagrams the receiving thread has not read yet
        name = f"{PREFIX}_kernel_queue_bytes"
        out += [f"# HELP {name} Bytes of datagrams waiting in the socket's kernel buffer",
                f"# TYPE {name} gauge"] + [f'{name}{{source="{s}"}} {v}' for s, v in queue]
    for key, kind, what in WRITER:
        if key in snap:
            name = f"{PREFIX}_{key}" + ("_total" if kind == "counter" else "")
            out += [f"# HELP {name} {what}", f"# TYPE {name} {kind}", f"{name} {snap[key]}"]
    return "\n".join(out) + "\n"


def export(path: Path, snap: dict[str, int]) -> None:
    """Rewrite the textfile whole (a reader never sees half of it)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(prometheus(snap))
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


async def report(ingest: Ingest, echo: Callable[[str], None], path: Path | None,
                 every: float = REPORT_EVERY, export_every: float = EXPORT_EVERY) -> None:
    """Until cancelled: export every `export_every` s, print every `every` s if anything moved."""
    shown: dict[str, int] | None = None
    last_shown = asyncio.get_running_loop().time()
    while True:
        await asyncio.sleep(export_every)
        snap = await asyncio.to_thread(snapshot, ingest)
        if path is not None:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(export, path, snap)
        now = asyncio.get_running_loop().time()
        if now - last_shown >= every and snap != shown:
            echo(line(snap))
            shown, last_shown = snap, now


class Watch:
    """The counters of a running ingest: reported (see `report`) and printed on SIGUSR1 until
    `close`, which prints and exports them a last time."""

    def __init__(self, ingest: Ingest, echo: Callable[[str], None], path: Path | None) -> None:
        self.ingest, self.echo, self.path = ingest, echo, path
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(report(ingest, echo, path))
        self._signal = False
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not on main
            loop.add_signal_handler(signal.SIGUSR1, self.show)
            self._signal = True

    def show(self) -> None:
        self.echo(line(snapshot(self.ingest)))

    def close(self) -> None:
        """Once the ingest has stopped: its last counters, printed and exported."""
        self._task.cancel()
        if self._signal:
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGUSR1)
        snap = snapshot(self.ingest)
        self.echo(line(snap))
        if self.path is not None:
            with contextlib.suppress(OSError):
                export(self.path, snap)
