"""A standalone `ask` sets its copilot up with the cyclic collector off, then freezes what the set-up
left (launch/thin.py answer_here): the ~1M objects langgraph, sqlalchemy and the tables allocate
live as long as the process, and re-scanning them was 0.2-0.3 s of a cold ask's CPU (RESULTS
"cold-ask-gc"). The answer itself runs with the collector on again, over young objects only."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from netopsai.copilot import frontend
from netopsai.launch import thin


class Seen:
    def __init__(self) -> None:
        self.setup_collector_on: bool | None = None
        self.answer_collector_on: bool | None = None
        self.frozen_at_answer = 0

    def copilot(self, **_: Any) -> Seen:
        self.setup_collector_on = gc.isenabled()
        return self

    def answer(self, question: str, thread: str) -> dict[str, Any]:
        self.answer_collector_on = gc.isenabled()
        self.frozen_at_answer = gc.get_freeze_count()
        return {"answer": question, "thread": thread}


def test_setup_runs_without_the_collector_and_the_answer_with_it(
        monkeypatch: pytest.MonkeyPatch, gc_restored: None) -> None:
    gc.unfreeze()
    gc.enable()
    seen = Seen()
    monkeypatch.setattr(frontend, "frontend_copilot", seen.copilot)
    got = thin.answer_here("who owns 10.1.3.20?", "t1")
    assert got == {"answer": "who owns 10.1.3.20?", "thread": "t1"}
    assert seen.setup_collector_on is False
    assert seen.answer_collector_on is True
    assert seen.frozen_at_answer > 0  # what the set-up left is out of the answer's collections
    assert gc.get_threshold()[0] == thin.STARTUP_GC_GEN0


def test_a_failed_setup_leaves_the_collector_on(monkeypatch: pytest.MonkeyPatch, gc_restored: None) -> None:
    gc.enable()

    def broken(**_: Any) -> None:
        raise RuntimeError("config.yaml: bad")

    monkeypatch.setattr(frontend, "frontend_copilot", broken)
    with pytest.raises(RuntimeError, match="bad"):
        thin.answer_here("q", "t1")
    assert gc.isenabled()
