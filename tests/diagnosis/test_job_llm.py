"""Job questions with a model planning (issue 15 §2 on the LLM path), over real HTTP against a
scripted OpenAI-compatible server: whatever the model plans — nothing, other tools, the job's
own lookup — the job diagnosis runs and names what the offline planner names, cited."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai_testkit.fake_openai import FakeOpenAI, call, calls, fake_openai_fixture, text  # noqa: F401

JOB, HOST = "4711", "dc1-gpu1-010"
QUESTION = f"job {JOB} hit an NCCL timeout"


def storm_lab(tmp_path: Path) -> Any:
    """The small AI lab with a PFC storm on a NIC of job 4711 (test_real_model uses it too)."""
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "job-llm", "lab": {"spec": "ai", "scale": "small", "seed": 7},
        "now": "2025-11-04T20:00:00Z", "question": QUESTION,
        "faults": [{"at": "-25m", "kind": "pfc_storm",
                    "target": {"interface": f"{HOST}:mlx5_2"}, "params": {}}]}))
    return lab_backends(engine)


@pytest.fixture
def ai_backends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    return storm_lab(tmp_path)


def culprit(r: dict[str, Any]) -> tuple[str, str, str]:
    rc = r["root_cause"]
    return rc["label"], rc["device"], rc["interface"]


@pytest.mark.parametrize("script", [
    [text("NCCL timeouts are usually the application; restart the job.")],
    [calls(call("alarms", {"window": "1h"})), text("No alarms [E1].")],
    [calls(call("metadata", {"query": "jobs", "job": JOB})), text("Job 4711 runs on 4 hosts [E1].")],
], ids=["plans-nothing", "looks-elsewhere", "looks-up-the-job"])
def test_the_model_never_loses_the_job_diagnosis(ai_backends: Any, fake_openai: FakeOpenAI,
                                                  script: list[Any]) -> None:
    offline = Copilot(ai_backends).answer(QUESTION, "offline")
    assert culprit(offline) == ("link.pfc_storm", HOST, "mlx5_2")
    fake_openai.script(*script, *[text("Job 4711 is hurt by a PFC storm.")] * 3)
    r = Copilot(ai_backends, llm=fake_openai.chat_model(timeout=5)).answer(QUESTION, "llm")
    assert r["llm_calls"] >= 1
    assert culprit(r) == culprit(offline), r["answer"][:600]
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert {e["tool"] for e in offline["evidence"]} <= {e["tool"] for e in r["evidence"]}
    assert "restart the job" not in r["answer"]
