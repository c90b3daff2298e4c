"""The engine's other strategies (cvd: run every check then decide; history: incident memory
only) as arena baselines, through netopsai.diagnosis.engine.diagnose(..., strategy=...)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from netopsai.arena.baselines import Reply, engine_strategy
from netopsai.lab.scenario import Scenario


def run_strategy(strategy: str, sc: Scenario, engine: Engine, copilot: Any) -> Reply:
    fn, why = engine_strategy(strategy)
    if fn is None:
        raise RuntimeError(why)
    raise NotImplementedError("the engine's strategy API is not wired yet")
