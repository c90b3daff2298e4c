"""The diagnosis scenarios of test_copilot_diagnosis on a lab kept in PostgreSQL: the same
faults, injected the same way, name the same root cause at the same place, cited."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai_testkit.peers.postgres import fresh_database, pg_url
from tests.conftest import CLOCK
from tests.copilot.test_copilot_diagnosis import QUESTION, cases

pytestmark = pytest.mark.integration
__all__ = ["pg_url"]


@pytest.fixture(scope="module")
def all_cases(backends: Any) -> list[tuple[str, list[dict[str, Any]], str, set[str | None]]]:
    return cases(backends)


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("index", range(19))
def test_diagnosis_on_postgresql(pg_url: str, all_cases: Any, index: int) -> None:
    name, faults, label, devices = all_cases[index]
    engine = engine_for(fresh_database(pg_url, f"diag{index}"))
    init_lab(engine, "default", "small", 7, CLOCK)
    inject(engine, Scenario.model_validate({
        "id": name.replace("_", "-"), "now": lab_info(engine).clock, "question": QUESTION,
        "faults": [{"at": "-25m", **f} for f in faults],
        "noise": {"alarms": 20, "changes": 6, "flaps": 2}}))
    result = Copilot(lab_backends(engine)).answer(QUESTION, "t")
    rc = result["root_cause"]
    assert rc is not None and rc["label"] == label, (name, rc, result["answer"][:600])
    assert rc["device"] in devices, (name, rc)
    assert validate_citations(result["answer"], {e["id"] for e in result["evidence"]}) == []
