"""The engine's other strategies as arena baselines, through
netopsai.diagnosis.engine.diagnose(..., strategy=...): "cvd" runs every check then decides;
"history" answers from incident memory alone. Their answers are the copilot's template answer
over the engine's evidence, so citations are scored the same way as the full pipeline's."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Engine

from netopsai.arena.baselines import Reply, engine_strategy
from netopsai.lab.scenario import Scenario

IP = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")


def run_strategy(strategy: str, sc: Scenario, engine: Engine, memory: Any = None,
                 taxonomy: Any = None) -> tuple[Reply, str]:
    """(the reply, the symptom text the engine indexed for incident memory)."""
    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.summarizer import render

    fn, why = engine_strategy(strategy)
    if fn is None:
        raise RuntimeError(why)
    ips = IP.findall(sc.question)
    if len(ips) < 2:
        return Reply("inconclusive", answer="The question names no two addresses."), ""
    out = fn(lab_backends(engine), src=ips[0], dst=ips[1], question=sc.question,
             strategy=strategy, memory=memory, taxonomy=taxonomy)
    d = out.diagnosis
    answer = render(out.evidence, d, [])
    reply = Reply(d.label, d.device, answer, [e.model_dump(mode="json") for e in out.evidence],
                  int(d.llm_calls), int((d.tokens or {}).get("prompt", 0)))
    return reply, str(getattr(d, "symptoms", "") or "")
