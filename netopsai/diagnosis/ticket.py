"""An escalation ticket draft for an inconclusive diagnosis: what was asked, what the trace
shows, each hypothesis tested and the evidence that ruled it out, and what to check next — as
markdown for a human and JSON for a ticketing system."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from netopsai.diagnosis.base import Diagnosis, Ticket
    from netopsai.diagnosis.context import Context
    from netopsai.diagnosis.search import Search


def ticket(ctx: Context, s: Search, d: Diagnosis) -> Ticket:
    m = ctx.main
    data: dict[str, Any] = {
        "title": f"Connectivity {(m.args.get('src') if m else '?')} -> "
                 f"{(m.args.get('dst') if m else '?')}: cause not found",
        "question": ctx.question,
        "symptoms": ctx.symptom_text(),
        "last_seen_at": d.device,
        "ruled_out": [{"hypothesis": v.label, "why": v.text, "evidence": v.cites}
                      for v in s.ruled_out],
        "undecided": [{"hypothesis": v.label, "why": v.text, "evidence": v.cites}
                      for v in s.undecided],
        "next_checks": d.next_steps[:-1],
        "evidence": [{"id": e.id, "tool": e.tool, "summary": e.summary} for e in ctx.evidence],
    }
    # no blank lines: the draft is one block of the answer (a fenced block, not claims)
    lines = [f"**{data['title']}**", f"Question: {ctx.question or '-'}",
             f"Symptoms: {data['symptoms'] or '-'}", "Ruled out:"]
    lines += [f"- {r['hypothesis']}: {r['why']} ({', '.join(r['evidence'])})"
              for r in data["ruled_out"]] or ["- nothing"]
    lines += ["Next checks:"] + [f"- {x}" for x in data["next_checks"]]
    return {"markdown": "\n".join(lines), "json": json.dumps(data, default=str)}
