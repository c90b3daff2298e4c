"""`netopsai batch FILE [-o OUT] [--json] [--resume] [--concurrency N] [--source IP]
[--summary FILE] [--engine local|ray [--address HOST:PORT]] [--record]`.

Rows go to OUT (stdout without -o) in input order, each as soon as the pairs before it are done:
CSV with a header, or JSON Lines with --json (one object per line, so a partial file is still
valid; no rewrite at the end); `status` is reachable, degraded (delivered, but a fault on its
paths), unreachable or error. Bad lines, the progress bar (on a terminal only) and the summary
go to stderr, and the summary as JSON to --summary FILE. Exit codes as fping's: 0 every pair
reachable, 1 some degraded, unreachable or not checkable, 2 with one line for bad input (no
file, no valid line, a foreign file to resume); 130 after Ctrl-C, every finished row flushed.
A file with some bad lines is still checked, as fping pings the hosts it can resolve: the
valid pairs run, are written (and recorded with --record), then the run ends with exit 2 and a
last `error:` line naming the first bad line (SkippedLines), so a script never mistakes a
half-read file for a clean run.
With --engine ray the pairs are traced on Ray (ray_engine.py): the same rows, byte for byte.
With --record every pair's result of this run (not those --resume found) is also stored with the
run's time (the store's probe table, through copilot/batch/history.py), the probe history the
reliability report counts; a run interrupted records nothing, and a store that cannot take the
rows is one line, exit 2."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.common.ray_cluster import RayOptions
from netopsai.common.textsafe import visible
from netopsai.common.timewin import iso
from netopsai.common.words import count
from netopsai.copilot.batch.check import PairResult
from netopsai.copilot.batch.history import check_recordable, record_results
from netopsai.copilot.batch.output import Sink, read_done, summarize, summary_lines
from netopsai.copilot.batch.parse import Parsed, check_source, default_source, parse_input, read_text
from netopsai.copilot.batch.runner import BatchChecker

if TYPE_CHECKING:
    from rich.console import Console

MAX_BAD_SHOWN = 20
MAX_CONCURRENCY = 256


BackendsFactory = Callable[[], Backends]


class SkippedLines(NetopsError):
    """Some input lines could not be read: the others were checked and written (`results`)."""

    def __init__(self, errors: list[str], results: list[PairResult]) -> None:
        self.errors, self.results = errors, results
        n = len(errors)
        what = "1 bad line" if n == 1 else f"{n} bad lines, the first"
        super().__init__(f"{errors[0]} ({what} not checked; the "
                         f"{count(len(results), 'valid pair')} were)")


def cli_main(engine: Engine, file: Path, *, out: Path | None = None, as_json: bool = False,
             resume: bool = False, concurrency: int = 8, source: str | None = None,
             processes: bool | None = None, backends: BackendsFactory | None = None,
             summary: Path | None = None, ray: RayOptions | None = None,
             record: bool = False) -> list[PairResult]:
    """Run the batch command; returns every result in OUT (earlier runs' included). `backends`
    builds the sources once the input is read (default: the configured ones over `engine`,
    netopsai.copilot.frontend), so a bad file is reported before a bad store or config. `ray`: trace
    on Ray instead of local processes. `record`: store this run's results (probe history)."""
    try:
        results, bad = _main(engine, file, out, as_json, resume, concurrency, source,
                             (processes, ray), backends or (lambda: _configured(engine)), record)
    except KeyboardInterrupt:  # before any pair ran (once they run, _main says how far it got)
        print("interrupted before any pair was checked", file=sys.stderr)
        raise SystemExit(130) from None
    if summary is not None:
        write_summary(summary, results)
    if bad:
        raise SkippedLines(bad, results)
    return results


def write_summary(path: Path, results: list[PairResult]) -> None:
    """The summary as JSON (--summary FILE): counts by status and the failure groups."""
    first_error = next((f"line {r.line}: {r.error}" for r in results if r.error), None)
    data = {**summarize(results), "first_error": first_error}
    try:
        path.write_text(json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise NetopsError(f"cannot write the summary to {path}: {exc.strerror}") from None



def _configured(engine: Engine) -> Backends:
    from netopsai.copilot.frontend import frontend_backends

    return frontend_backends(engine)


def _main(engine: Engine, file: Path, out: Path | None, as_json: bool, resume: bool,
          concurrency: int, source: str | None, how: tuple[bool | None, RayOptions | None],
          make_backends: BackendsFactory, record: bool = False
          ) -> tuple[list[PairResult], list[str]]:
    """Every result in OUT, and the input's bad lines ("line N: why")."""
    if concurrency < 1:
        raise NetopsError(f"--concurrency must be at least 1, not {concurrency}")
    if concurrency > MAX_CONCURRENCY:  # each is a thread of ours: a typo must not start 10**20
        raise NetopsError(f"--concurrency must be at most {MAX_CONCURRENCY}, not {concurrency}")
    if resume and out is None:
        raise NetopsError("--resume needs -o FILE: the output of the run to complete")
    text = read_text(file)
    backends = make_backends()  # a clear error when the store holds no network or the config is bad
    parsed = parse_input(text, _source(backends, source))
    if not parsed.pairs:
        why = f": {parsed.errors[0]}" if parsed.errors else " (it is empty or only comments)"
        raise NetopsError(f"no valid line to check in {file}{why}")
    run_at = _recording(engine, backends) if record else None
    earlier = read_done(out, as_json) if resume and out is not None else []
    have = {(r.src, r.dst) for r in earlier}
    todo = [p for p in parsed.pairs if (p.src, p.dst) not in have]
    # stderr carries the input's and the network's words (bad lines, devices, causes): read as
    # plain text, never as rich markup or emoji codes, and each line's controls made visible
    err = _stderr()
    _notes(err, parsed, len(earlier), out)
    checker = BatchChecker(backends, concurrency, *how)  # how: (processes, ray), where pairs are traced
    with _open(out, append=bool(earlier)) as fh, _progress(err, len(todo)) as advance:
        sink = Sink(fh, as_json, header=not earlier, order=[p.line for p in todo])

        def on_result(r: PairResult) -> None:
            sink.write(r)
            advance()
        try:
            with _CtrlC() as ctrl_c:
                results = checker.run(todo, on_result=on_result, stop=ctrl_c.stop)
            if ctrl_c.stop.is_set() and len(results) < len(todo):
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            sink.drain()  # finished pairs held back for order: written, not lost
            where = f"to {out}; run it again with --resume to finish" if out else "above"
            err.print(visible(f"interrupted: {sink.rows} of {len(todo)} pairs written {where}"))
            # not KeyboardInterrupt: typer turns that into an exit code netopsai.launch.app.main drops
            raise SystemExit(130) from None
    everything = earlier + results
    first_error = next((f"line {r.line}: {r.error}" for r in everything if r.error), None)
    for line in summary_lines(summarize(everything), first_error):
        err.print(visible(line))
    if run_at is not None:
        n = record_results(engine, results, run_at, backends.inventory.ip_owner)
        err.print(f"recorded {count(n, 'probe result')} at {iso(run_at)}")
    return everything, parsed.errors


def _recording(engine: Engine, backends: Backends) -> datetime:
    """The run's time (the network's clock: the lab's for the lab), once the store is known to
    take probe rows: a bad store is said before the run, not after an hour of tracing."""
    check_recordable(engine)
    return backends.inventory.clock()


class _CtrlC:
    """The first Ctrl-C ends the run after the pair in hand (the rows so far stay valid); a
    second one interrupts at once. Not a KeyboardInterrupt the first time: one raised inside a
    destructor is swallowed by Python and the batch would run on to the end."""

    def __enter__(self) -> _CtrlC:
        self.stop = threading.Event()
        self._old = signal.signal(signal.SIGINT, self._pressed)
        return self

    def _pressed(self, _signum: int, _frame: object) -> None:
        if self.stop.is_set():
            raise KeyboardInterrupt
        self.stop.set()

    def __exit__(self, *_: object) -> None:
        signal.signal(signal.SIGINT, self._old)


def _source(backends: Backends, source: str | None) -> str | None:
    if source:
        return check_source(source)
    try:
        return default_source(backends)
    except NetopsError:
        return None  # bare IPs then get "needs a probe source" per line; pairs still run


def _notes(err: _Err, parsed: Parsed, resumed: int, out: Path | None) -> None:
    for msg in parsed.errors[:MAX_BAD_SHOWN]:
        err.print(visible(f"skipped {msg}"))
    if len(parsed.errors) > MAX_BAD_SHOWN:
        err.print(f"skipped {len(parsed.errors) - MAX_BAD_SHOWN} more bad lines")
    if parsed.duplicates:
        err.print(f"skipped {count(parsed.duplicates, 'duplicate pair')}")
    if resumed:
        err.print(visible(f"resuming: {resumed} pairs already in {out}"))


@contextmanager
def _open(out: Path | None, append: bool) -> Iterator[TextIO]:
    if out is None:
        yield sys.stdout
        return
    try:
        fh = out.open("a" if append else "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise NetopsError(f"cannot write {out}: {exc.strerror or exc}") from None
    with fh:
        yield fh


class _Err(Protocol):
    @property
    def is_terminal(self) -> bool: ...

    def print(self, text: str) -> None: ...


class _Plain:
    """stderr when it is no terminal (a pipe, a log, a script's capture): each line written as
    rich's Console wrote it there — the text and a line end, the text already made visible —
    without importing rich, ~0.035 s of the batch's serial start (bench/RESULTS.md
    "batch-speed-3"). A terminal gets rich's Console, and the progress bar with it."""

    is_terminal = False

    def print(self, text: str) -> None:
        sys.stderr.write(visible(text) + "\n")  # visible: a no-op on the lines given, kept as a guard
        sys.stderr.flush()


def _stderr() -> _Err:
    """rich's Console wherever it would see a terminal (a tty, or told so by TTY_COMPATIBLE or
    FORCE_COLOR, as rich reads them), else plain lines."""
    if (not sys.stderr.isatty() and not os.environ.get("TTY_COMPATIBLE")
            and os.environ.get("FORCE_COLOR") is None):
        return _Plain()
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)


def _progress(err: _Err, total: int) -> nullcontext[Callable[[], None]] | _Bar:
    """A rich progress bar on stderr when it is a terminal; nothing otherwise (logs, pipes)."""
    if not err.is_terminal or not total:
        return nullcontext(lambda: None)
    return _Bar(err, total)  # type: ignore[arg-type]  # a terminal's is rich's Console


class _Bar:
    def __init__(self, err: Console, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        # stdout may carry the rows: the bar must not capture it
        self.progress = Progress(TextColumn("checking pairs"), BarColumn(), MofNCompleteColumn(),
                                 TimeRemainingColumn(), console=err, transient=True,
                                 redirect_stdout=False, redirect_stderr=False)
        self.task = self.progress.add_task("batch", total=total)

    def __enter__(self) -> Callable[[], None]:
        self.progress.start()
        return lambda: self.progress.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()
