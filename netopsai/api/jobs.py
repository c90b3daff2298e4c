"""Batch checks as background jobs for the HTTP API: submit pairs, poll progress, fetch the CSV
(the same rows, order and summary as `netopsai batch`). Jobs live in the API process; a restart
forgets them (the CLI's --resume is the durable path)."""

from __future__ import annotations

import csv
import io
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from netopsai.backends.base import Backends
from netopsai.batch import BatchChecker, PairResult, default_source, summarize
from netopsai.batch.output import COLUMNS, summary_lines, to_row
from netopsai.batch.parse import parse_input
from netopsai.errors import NetopsError

MAX_JOBS = 50  # finished jobs kept for their CSV; the oldest go first
MAX_PAIRS = 1_000_000


@dataclass
class Job:
    id: str
    total: int
    notes: list[str]
    results: list[PairResult] = field(default_factory=list)
    state: str = "running"  # running | done | failed | stopped
    error: str = ""
    stop: threading.Event = field(default_factory=threading.Event)

    def status(self) -> dict[str, Any]:
        out: dict[str, Any] = {"job": self.id, "state": self.state, "done": len(self.results),
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
    def __init__(self, backends: Backends, concurrency: int = 8) -> None:
        self.backends, self.concurrency = backends, concurrency
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def submit(self, text: str, source: str | None = None) -> Job:
        """Parse now (bad input is a NetopsError at once), check in a worker thread."""
        parsed = parse_input(text, (source or "").strip() or self._source())
        if not parsed.pairs:
            raise NetopsError(parsed.errors[0] if parsed.errors else "no IP pairs in the input")
        if len(parsed.pairs) > MAX_PAIRS:
            raise NetopsError(f"{len(parsed.pairs)} pairs is more than one job takes ({MAX_PAIRS})")
        job = Job(uuid.uuid4().hex[:12], len(parsed.pairs), list(parsed.errors))
        with self._lock:
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

    def get(self, job_id: str) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise NetopsError(f"no batch job {job_id!r} (jobs are kept until the API restarts)")
        return job

    def _source(self) -> str | None:
        try:
            return str(default_source(self.backends))
        except NetopsError:
            return None
