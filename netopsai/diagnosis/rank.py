"""Ranking the children of a taxonomy node: symptom scores from the evidence offline; with a
chat model, the model orders the plausible ones when the scores do not separate them. The
model never adds a branch the evidence does not support, so pruning stays evidence-based."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from string import Template
from typing import Any

from netopsai.copilot.evidence import DATA_NOTE, quoted
from netopsai.diagnosis.context import Context
from netopsai.diagnosis.registry import resolve
from netopsai.diagnosis.taxonomy import Node, Taxonomy

AMBIGUOUS = 0.25  # top two scores closer than this: let the model order them
STRONG = 0.5  # ...when both are strong: weak leads (a change record) are cheaper to just verify
EVIDENCE_CHARS = 2400  # the evidence summaries the ranking prompt may carry (~600 tokens)


def score(ctx: Context, tax: Taxonomy, node: Node, memo: dict[str, float],
          explained: frozenset[str] = frozenset()) -> float:
    """A node's plausibility: the best of its own symptoms and its children's. Symptoms a
    confirmed fault already accounts for (`explained`) no longer count."""
    if node.id in memo:
        return memo[node.id]
    own = [symptom_value(ctx, s) for s in node.symptoms if s not in explained]
    kids = [score(ctx, tax, k, memo, explained) for k in tax.children(node.id)]
    memo[node.id] = max([0.0, *own, *kids])
    return memo[node.id]


def symptom_value(ctx: Context, name: str) -> float:
    """One symptom's value, computed once per diagnosis state (symptoms read evidence only)."""
    key = (name, len(ctx.evidence))
    if key not in ctx.symptom_memo:
        ctx.symptom_memo[key] = float(resolve("symptom", name)(ctx))
    return ctx.symptom_memo[key]


@dataclass
class Ranker:
    """Orders candidates; `llm` is an injected chat model (None offline)."""

    llm: Any = None
    mode: str = "auto"  # auto: ask the model only when ambiguous | always | never
    llm_calls: int = 0
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    notes: list[str] = field(default_factory=list)

    def order(self, ctx: Context, parent: Node | None, cands: list[tuple[Node, float]]
              ) -> tuple[list[tuple[Node, float]], str]:
        ranked = sorted(cands, key=lambda c: -c[1])
        live = [c for c in ranked if c[1] > 0]
        if self.llm is None or self.mode == "never" or len(live) < 2:
            return ranked, "symptom scores"
        if self.mode == "auto" and (live[1][1] < STRONG or live[0][1] - live[1][1] >= AMBIGUOUS):
            return ranked, "symptom scores"
        ids = self._ask(ctx, parent, live)
        if not ids:
            return ranked, "symptom scores (the model's ranking was not usable)"
        by_id = {n.id: (n, s) for n, s in live}
        first = [by_id[i] for i in ids if i in by_id]
        rest = [c for c in ranked if c not in first]
        return first + rest, "the model's ranking"

    def _ask(self, ctx: Context, parent: Node | None, live: list[tuple[Node, float]]) -> list[str]:
        from langchain_core.messages import AIMessage, HumanMessage

        from netopsai.common.chat import ModelError, invoke, usage
        from netopsai.prompts import load as load_prompt

        prompt = Template(load_prompt("diagnosis.md")).substitute(
            question=ctx.question or "(connectivity diagnosis)",
            parent=parent.id if parent else "root", evidence=_evidence(ctx),
            candidates="\n".join(f"- {n.id}: {n.description} (symptom score {s:.2f})"
                                 for n, s in live))
        messages = [HumanMessage(prompt)]
        try:
            ai = invoke(self.llm, messages)
        except ModelError as exc:  # the offline order stands; say so in the steps
            self.notes.append(f"LLM ranking failed ({exc.kind}); symptom scores used")
            return []
        self.llm_calls += 1
        msg = ai if isinstance(ai, AIMessage) else AIMessage(str(ai))
        u = usage(msg, messages)
        self.tokens["prompt"] += u["prompt"]
        self.tokens["completion"] += u["completion"]
        return _parse(msg.text)


def _evidence(ctx: Context) -> str:
    """Summaries only, never tables, capped: the prompt stays small."""
    lines, size = [DATA_NOTE], 0
    for e in ctx.evidence:
        line = f"[{e.id}] {e.tool}: {quoted(e.summary[:360])}"
        if size + len(line) > EVIDENCE_CHARS:
            break
        lines.append(line)
        size += len(line)
    return "\n".join(lines)


def _parse(text: str) -> list[str]:
    """A JSON list of node ids, possibly wrapped in prose or a code fence."""
    m = re.search(r"\[[^\[\]]*\]", text or "")
    if not m:
        return []
    try:
        ids = json.loads(m.group(0))
    except json.JSONDecodeError:
        return []
    return [str(i) for i in ids if isinstance(i, str)]
