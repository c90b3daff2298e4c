"""Cited answers rendered from evidence (the offline summarizer, and the LLM's fallback).

Shape: the conclusion first, then the diagnostic process with the key rows as small tables,
then notes and the evidence list. Every factual paragraph cites [E#]; validate_citations in
evidence.py checks it.
"""

from __future__ import annotations

import json
from typing import Any

from netopsai.common.localtime import at, span
from netopsai.common.words import plain
from netopsai.copilot.evidence import Evidence, cell_text
from netopsai.diagnosis.base import Diagnosis, Finding

TABLE_ROWS = 8
def _cites(ids: list[str]) -> str:
    return "".join(f"[{i}]" for i in dict.fromkeys(ids))


def _cell(v: Any) -> str:
    return cell_text(v).replace("|", "\\|").replace("\n", " ")


def _shown(ev: Evidence) -> tuple[list[dict[str, Any]], str]:
    """The rows a table in the answer shows and how it says what it left out. A path keeps its
    last hop (where it ends is the point), so a long one shows its first hops and the last."""
    rows = ev.rows
    if len(rows) <= TABLE_ROWS:
        return rows, ""
    if ev.tool == "traceroute":
        return [*rows[:TABLE_ROWS - 1], rows[-1]], (f" (hops 1–{TABLE_ROWS - 1} and the last, "
                                                    f"of {len(rows)} rows)")
    return rows[:TABLE_ROWS], f" ({TABLE_ROWS} of {len(rows)})"


def table(ev: Evidence) -> str:
    """A caption citing the evidence, a blank line and a markdown table of its first rows."""
    from netopsai.tools.registry import REGISTRY

    t = REGISTRY.get(ev.tool)
    shown, more = _shown(ev)
    cols = t.shown_columns(ev) if t else ev.columns
    cols = [c for c in cols if any(c in r for r in shown)][:9]
    if not ev.rows or not cols:
        return ""
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in cols) + " |" for r in shown]
    return f"Rows of [{ev.id}] ({ev.tool}){more}:\n\n" + "\n".join(lines)


def _window(window: dict[str, str], zone: str) -> str:
    """A call's window as a person reads it, in the network's zone with UTC beside (the rows
    stay ISO UTC); a trace's moment (start = end) as one time."""
    if window.get("start") == window.get("end"):
        return at(window.get("start"), zone, beside=True)
    return span(window.get("start"), window.get("end"), zone)


def evidence_list(evidence: list[Evidence], zone: str = "UTC") -> str:
    lines = ["### Evidence"]
    for ev in evidence:
        window = f", window {_window(ev.window, zone)}" if ev.window else ""
        status = " — failed" if ev.errors else (" — partial" if ev.partial else "")
        args = {k: (f"<{len(v)} items>" if isinstance(v, list) and len(v) > 6 else v)
                for k, v in ev.args.items()}
        lines.append(f"- [{ev.id}] {ev.tool} {json.dumps(args, sort_keys=True)}{window}{status}")
    return "\n".join(lines)


def _findings(title: str, items: list[Finding]) -> str:
    if not items:
        return ""
    return f"#### {title}\n\n" + "\n".join(f"- {i.text} {_cites(i.cites)}" for i in items)


def _lead(f: Finding | None) -> str:
    """'**Reachable: no** — the trace stops at ... [E1]. ': the question's own answer first."""
    if f is None:
        return ""
    head, _, rest = f.text.partition(" — ")
    return f"**{head}**{' — ' + rest if rest else ''} {_cites(f.cites)}. "


def _head(d: Diagnosis, where: str) -> str:
    if d.label == "none":
        return f"**No fault found on {d.scope or 'this path'}.**"
    if d.label == "inconclusive" and d.scope:
        return f"**No fault confirmed on {d.scope}.**"
    if d.label == "inconclusive":
        return "**Inconclusive**" + (f" (last seen at {where})" if where else "") + "."
    what = (f"{plain(d.label)} at {where}** (`{d.label}`, confidence {d.confidence:.2f})")
    if d.relation == "nearby":  # a break the flow routes around is not the flow's cause
        return f"**Nearby, and routed around: {what}."
    if d.relation == "past":  # it came and went in the window asked (diagnosis/device_window.py)
        return f"**Cause in that window, over now: {what}."
    return f"**Likely root cause: {what}."


def conclusion(d: Diagnosis) -> str:
    """One block: the question's answer (still happening? reachable?), then what and where, its
    first reason, and impact, since and the windows read."""
    where = " ".join(x for x in (d.device, d.interface) if x)
    first = d.because[0] if d.because else Finding("", [])
    head = _lead(d.still) + _lead(d.answer) + _head(d, where)
    word = first.text.split(" ", 1)[0]
    text = first.text[:1].upper() + first.text[1:] if word.isalpha() else first.text  # not a name
    facts = "".join(f"\n- **{name}:** {f.text} {_cites(f.cites)}"
                    for name, f in (("Impact", d.impact), ("Since", d.since),
                                    ("Windows read", d.windows)) if f)
    return f"{head} {text} {_cites(first.cites)}".rstrip() + facts


def diagnosis_sections(d: Diagnosis) -> list[str]:
    """Conclusion, why, other confirmed faults, hypotheses ruled out (each with the evidence
    that ruled it out), what was clean, next steps and, when inconclusive, the ticket draft."""
    parts = [conclusion(d), _findings("Why", d.because[1:]),
             _findings("Also found", d.secondary),
             _findings("Ruled out", [Finding(f"{r['label']}: {r['text']}", r["cites"])
                                     for r in d.ruled_out if r.get("cites")]),
             _findings("Checked and found clean", d.clean)]
    if d.next_steps:  # advice, not claims: kept in the heading's block so it needs no citation
        parts.append("#### Next steps\n" + "\n".join(f"- {x}" for x in d.next_steps))
    if d.ticket:
        parts.append("#### Escalation ticket (draft)\n```\n" + d.ticket["markdown"] + "\n```")
    return parts


def render(evidence: list[Evidence], diagnosis: Diagnosis | None = None,
           notes: list[str] | None = None, zone: str = "UTC") -> str:
    """The template answer for one turn; the times it says in `zone`, the network's."""
    parts: list[str] = []
    if diagnosis:
        parts += diagnosis_sections(diagnosis)
    else:  # an analysis over the other calls is the turn's conclusion: it leads
        parts += [_summary(ev) for ev in sorted(evidence, key=lambda e: e.tool != "coder")]
    parts += [table(ev) for ev in evidence if not ev.errors and ev.rows]
    if diagnosis and diagnosis.reference:
        ids = [ev.id for ev in evidence if ev.tool == "alarms"]
        parts.append(f"Closed alarms in the window, for reference only {_cites(ids)}: " + "; ".join(
            f"{r['kind']} on {r['device']} ({span(r['raised_at'], r['cleared_at'], zone)})"
            for r in diagnosis.reference[:5]) + ".")
    parts += [f"_{n}_" for n in notes or [] if n]
    if evidence:
        parts.append(evidence_list(evidence, zone))
    return "\n\n".join(p for p in parts if p)


def _summary(ev: Evidence) -> str:
    if ev.errors:
        return f"The {ev.tool} call could not run: {ev.errors[0]} [{ev.id}]"
    return f"{ev.summary} [{ev.id}]"
