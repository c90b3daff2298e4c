"""Jobs asked about by name (issue 15 §2): a Slurm job's name ("the llama-70b-pretrain job is
stuck") or a Kubernetes job's id, `namespace/name` from a real `kubectl get pods -o json`
import, is the job's diagnosis, the same as asking by number; a name several jobs share picks
the running one and says so."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.planner import Vocabulary, plan
from netopsai.planner.job_names import named_job
from netopsai.store.jobs_import import import_jobs, store_jobs
from tests.lab.test_ai_fabric import CLOCK, DATA, new_ai_lab


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    engine = new_ai_lab(tmp_path / "ai.db")
    import_jobs(engine, DATA / "pods.json")  # research/gpt-train, etl/data-prep
    return engine


def _plan(lab: Any, question: str) -> Any:
    b = lab_backends(lab)
    return plan(question, Vocabulary.from_inventory(b.inventory), CLOCK,
                job_table=lambda: b.inventory.jobs(None, None))


@pytest.mark.parametrize("question,job", [
    ("the llama-70b-pretrain job is stuck", "4709"),
    ("NCCL timeouts on moe-finetune since 19:00", "4711"),
    ("job research/gpt-train hit an NCCL timeout", "research/gpt-train"),
    ("why is the gpt-train job slow?", "research/gpt-train"),
    ("training run 4711 is hanging", "4711"),  # a bare number, when it is a job's
    ("4711 NCCL timeout", "4711"),
])
def test_a_job_named_by_name_is_diagnosed(lab: Any, question: str, job: str) -> None:
    p = _plan(lab, question)
    assert p.intent == "diagnose.job" and p.entities.jobs == [job], p.note
    assert p.calls[0].args == {"query": "jobs", "job": job}
    assert "not in the inventory" not in p.note  # the name's parts are not read as devices


def test_words_are_not_job_names(lab: Any) -> None:
    assert _plan(lab, "list the pods of dc1").intent != "diagnose.job"
    assert named_job("which jobs run on dc1-gpu1-010?", lambda: [
        {"id": "7", "name": "run", "end": None, "start": None}]) is None  # too short to be a name
    assert named_job("the llama job", lambda: [
        {"id": "8", "name": "llama-70b", "end": None, "start": None}]) is None  # a part is not it


def test_a_shared_name_picks_the_running_job_and_says_so(lab: Any) -> None:
    store_jobs(lab, [{"id": "4600", "name": "moe-finetune", "owner": "esra", "hosts": [],
                      "start": CLOCK - timedelta(days=2), "end": CLOCK - timedelta(days=1),
                      "state": "COMPLETED", "source": "slurm"}])
    p = _plan(lab, "NCCL timeout on the moe-finetune job")
    assert p.entities.jobs == ["4711"]
    assert "2 jobs are named 'moe-finetune': job 4711, the one running" in p.note


def test_a_kubernetes_job_by_name_end_to_end(lab: Any) -> None:
    r = Copilot(lab_backends(lab)).answer("NCCL timeouts in research/gpt-train", "k8s")
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    rows = next(e for e in r["evidence"] if e["tool"] == "metadata"
                and e["args"].get("query") == "jobs")["rows"]
    assert [x["id"] for x in rows] == ["research/gpt-train"]
    assert "job research/gpt-train" in r["answer"] and "2 hosts up" in r["answer"]
    assert r["root_cause"]["label"] == "none"
    assert "the pair on each of the 8 rails reachable" in r["answer"]  # 2 hosts: one pair a rail


def test_a_broken_job_table_does_not_stop_the_question(lab: Any) -> None:
    def broken() -> list[dict[str, Any]]:
        raise RuntimeError("no such table: job")
    b = lab_backends(lab)
    p = plan("NCCL timeouts on dc1-gpu1-[009-010]", Vocabulary.from_inventory(b.inventory), CLOCK,
             job_table=broken)
    assert p.intent == "diagnose.job" and p.entities.devices == ["dc1-gpu1-009", "dc1-gpu1-010"]


@pytest.mark.parametrize("question,job", [
    ("allreduce hang on gpu nodes dc1-gpu1-009,dc1-gpu1-010", True),
    ("all-gather stuck on dc1-gpu1-009 and dc1-gpu1-010", True),
    ("dc1-gpu1-009 and dc1-gpu1-010 time out", True),  # a stall of several GPU hosts
    ("dc1-gpu1-010 is stuck", False),  # one host: that host's question
])
def test_a_collectives_words_on_gpu_hosts_are_a_job_question(lab: Any, question: str,
                                                               job: bool) -> None:
    p = _plan(lab, question)
    assert (p.intent == "diagnose.job") == job, (p.intent, p.note)
