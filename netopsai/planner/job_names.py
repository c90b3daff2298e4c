"""Jobs named by their name, a non-numeric id or a bare number ("the llama-70b-pretrain job is
stuck", "NCCL timeouts in ml/bert-sweep", "training run 4711 hangs"): Slurm jobs are known by
name as much as by number, and a Kubernetes job's id is `namespace/name`. Read from the job
table at question time (jobs come and go between imports), only when the question speaks of
jobs at all."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)
JobTable = Callable[[], Sequence[Mapping[str, Any]]]
# a question that may name a job: the word, or a training job's usual symptoms
ABOUT_JOBS = re.compile(r"\bjobs?\b|\bnccl\b|\btraining\b|\brdma\b|\ball-?reduce\b|\bcollectives?\b",
                        re.I)
MIN_NAME = 4  # shorter names ("run", "a1") are words, not names


@dataclass
class NamedJob:
    id: str
    span: tuple[int, int]  # where the name is in the question
    note: str | None  # how a name shared by several jobs was resolved

    def masked(self, question: str) -> str:
        """The question with the name blanked, so its words and digits are not read again."""
        a, b = self.span
        return question[:a] + " " * (b - a) + question[b:]


def named_job(question: str, table: JobTable | None) -> NamedJob | None:
    """The job whose id or name the question contains as a whole word, the longest match
    first; of several jobs with that name, the running one, else the one started last."""
    if table is None or not ABOUT_JOBS.search(question):
        return None
    try:
        rows = table()
    except Exception as exc:  # a job table that cannot be read must not stop other questions
        log.warning("job names not read: %s", exc)
        return None
    by_name: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        for key in {str(row["id"]), str(row.get("name") or "")}:
            if len(key) >= MIN_NAME:  # "training run 4711 hangs": a bare number, if a job's
                by_name.setdefault(key.lower(), []).append(row)
    low = question.lower()
    for key in sorted(by_name, key=len, reverse=True):
        m = re.search(rf"(?<![\w/.-]){re.escape(key)}(?![\w/-])", low)
        if m:
            return _pick(key, by_name[key], m.span())
    return None


def _pick(key: str, rows: list[Mapping[str, Any]], span: tuple[int, int]) -> NamedJob:
    ids = list(dict.fromkeys(str(r["id"]) for r in rows))
    if len(ids) == 1:
        return NamedJob(ids[0], span, None if ids[0].lower() == key else
                        f"'{key}' is job {ids[0]}")
    running = [r for r in rows if r.get("end") is None]
    best = max(running or rows, key=lambda r: str(r.get("start") or ""))
    why = "the one running" if len(running) == 1 else "the one started last"
    return NamedJob(str(best["id"]), span, f"{len(ids)} jobs are named '{key}': job "
                    f"{best['id']}, {why}")
