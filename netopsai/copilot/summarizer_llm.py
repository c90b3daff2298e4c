"""The LLM summarizer: prose from evidence summaries and previews, checked for citations.
A failing answer is regenerated once with the problems named, then replaced by the template
answer (summarizer.render), which cites by construction."""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Template

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage

from netopsai.copilot.evidence import Evidence, validate_citations
from netopsai.copilot.llm import ModelError, invoke, usage
from netopsai.copilot.prompt_evidence import evidence_view
from netopsai.copilot.summarizer import evidence_list
from netopsai.diagnosis.consistency import contradictions
from netopsai.prompts import load as load_prompt


@dataclass
class Written:
    answer: str | None  # None: use the template answer
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    llm_calls: int = 0
    note: str = ""


def write(llm: BaseChatModel, question: str, evidence: list[Evidence], diagnosis: str,
          known: set[str], draft: str = "", zone: str = "UTC") -> Written:
    prompt = Template(load_prompt("summarizer.md")).substitute(
        question=question, diagnosis=diagnosis or "Diagnosis: none (not a diagnosis question).",
        evidence=evidence_view(evidence))  # summaries and small previews
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
        text = framed(text, diagnosis)
        problems = validate_citations(text, known)
        wrong = contradictions(text, evidence, None, question)
        if not problems and not wrong and text.strip():
            out.answer = f"{text.strip()}\n\n{evidence_list(evidence, zone)}"  # windows in it
            return out
        if attempt == 0:
            said = (f"That answer fails the citation check: {'; '.join(problems[:5])}. "
                    if problems else "")
            said += f"It contradicts its evidence: {'; '.join(wrong[:5])}. " if wrong else ""
            messages += [AIMessage(text), HumanMessage(
                said + "Rewrite it so every factual paragraph cites listed evidence ids only, "
                "and says nothing its evidence contradicts.")]
            text = ""
    out.note = "The LLM's answer failed the citation check twice; template answer shown."
    return out


CAUSE_HEADS = ("**Likely root cause", "**Nearby", "**No fault", "**Inconclusive")
FACTS = ("- **Since:**", "- **Windows read:**")


def framed(text: str, diagnosis: str) -> str:
    """The model's prose under the diagnosis' own first words (the question's answer:
    "Reachable: no — …", "Still happening: yes — …") and over its Since and windows read, each
    as the engine wrote and cited them: prose may reword the cause, never drop or contradict
    the answer to the question asked (principle 8)."""
    if not diagnosis.startswith("**") or not text.strip():
        return text
    first = diagnosis.split("\n", 1)[0]
    cut = min((i for i in (first.find(h) for h in CAUSE_HEADS) if i > 0), default=0)
    lead = first[:cut].strip()
    head, _, rest = text.strip().partition("\n\n")
    if lead and not head.startswith(lead[:40]):
        head = f"{lead} {head}"
    facts = [ln for ln in diagnosis.split("\n") if ln.startswith(FACTS) and ln not in text]
    head += "".join(f"\n{ln}" for ln in facts)  # in the conclusion's block, as the template's
    return head + (f"\n\n{rest}" if rest else "")

