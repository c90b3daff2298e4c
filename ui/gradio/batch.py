"""The Batch tab: IP pairs pasted or uploaded run through netopsai.copilot.batch on a worker thread; the
handler is a generator, so the progress bar and the results table update as pairs finish, then
the summary (groups by failing device) and a CSV to download."""

from __future__ import annotations

import html
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.common.scratch import owned_scratch
from netopsai.common.words import count
from netopsai.copilot import batch
from netopsai.copilot.batch import Pair, PairResult
from netopsai.copilot.batch.output import COLUMNS, Sink, summary_lines, to_row
from netopsai.copilot.batch.parse import parse_input, read_text

EVERY_S = 0.25  # at most four table refreshes a second: the browser, not the checks, is the limit
LIVE_ROWS = 1000  # rows sent per refresh while running; the final table has them all
MAX_INPUT = 5_000_000  # bytes of pasted or uploaded text


@dataclass
class BatchView:
    progress: str
    table: Styler  # the frame is .data
    summary: str = ""
    csv_path: str | None = None
    results: list[PairResult] = field(default_factory=list)


# the status cell's colours (text, background): red and amber read at a glance, and the word
# itself is there for anyone who does not see the colour
STATUS_STYLE = {"reachable": ("#166534", "#dcfce7"), "degraded": ("#92400e", "#fef3c7"),
                "unreachable": ("#991b1b", "#fee2e2"), "error": ("#374151", "#e5e7eb")}


# the web table leads with the verdict: status right after the pair (the CSV keeps COLUMNS)
SHOWN = ["line", "src", "dst", "status", *(c for c in COLUMNS if c not in ("line", "src", "dst", "status"))]


def _status_css(value: Any) -> str:
    fg, bg = STATUS_STYLE.get(str(value), ("", ""))
    return f"color: {fg}; background-color: {bg}; font-weight: 600" if fg else ""


def table(results: list[PairResult], limit: int | None = None) -> Styler:
    """The results as the CSV has them (same columns, same cell text), in input order, the
    status cell coloured."""
    rows = sorted(results, key=lambda r: r.line)[:limit]
    frame = pd.DataFrame([to_row(r) for r in rows], columns=COLUMNS)[SHOWN]
    return frame.style.map(_status_css, subset=["status"])


def progress_html(done: int, total: int, results: list[PairResult], finished: bool = False) -> str:
    pct = 100 * done / total if total else 100
    what = "done" if finished else "running"
    seen = Counter(r.status for r in results)
    tally = ", ".join(f"{seen[k]} {k}" for k in ("unreachable", "degraded", "error") if seen[k])
    return (f'<div id="batch-progress-box"><progress id="batch-progress" value="{done}" max="{total or 1}" '
            f'style="width:100%;height:18px"></progress><div><b>{done}/{total}</b> pairs checked '
            f"({pct:.0f}%){': ' + tally if tally else ''} — {what}</div></div>")


def summary_md(results: list[PairResult], errors: list[str]) -> str:
    """The batch runner's own summary (counts, then one line per failing device and cause),
    then the input lines that were skipped."""
    first_error = next((r.error for r in results if r.error), None)
    head, *groups = summary_lines(batch.summarize(results), first_error) if results else [""]
    lines = [f"**{head}**" if head else "", *(f"- {html.escape(g, quote=False)}" for g in groups)]
    if errors:
        lines.append("\n**about the input:**")
        lines += [f"- {html.escape(e, quote=False)}" for e in errors[:20]]
    return "\n".join(x for x in lines if x)


def write_csv(results: list[PairResult], out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"netopsai-batch-{time.strftime('%Y%m%d-%H%M%S')}.csv"
    with path.open("w", newline="") as fh:
        sink = Sink(fh, as_json=False, header=True)
        for r in sorted(results, key=lambda r: r.line):
            sink.write(r)
    return path


def read_input(text: str | None, upload: str | None) -> str:
    """An uploaded file wins over pasted text (it is the more deliberate act)."""
    if upload:
        p = Path(upload)
        if p.stat().st_size > MAX_INPUT:
            raise ValueError(f"{p.name} is larger than {MAX_INPUT // 1_000_000} MB")
        return read_text(p)  # the CLI's reader: UTF-8 (with or without BOM) or a clear error
    return (text or "")[:MAX_INPUT]


class BatchHandler:
    def __init__(self, backends: Backends, concurrency: int = 8, out_dir: Path | None = None) -> None:
        self.backends = backends
        self.concurrency = concurrency
        self.out_dir = out_dir or owned_scratch(self, "netopsai-batch-")

    def default_source(self) -> str:
        try:
            return str(batch.default_source(self.backends))
        except NetopsError:  # no hosts to probe from: the user types one
            return ""

    def run(self, text: str | None, upload: str | None, source: str | None,
            progress: Callable[..., Any] | None = None) -> Iterator[BatchView]:
        """Parse, then check pairs concurrently, yielding as results arrive."""
        try:
            parsed = parse_input(read_input(text, upload), (source or "").strip() or self.default_source())
        except (ValueError, OSError, NetopsError) as exc:
            yield BatchView(progress_html(0, 0, [], True), table([]), f"**error:** {exc}")
            return
        pairs, errors = parsed.pairs, parsed.errors
        if parsed.duplicates:
            errors = [*errors, f"{count(parsed.duplicates, 'duplicate pair')} checked once"]
        if not pairs:
            yield BatchView(progress_html(0, 0, [], True), table([]),
                            summary_md([], errors) or "Paste IP pairs (src,dst) or IPs, one a line.")
            return
        yield from self._check(pairs, errors, progress)

    def _check(self, pairs: list[Pair], errors: list[str],
               progress: Callable[..., Any] | None) -> Iterator[BatchView]:
        got: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()
        checker = batch.BatchChecker(self.backends, concurrency=self.concurrency)

        def work() -> None:
            try:
                got.put(("done", checker.run(pairs, on_result=lambda r: got.put(("one", r)), stop=stop)))
            except Exception as exc:  # surfaces in the page instead of a hung progress bar
                got.put(("error", exc))

        results: list[PairResult] = []
        yield BatchView(progress_html(0, len(pairs), []), table([]))  # the bar shows at once
        threading.Thread(target=work, daemon=True, name="netopsai-batch").start()
        try:
            item: Any = None
            kind, last, fresh = "tick", 0.0, False
            while kind not in ("done", "error"):
                try:
                    kind, item = got.get(timeout=max(EVERY_S, 0.05))
                except queue.Empty:
                    kind = "tick"
                if kind == "one":
                    results.append(item)
                    fresh = True
                if fresh and time.monotonic() - last >= EVERY_S:  # only when something changed
                    last, fresh = time.monotonic(), False
                    if progress:
                        progress((len(results), len(pairs)), desc="checking pairs", unit="pairs")
                    yield BatchView(progress_html(len(results), len(pairs), results),
                                    table(results, LIVE_ROWS), results=results)
        finally:
            stop.set()  # the browser went away or the run ended: no more work
        if kind == "error":
            yield BatchView(progress_html(len(results), len(pairs), results, True),
                            table(results), f"**error:** {type(item).__name__}: {item}", None, results)
            return
        yield self._final(list(item), len(pairs), errors)

    def _final(self, results: list[PairResult], total: int, errors: list[str]) -> BatchView:
        path = write_csv(results, self.out_dir)
        return BatchView(progress_html(len(results), total, results, True), table(results),
                         summary_md(results, errors), str(path), results)

