"""Evidence as an LLM prompt reads it, for the LLM planner and the LLM summarizer alike: each
item's id, tool, arguments, window, summary and errors, then a preview of its rows. Raw rows
never go whole into a prompt; how many rows, and how much of the arguments, is the caller's
`RowPolicy` (the summarizer's is smaller: its evidence grows as a diagnosis reads more).

It lives in the planner room, below the copilot, so both the planner (planner/llm.py) and the
summarizer (copilot/prompt_evidence.py) can call it under the import contract.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from netopsai.copilot.evidence import DATA_NOTE, Evidence, quoted


@dataclass(frozen=True)
class RowPolicy:
    """How much of each evidence a prompt shows."""

    first_rows: int  # rows shown of a tool's first evidence
    again_rows: int  # of a later read of the same tool (the way back): its summary says the rest
    list_shown: int | None = None  # items of a long list argument named, the rest counted; None: whole
    drop_empty: bool = False  # preview rows without their empty fields


def evidence_text(evidence: Sequence[Evidence], policy: RowPolicy) -> str:
    if not evidence:
        return "Evidence gathered so far: none."
    parts = [f"Evidence gathered so far (cite as [E#]). {DATA_NOTE}"]
    seen: set[str] = set()
    for ev in evidence:
        head = f"[{ev.id}] {ev.tool} {_args(ev.args, policy.list_shown)}"
        if ev.window:
            head += f" window {quoted(ev.window.get('start'))} .. {quoted(ev.window.get('end'))}"
        lines = [head, f"summary: {quoted(ev.summary)}"]
        if ev.errors:
            lines.append("errors: " + json.dumps(ev.errors, ensure_ascii=False))
        rows = ev.preview(policy.again_rows if ev.tool in seen else policy.first_rows)
        seen.add(ev.tool)
        if rows:
            lines.append(f"rows: {len(ev.rows)} (first {len(rows)}{', partial' if ev.partial else ''})")
            lines += [_row(r, policy.drop_empty) for r in rows]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _args(args: dict[str, Any], list_shown: int | None) -> str:
    """The arguments, long lists cut to their first items and a count when the policy says so
    (a path's twenty devices)."""
    def cut(v: Any) -> Any:
        if list_shown is not None and isinstance(v, list) and len(v) > list_shown + 1:
            return [*v[:list_shown], f"+{len(v) - list_shown} more"]
        return v
    return json.dumps({k: cut(v) for k, v in args.items()}, default=str, sort_keys=True)


def _row(row: dict[str, Any], drop_empty: bool) -> str:
    """A preview row as the model reads it: a port state row's `events` (bare UTC times, what
    the diagnosis parses) left out when its `changes` (the same events in the asked zone, named)
    is there, since the model repeats the times it reads and every time shown carries its zone;
    and its empty fields left out when the policy says so."""
    kept = {k: v for k, v in row.items()
            if not (k == "events" and "changes" in row)
            and not (drop_empty and v in (None, "", [], {}))}
    return json.dumps(kept, default=str, separators=(",", ":"))
