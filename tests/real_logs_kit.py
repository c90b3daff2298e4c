"""The real-line corpus (bench/real_logs/) for tests: rows by id, and each entered and judged
the way bench/real_logs_score.py does (its Ingest and judge), so a test cites a line by its id
instead of copying it."""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parent.parent / "bench"


@cache
def scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("real_logs_score", BENCH / "real_logs_score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def corpus() -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in scorer().load()}


@cache
def ingest() -> Any:
    return scorer().Ingest()


def judged(rid: str) -> tuple[Any, dict[str, bool]]:
    """The event the ingest makes of corpus row `rid`, and the scorer's verdict on it."""
    row = corpus()[rid]
    ev = ingest().event(row)
    return ev, scorer().judge(row, ev)
