"""The steps an answer streams (`Copilot.ask`) and what front ends show of each: the data a
node's update contributes (never whole tables) and its one-line description, as the web app,
Slack and the terminal show a step collapsed."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Step:
    """One thing that happened while answering: what front ends render as it streams."""

    node: str
    data: dict[str, Any] = field(default_factory=dict)
    ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"node": self.node, "ms": round(self.ms, 1), **self.data}


def step_data(node: str, delta: dict[str, Any]) -> dict[str, Any]:
    """What a front end shows for a node's update (never whole tables)."""
    out: dict[str, Any] = {}
    if node == "planner":
        out = {"intent": delta.get("intent"), "calls": delta.get("pending", []),
               "notes": delta.get("notes", [])}
    elif node in ("tools", "coder"):
        out = {"evidence": [{k: e[k] for k in ("id", "tool", "args", "summary", "errors", "facts")
                             if k in e} for e in delta.get("evidence", [])]}
        if node == "coder":
            with suppress(IndexError, KeyError):
                out["code"] = delta["evidence"][0]["facts"].get("code")
    elif node == "diagnose":
        d = delta.get("diagnosis") or {}
        out = {k: d.get(k) for k in ("label", "device", "interface", "confidence", "tier",
                                     "checks_run", "steps")}
        out["evidence"] = [{k: e[k] for k in ("id", "tool", "args", "summary", "errors", "facts")
                            if k in e} for e in delta.get("evidence", [])]
    elif node == "summarizer":
        out = {"answer": delta.get("answer", "")}
    return out


def describe(step: Step) -> str:
    """A one-line description of a step, as front ends show it collapsed."""
    d: dict[str, Any] = step.data
    if step.node == "planner":
        calls = ", ".join(f"{c['tool']}" for c in d.get("calls", [])) or "no tool calls"
        return f"planner: {d.get('intent') or 'next step'} -> {calls}"
    if step.node in ("tools", "coder"):
        return "; ".join(f"[{e['id']}] {e['tool']}: {e['summary'][:90]}" for e in d.get("evidence", []))
    if step.node == "diagnose":
        return f"diagnosis: {d.get('label')} {d.get('device') or ''}".rstrip()
    return step.node
