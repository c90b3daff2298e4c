"""The real small model (SmolLM2-135M-Instruct on loopback, testkit's peers/llama.py) asked issue
25's question classes on a faulted lab, through the copilot's LLM path: a fault that came and
went asked about its moment, a fault only on the way back asked in one-way words, and a flow
asked in a hurry with a typo. The project's rule is "never worse than the offline planner":
whatever the model plans, the answer names the same root cause at the same place as the
offline answer to the same question on the same lab (and that one is the injected fault, so
the floor itself is checked), cites only its evidence, holds every tool the offline answer
read, keeps the asked window, and its headline does not contradict its rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.diagnosis.consistency import contradictions
from netopsai_testkit.answers import CLASSES as CASES
from netopsai_testkit.answers import lab_copilot
from netopsai_testkit.peers.llama import serve_model, skip_reason
from tests.copilot.test_real_model import _model

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(skip_reason() is not None, reason=skip_reason() or "")]

@pytest.fixture(scope="module")
def model_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_model(tmp_path_factory.mktemp("llama") / "server.log")


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def _culprit(r: dict[str, Any]) -> tuple[str | None, str | None]:
    rc = r.get("root_cause") or {}
    return rc.get("label"), rc.get("device")


@pytest.mark.parametrize("cls", list(CASES))
def test_the_real_model_is_never_worse_than_the_offline_planner(make_lab: Any, model_url: str,
                                                               cls: str) -> None:
    faults, question, truth, kept = CASES[cls]
    engine = make_lab()
    offline = lab_copilot(engine, faults).answer(question, "offline")
    assert _culprit(offline) == truth, offline["answer"][:600]  # the floor finds the fault
    r = Copilot(lab_backends(engine), llm=_model(model_url)).answer(question, "real-model")
    assert r["llm_calls"] >= 1 and r["tokens"]["prompt"] > 0  # the model was really asked
    assert _culprit(r) == _culprit(offline), r["answer"][:600]
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    assert {e["tool"] for e in offline["evidence"]} <= {e["tool"] for e in r["evidence"]}
    assert kept in r["answer"]
    assert contradictions(r["answer"], r["evidence"], r["root_cause"], question) == []
    Path("test-artifacts").mkdir(exist_ok=True)  # what the model contributed, for the record
    with open("test-artifacts/real-model-answers.md", "a", encoding="utf-8") as f:
        f.write(f"## {cls}: {question}\n\n{r['answer']}\n\n")
