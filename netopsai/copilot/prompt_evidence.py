"""The evidence as the LLM summarizer reads it: each item's id, tool, arguments, window and
summary, and a preview of its rows, kept small. The summary already says what the rows hold
(the path, the counts, the open alarms), so the preview is an example to quote, not the table:
raw rows never go whole into a prompt, and a diagnosis that reads more evidence (the way back,
the last hours' alarms) must not grow the prompt row by row (issue 25: p50 over the 6k target)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from netopsai.copilot.evidence import DATA_NOTE, Evidence, quoted

FIRST_ROWS = 3  # rows shown of the first evidence of a tool
AGAIN_ROWS = 1  # of a second read of the same tool (the jumbo probe, the way back): its summary says the rest
LIST_SHOWN = 3  # items of a long list argument (a path's twenty devices) named; the rest counted


def _args(args: dict[str, Any]) -> str:
    """The arguments with long lists cut to their first items and a count."""
    def cut(v: Any) -> Any:
        if isinstance(v, list) and len(v) > LIST_SHOWN + 1:
            return [*v[:LIST_SHOWN], f"+{len(v) - LIST_SHOWN} more"]
        return v
    return json.dumps({k: cut(v) for k, v in args.items()}, default=str, sort_keys=True)


def _row(row: dict[str, Any]) -> str:
    """A preview row with its empty fields left out (and a port row's bare-UTC `events` when
    its zoned `changes` are there, as the planner's block does)."""
    kept = {k: v for k, v in row.items()
            if v not in (None, "", [], {}) and not (k == "events" and "changes" in row)}
    return json.dumps(kept, default=str, separators=(",", ":"))


def evidence_view(evidence: Sequence[Evidence]) -> str:
    if not evidence:
        return "Evidence gathered so far: none."
    parts = [f"Evidence gathered so far (cite as [E#]). {DATA_NOTE}"]
    seen: set[str] = set()
    for ev in evidence:
        head = f"[{ev.id}] {ev.tool} {_args(ev.args)}"
        if ev.window:
            head += f" window {quoted(ev.window.get('start'))} .. {quoted(ev.window.get('end'))}"
        lines = [head, f"summary: {quoted(ev.summary)}"]
        if ev.errors:
            lines.append("errors: " + json.dumps(ev.errors, ensure_ascii=False))
        rows = ev.preview(AGAIN_ROWS if ev.tool in seen else FIRST_ROWS)
        seen.add(ev.tool)
        if rows:
            lines.append(f"rows: {len(ev.rows)} (first {len(rows)}{', partial' if ev.partial else ''})")
            lines += [_row(r) for r in rows]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
