"""The copilot with a real small model (SmolLM2-135M-Instruct over llama-cpp-python's
OpenAI-compatible server on loopback): whatever the model plans — nothing, the wrong tool, or
nonsense — every answer is cited, holds at least what the offline planner finds for the same
question, and a diagnosis is the engine's. The model must never make an answer worse."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai_testkit.peers.llama import serve_model, skip_reason

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]

# (question, a fact the offline answer holds that the model's answer must hold too)
QUESTIONS = [
    ("who owns 10.1.3.20?", "dc1-host-03-1"),
    ("10.1.3.20 to 10.2.1.40 not communicating", None),
    ("any DCI link alarms in the last 2 hours?", None),
]


@pytest.fixture(scope="module")
def model_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_model(tmp_path_factory.mktemp("llama") / "server.log")


def _model(url: str) -> Any:
    from netopsai.copilot.llm import LLMSettings, make_chat_model

    # the copilot's own model factory: what it sends is what a deployment sends
    return make_chat_model(LLMSettings(base_url=url, model="smollm2", timeout=180, max_tokens=200))


@pytest.mark.parametrize(("question", "fact"), QUESTIONS, ids=["owner", "diagnosis", "dci-alarms"])
def test_a_real_small_model_never_makes_the_answer_worse(backends: Any, model_url: str, question: str,
                                                         fact: str | None) -> None:
    offline = Copilot(backends).answer(question, "offline")
    r = Copilot(backends, llm=_model(model_url)).answer(question, "real-model")
    assert r["llm_calls"] >= 1 and r["tokens"]["prompt"] > 0  # the model was really asked
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert {e["tool"] for e in offline["evidence"]} <= {e["tool"] for e in r["evidence"]}
    if offline["root_cause"]:
        assert (r["root_cause"]["label"], r["root_cause"]["device"]) == \
            (offline["root_cause"]["label"], offline["root_cause"]["device"])
    if fact:
        assert fact in offline["answer"] and fact in r["answer"], r["answer"]
    assert "Nothing to look up" not in r["answer"]
    Path("test-artifacts").mkdir(exist_ok=True)  # what the model contributed, for the record
    with open("test-artifacts/real-model-answers.md", "a", encoding="utf-8") as f:
        f.write(f"## {question}\n\n{r['answer']}\n\n")


def test_a_real_small_model_keeps_the_job_diagnosis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     model_url: str) -> None:
    """A job question on the AI lab: the model plans what it plans, the culprit stays the
    offline planner's (a PFC storm on the job's NIC)."""
    from tests.diagnosis.test_job_llm import QUESTION, culprit, storm_lab

    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    b = storm_lab(tmp_path)
    offline = Copilot(b).answer(QUESTION, "offline")
    r = Copilot(b, llm=_model(model_url)).answer(QUESTION, "real-model-job")
    assert r["llm_calls"] >= 1 and r["tokens"]["prompt"] > 0
    assert culprit(r) == culprit(offline) == ("link.pfc_storm", "dc1-gpu1-010", "mlx5_2")
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert {e["tool"] for e in offline["evidence"]} <= {e["tool"] for e in r["evidence"]}
