"""Issue 15 §2, job-centric questions: "job 4711 hit an NCCL timeout" on the small AI lab names
the fault on the job's NICs and rails (label, device, port), the hosts it hurts and what to do,
every claim cited; a job with nothing wrong gets an honest "nothing found"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.evidence import validate_citations
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.planner import Vocabulary, plan
from netopsai.service import Copilot
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool
from tests.test_ai_fabric import CLOCK, new_ai_lab

JOB, JOB_HOSTS = "4711", ["dc1-gpu1-009", "dc1-gpu1-010", "dc1-gpu1-011", "dc1-gpu1-012"]
HOST, LEAF = "dc1-gpu1-010", "dc1-gpu1-rail2-leaf02"  # HOST's mlx5_2 is LEAF's Ethernet2
QUESTION = f"job {JOB} hit an NCCL timeout"


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def ask(tmp_path: Path, faults: list[dict[str, Any]], question: str = QUESTION) -> dict[str, Any]:
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "job-q", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": question,
        "faults": [{"at": "-25m", **f} for f in faults]}))
    result = Copilot(lab_backends(engine)).answer(question, "t")
    ids = {e["id"] for e in result["evidence"]}
    assert validate_citations(result["answer"], ids) == [], result["answer"]
    assert result["citations"] and set(result["citations"]) <= ids
    return result


def test_the_lab_job_is_on_the_hosts_the_faults_use(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    ev = run_tool("metadata", {"query": "jobs", "job": JOB}, b)
    assert ev.rows[0]["hosts"] == JOB_HOSTS and ev.rows[0]["end"] is None
    assert "dc1-gpu1-[009-012]" in ev.summary and ev.rows[0]["until"] == "2025-11-04T20:00:00Z"
    bad = run_tool("metadata", {"query": "jobs", "job": "4712"}, b)
    assert bad.errors and "did you mean" in bad.errors[0]
    on = run_tool("metadata", {"query": "jobs", "name": HOST}, b)
    assert JOB in {r["id"] for r in on.rows}


@pytest.mark.parametrize("question,job,hosts,intent", [
    (QUESTION, JOB, [], "diagnose.job"),
    ("job 4711 hit an NCCL timeout at 14:02", JOB, [], "diagnose.job"),
    ("why is job 4711 slow since the restart?", JOB, [], "diagnose.job"),
    ("NCCL timeouts on dc1-gpu1-[009-010,012]", None,
     ["dc1-gpu1-009", "dc1-gpu1-010", "dc1-gpu1-012"], "diagnose.job"),
    ("NCCL timeouts on dc1-gpu1-003 and dc1-gpu1-004", None, ["dc1-gpu1-003", "dc1-gpu1-004"],
     "diagnose.job"),
    ("which hosts does job 4711 use?", JOB, [], "inventory.jobs"),
])
def test_planner_reads_job_questions(tmp_path: Path, question: str, job: str | None,
                                     hosts: list[str], intent: str) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan(question, Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent == intent, p.note
    assert p.entities.jobs == ([job] if job else [])
    assert p.entities.devices == hosts
    assert p.calls and p.calls[0].tool == "metadata" and p.calls[0].args["query"] == "jobs"


def test_a_hostlist_outside_the_inventory_is_said(tmp_path: Path) -> None:
    b = lab_backends(new_ai_lab(tmp_path / "x.db"))
    p = plan("NCCL timeouts on gpu-[001-064]", Vocabulary.from_inventory(b.inventory), CLOCK)
    assert p.intent == "unknown" and "not in the inventory" in p.note and not p.calls


@pytest.mark.parametrize("kind,target,params,label,device,interface", [
    ("nic_flap", {"link": f"{HOST}:mlx5_2"}, {"count": 6}, "link.flapping", HOST, "mlx5_2"),
    ("pfc_storm", {"interface": f"{HOST}:mlx5_2"}, {}, "link.pfc_storm", HOST, "mlx5_2"),
    ("gpu_host_down", {"device": HOST}, {}, "host.down", HOST, None),
    ("ecmp_collision", {"link": f"{LEAF}:Ethernet10"}, {"job": JOB}, "link.ecmp_collision", LEAF,
     "Ethernet10"),
    ("rail_link_down", {"link": f"{HOST}:mlx5_2"}, {}, "link.down", HOST, "mlx5_2"),
])
def test_job_diagnosis_names_the_culprit(tmp_path: Path, kind: str, target: dict[str, str],
                                         params: dict[str, Any], label: str, device: str,
                                         interface: str | None) -> None:
    result = ask(tmp_path, [{"kind": kind, "target": target, "params": params}])
    rc = result["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == (label, device, interface), \
        result["answer"][:800]
    answer = result["answer"]
    assert "affected:" in answer and "Next steps" in answer
    affected = answer.split("affected:", 1)[1].split("—", 1)[0]
    assert ("dc1-gpu1-[009-012]" if kind == "ecmp_collision" else HOST) in affected
    tools = {(e["tool"], e["args"].get("metric") or e["args"].get("query"))
             for e in result["evidence"]}
    assert {("metadata", "jobs"), ("telemetry", "pfc"), ("telemetry", "retransmits"),
            ("telemetry", "oper_status"), ("alarms", None)} <= tools


def test_a_healthy_job_gets_nothing_found(tmp_path: Path) -> None:
    result = ask(tmp_path, [])
    assert result["root_cause"]["label"] == "none" and result["root_cause"]["device"] is None
    assert "nothing found on job 4711's nics and rails" in result["answer"].lower()
    assert "not traced" in result["answer"]  # per-rail connectivity is not claimed


def test_a_fault_elsewhere_is_not_the_jobs(tmp_path: Path) -> None:
    """A NIC of a host the job does not use flaps: job 4711's answer names nothing."""
    result = ask(tmp_path, [{"kind": "nic_flap", "target": {"link": "dc1-gpu1-002:mlx5_2"}}])
    assert result["root_cause"]["label"] == "none", result["answer"][:600]


def test_an_unknown_job_is_said(tmp_path: Path) -> None:
    result = ask(tmp_path, [], "job 4712 hit an NCCL timeout")
    assert result["root_cause"]["label"] == "inconclusive"
    answer = result["answer"]
    assert "unknown job '4712'" in answer.lower() and "did you mean 4711" in answer
    assert sum(e["tool"] == "metadata" for e in result["evidence"]) == 1


def test_hostlist_compress_is_expands_inverse() -> None:
    from netopsai.hostlist import compress, expand

    names = ["gpu-001", "gpu-002", "gpu-003", "gpu-010", "login1", "gpu-011"]
    assert compress(names) == "gpu-[001-003,010-011],login1"
    assert sorted(expand(compress(names))) == sorted(names)
    assert compress(["dc1-gpu1-010"]) == "dc1-gpu1-010" and compress([]) == ""
