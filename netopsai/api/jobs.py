"""Batch checks as background jobs for the HTTP API: submit pairs, poll progress, fetch the CSV
(the same rows, order and summary as `netopsai batch`), cancel. A job belongs to the token that
submitted it: another token is told there is no such job, and each token runs at most
`per_caller` jobs at once. Jobs live in the API process; a restart forgets them (the CLI's
--resume is the durable path)."""

from __future__ import annotations

import csv
import io
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.batch import BatchChecker, PairResult, default_source, summarize
from netopsai.copilot.batch.output import COLUMNS, summary_lines, to_row
from netopsai.copilot.batch.parse import parse_input

MAX_JOBS = 50  # finished jobs kept for their CSV; the oldest go first
MAX_PAIRS = 1_000_000
PER_CALLER = 2  # running jobs per token: one caller cannot take every probe slot


# what str.splitlines (parse_input) ends a line at, besides \n and \r
_OTHER_BREAKS = ("\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def line_count(text: str) -> int:
    """The lines parse_input would see, counted without splitting (str.count allocates nothing)."""
    breaks = text.count("\n") + text.count("\r") - text.count("\r\n")
    return breaks + sum(text.count(c) for c in _OTHER_BREAKS) + 1


def check_lines(lines: int) -> None:
    """NetopsError when `lines` is more than a job takes (MAX_PAIRS pairs and a header line)."""
    if lines > MAX_PAIRS + 1:
        raise NetopsError(f"{lines} lines is more than one job takes ({MAX_PAIRS} pairs); "
                          "split the input")


class JobNotFound(NetopsError):
    """No such job for this caller (another caller's job is not found either: ids do not leak)."""


class TooManyJobs(NetopsError):
    """The caller already runs as many jobs as it may."""


@dataclass
class Job:
    id: str
    total: int
    notes: list[str]
    owner: str = ""  # the token's name that submitted it
    results: list[PairResult] = field(default_factory=list)
    state: str = "running"  # running | done | failed | stopped (shown: stopping once cancelled)
    error: str = ""
    stop: threading.Event = field(default_factory=threading.Event)

    def status(self) -> dict[str, Any]:
        state = "stopping" if self.state == "running" and self.stop.is_set() else self.state
        out: dict[str, Any] = {"job": self.id, "state": state, "done": len(self.results),
                               "total": self.total, "notes": self.notes}
        if self.error:
            out["error"] = self.error
        if self.state != "running":
            s = summarize(self.results)
            out["summary"] = {"text": summary_lines(s), "status": s["status"]}
        return out

    def csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(to_row(r) for r in sorted(self.results, key=lambda r: r.line))
        return buf.getvalue()


class Jobs:
    def __init__(self, backends: Backends, concurrency: int = 8, per_caller: int = PER_CALLER) -> None:
        self.backends, self.concurrency, self.per_caller = backends, concurrency, per_caller
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def room(self, owner: str = "") -> None:
        """TooManyJobs when `owner` runs as many jobs as it may: checked before a body is read
        or parsed (and again, under the lock, when the job is added)."""
        with self._lock:
            self._room(owner)

    def _room(self, owner: str) -> None:
        running = sum(1 for j in self._jobs.values() if j.owner == owner and j.state == "running")
        if running >= self.per_caller:
            raise TooManyJobs(f"{running} batch jobs of yours are running (at most "
                              f"{self.per_caller}); wait for one or cancel it")

    def submit(self, text: str, source: str | None = None, owner: str = "") -> Job:
        """Parse now (bad input is a NetopsError at once), check in a worker thread. The
        caller's cap and the input's lines (at most MAX_PAIRS, and a header) are checked first:
        parsing a million lines takes seconds and hundreds of MB."""
        self.room(owner)
        check_lines(line_count(text))
        parsed = parse_input(text, (source or "").strip() or self._source())
        if not parsed.pairs:
            raise NetopsError(parsed.errors[0] if parsed.errors else "no IP pairs in the input")
        if len(parsed.pairs) > MAX_PAIRS:
            raise NetopsError(f"{len(parsed.pairs)} pairs is more than one job takes ({MAX_PAIRS})")
        job = Job(uuid.uuid4().hex[:12], len(parsed.pairs), list(parsed.errors), owner)
        with self._lock:  # counted and added under one lock: two submits cannot both slip in
            self._room(owner)
            self._jobs[job.id] = job
            for old in list(self._jobs)[:-MAX_JOBS]:
                if self._jobs[old].state != "running":
                    del self._jobs[old]
        checker = BatchChecker(self.backends, concurrency=self.concurrency)

        def work() -> None:
            try:
                checker.run(parsed.pairs, on_result=job.results.append, stop=job.stop)
                job.state = "stopped" if job.stop.is_set() else "done"
            except Exception as exc:  # the job reports it; the API keeps serving
                job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"
        threading.Thread(target=work, daemon=True, name=f"netopsai-job-{job.id}").start()
        return job

    def get(self, job_id: str, owner: str = "") -> Job:
        job = self._jobs.get(job_id)
        if job is None or job.owner != owner:
            raise JobNotFound(f"no batch job {job_id[:40]!r} of yours (jobs are kept until the "
                              "API restarts)")
        return job

    def cancel(self, job_id: str, owner: str = "") -> Job:
        """Ask a running job to stop: pairs in flight finish, no new ones start; its CSV keeps
        what was checked. A finished job is left as it is."""
        job = self.get(job_id, owner)
        if job.state == "running":
            job.stop.set()
        return job

    def _source(self) -> str | None:
        try:
            return str(default_source(self.backends))
        except NetopsError:
            return None
