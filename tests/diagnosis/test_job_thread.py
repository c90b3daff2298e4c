"""Job questions in a thread (issue 15 §2): after a job's diagnosis, "and at 19:40?", "is it
still happening?" and "what about job 4740?" keep diagnosing with one thing changed; "which
jobs run on <host>?" and "list the jobs" are look-ups in the job table; an action is declined."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.planner import Vocabulary, help_text, plan
from tests.diagnosis.test_job_llm import QUESTION, culprit, storm_lab
from tests.lab.test_ai_fabric import CLOCK, new_ai_lab

STORM = ("link.pfc_storm", "dc1-gpu1-010", "mlx5_2")


@pytest.fixture
def thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    copilot = Copilot(storm_lab(tmp_path))

    def ask(question: str) -> dict[str, Any]:
        r = copilot.answer(question, "job-thread")
        assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
        return r
    first = ask(QUESTION)
    assert culprit(first) == STORM
    return ask


def _status_window(r: dict[str, Any]) -> Any:
    return next(e["args"]["window"] for e in r["evidence"]
                if e["tool"] == "telemetry" and e["args"]["metric"] == "oper_status")


def _jobs_asked(r: dict[str, Any]) -> list[str]:
    return [e["args"].get("job") for e in r["evidence"]
            if e["tool"] == "metadata" and e["args"]["query"] == "jobs"]


def test_a_time_follow_up_rediagnoses_the_same_job_at_that_time(thread: Any) -> None:
    r = thread("and at 19:40?")
    assert r["intent"] == "diagnose.job" and _jobs_asked(r) == ["4711"]
    w = _status_window(r)  # the job window around 19:40, inside the job's run (from 17:00)
    assert w["start"] < "2025-11-04T19:40" < w["end"] < "2025-11-04T20:00"
    assert culprit(r) == STORM


def test_still_reads_the_last_minutes_not_the_earlier_time(thread: Any) -> None:
    thread("and at 19:40?")
    r = thread("is it still happening?")
    assert r["intent"] == "diagnose.job" and _jobs_asked(r) == ["4711"]
    assert _status_window(r) == "15m" and "'still' read as the last 15m" in r["answer"]
    assert culprit(r) == STORM  # the storm runs to the lab's clock


def test_another_job_in_the_thread_is_diagnosed_not_listed(thread: Any) -> None:
    r = thread("and job 4740?")
    assert r["intent"] == "diagnose.job" and _jobs_asked(r) == ["4740"]
    assert "job 4740" in r["answer"]  # its verdict depends on how far the storm spreads


def test_an_action_in_the_thread_is_declined(thread: Any) -> None:
    r = thread("and reset its NIC")
    assert r["evidence"] == [] and "read-only" in r["answer"]


@pytest.mark.parametrize("question,names", [
    ("which jobs run on dc1-gpu1-010?", ["dc1-gpu1-010"]),
    ("what else runs on dc1-gpu1-010", ["dc1-gpu1-010"]),
    ("jobs on dc1-gpu1-009 and dc1-gpu1-013", ["dc1-gpu1-009", "dc1-gpu1-013"]),
    ("list the running jobs", [None]),
    ("which jobs run on gpu-010?", ["dc1-gpu1-010"]),  # a scheduler's name for the host
])
def test_job_table_lookups(tmp_path: Path, question: str, names: list[str | None]) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan(question, Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent == "inventory.jobs", p.note
    assert [(c.tool, c.args["query"], c.args.get("name")) for c in p.calls] == \
        [("metadata", "jobs", n) for n in names]


def test_what_runs_on_a_switch_is_not_a_job_question(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan("what runs on dc1-gpu1-rail2-leaf02", Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent != "inventory.jobs"


def test_help_on_a_gpu_fabric_gives_job_examples_the_planner_answers(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    vocab = Vocabulary.from_inventory(b.inventory)
    text = help_text(vocab)
    assert "NCCL timeouts on dc1-gpu1-[001-004]" in text
    jobs = text.split("On the GPU fabric:", 1)[1]
    for q in re.findall(r'"([^"]+)"', jobs):
        p = plan(q.replace("<id>", "4711"), vocab, CLOCK)
        assert p.intent != "unknown" and p.calls, q


def test_jobs_on_a_host_that_is_nowhere_lists_nothing(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    vocab = Vocabulary.from_inventory(b.inventory)
    p = plan("which jobs run on gpu-999?", vocab, CLOCK)
    assert p.calls == [] and "'gpu-999' is not in the inventory" in p.note  # not every job
    named = plan("which jobs run on gpu-010?", vocab, CLOCK)
    assert "gpu-010 read as dc1-gpu1-010" in named.note and "not in the inventory" not in named.note
