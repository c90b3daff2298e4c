"""A chat turn's steps as the Chat tab shows them: one collapsible message per planner decision,
tool or coder run and diagnosis, each evidence under its header in words (evhead.py)."""

from __future__ import annotations

from gradio import ChatMessage

from netopsai.common.words import count
from netopsai.copilot.payload import EvidenceDump
from netopsai.copilot.service import Step
from netopsai.copilot.steps import describe
from netopsai.ui.gradio.evhead import evidence_header
from netopsai.ui.gradio.views import inert


def _step_body(step: Step) -> str:
    d = step.data
    if step.node == "planner":
        calls = "\n".join(f"- {evidence_header({'tool': c['tool'], 'args': c.get('args', {})})}"
                          for c in d.get("calls", [])) or "- no more tool calls"
        notes = "".join(f"\n\n_{n}_" for n in d.get("notes", []))
        return f"intent: **{d.get('intent') or 'next step'}**\n\n{calls}{notes}"
    head = "\n".join(f"- {k}: `{d[k]}`" for k in ("label", "device", "interface", "confidence")
                     if d.get(k) is not None)
    # the engine's moves: recall, rankings, each check's verdict with the evidence it cites
    moves = "\n".join(f"- {x['tier']} · {x['action']} `{x['node']}`: {x['text'][:300]}"
                      + "".join(f" [{c}]" for c in x.get("cites", []))
                      for x in d.get("steps") or [])
    return head + (f"\n\n**How it was found** ({count(d.get('checks_run', 0), 'check')})\n\n{moves}"
                   if moves else "")


def _evidence_body(ev: EvidenceDump, code: str | None, zone: str = "UTC") -> str:
    body = f"**{evidence_header(ev, zone)}**\n\n{ev['summary']}"
    body += "".join(f"\n\n**error:** {e}" for e in ev.get("errors") or [])
    return body + (f"\n\n```python\n{code}\n```" if code else "")


def step_messages(step: Step, zone: str = "UTC") -> list[ChatMessage]:
    """The collapsible steps for one node's update: one per evidence for tool and coder runs
    (titled with the shared one-line description), one for a planner decision or diagnosis."""
    secs = round(step.ms / 1000, 3)
    if step.node in ("tools", "coder"):
        return [ChatMessage(inert(_evidence_body(ev, step.data.get("code"), zone)),
                            metadata={"title": describe(Step(step.node, {"evidence": [ev]})),
                                      "duration": secs, "status": "done"})
                for ev in step.data.get("evidence", [])]
    if step.node in ("planner", "diagnose"):
        return [ChatMessage(inert(_step_body(step)),
                            metadata={"title": describe(step), "duration": secs, "status": "done"})]
    return []
