"""The LLM summarizer: prose from evidence summaries and previews, checked for citations.
A failing answer is regenerated once with the problems named, then replaced by the template
answer (summarizer.render), which cites by construction."""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Template

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage

from netopsai.evidence import Evidence, validate_citations
from netopsai.llm import ModelError, invoke, usage
from netopsai.planner.llm import evidence_block
from netopsai.prompts import load as load_prompt
from netopsai.summarizer import evidence_list


@dataclass
class Written:
    answer: str | None  # None: use the template answer
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    llm_calls: int = 0
    note: str = ""


def write(llm: BaseChatModel, question: str, evidence: list[Evidence], diagnosis: str,
          known: set[str], draft: str = "") -> Written:
    prompt = Template(load_prompt("summarizer.md")).substitute(
        question=question, diagnosis=diagnosis or "Diagnosis: none (not a diagnosis question).",
        evidence=evidence_block(evidence))
    out = Written(None)
    messages: list[HumanMessage | AIMessage] = [HumanMessage(prompt)]
    text = draft
    for attempt in range(2):
        if not text:
            try:
                ai = invoke(llm, messages)
            except ModelError as exc:  # the template answer stands in; say why, once
                out.note = f"The LLM summarizer failed ({exc.kind}); template answer shown."
                return out
            out.llm_calls += 1
            u = usage(ai if isinstance(ai, AIMessage) else AIMessage(str(ai)), messages)
            out.tokens["prompt"] += u["prompt"]
            out.tokens["completion"] += u["completion"]
            text = ai.text if isinstance(ai, AIMessage) else str(ai)
        problems = validate_citations(text, known)
        if not problems and text.strip():
            out.answer = f"{text.strip()}\n\n{evidence_list(evidence)}"
            return out
        if attempt == 0:
            messages += [AIMessage(text), HumanMessage(
                "That answer fails the citation check: " + "; ".join(problems[:5])
                + ". Rewrite it so every factual paragraph cites listed evidence ids only.")]
            text = ""
    out.note = "The LLM's answer failed the citation check twice; template answer shown."
    return out

