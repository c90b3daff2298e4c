"""Block Kit for the bot's replies: progress, answers (conclusion, key facts, cited evidence, the
evidence button), evidence rows and help. Pure functions of the copilot's output, so tests and
listeners share them and no listener formats text itself."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from netopsai.common.localtime import when
from netopsai.common.words import plain
from netopsai.copilot.payload import EvidenceDump, answer_of, dump_of, dumps_of

EVIDENCE_ACTION = "netops_evidence"
CONFIRM_ACTION = "netops_confirm"  # a thumbs-up: the diagnosis joins incident memory
SECTION_MAX = 2900  # Slack caps a section's text at 3000 characters
MAX_FIELDS = 10  # ... and a section's fields at 10
MAX_ROWS = 30


def mrkdwn(markdown: str) -> str:
    """The copilot's markdown as Slack mrkdwn: escape the control characters, bold is *x*."""
    text = markdown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"\*\*(.+?)\*\*", r"*\1*", text)
    text = re.sub(r"(?m)^[-*] ", "• ", text)  # Slack has no markdown lists
    return re.sub(r"(?m)^#{1,6}\s*(.+)$", r"*\1*", text)


def _clip(text: str, limit: int = SECTION_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": _clip(text)}}


def context(*texts: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": _clip(t, 1900)}
                                             for t in texts[:10]]}


def split_answer(answer: str) -> tuple[str, str]:
    """(the line to read first, the details): the answer's headline (netopsai.copilot.headline, the
    line every front end shows first), then its prose without tables or the evidence list."""
    from netopsai.copilot.headline import headline
    from netopsai.ui.slack.answer import parts

    window, conclusion, sections = parts(answer)
    rest = [conclusion, *(f"{t}\n{b}".strip() for t, b in sections)]
    return headline(answer) or conclusion, "\n\n".join(p for p in rest if p)


# Facts in the words an on-call uses ("Reached the destination: no"), never the raw field names
# ("reached False", "ecmp paths 192"); a fact not listed here gets its name in words, capitalised.
FACT_WORDS = {
    "reached": "Reached the destination", "stopped_at": "Stopped at", "reason": "Why",
    "hops": "Hops", "ecmp_paths": "Equal-cost paths", "good_paths": "Paths that deliver",
    "count": "Matches", "changes": "Change records", "alarms": "Alarms", "open": "Open",
    "closed": "Cleared", "traffic_lost": "Alarms with traffic lost", "ports": "Ports",
    "changed": "Ports that changed", "down_now": "Ports down now", "flapping": "Ports flapping",
    "query": "Looked up by", "loss_pct": "Loss", "rtt_ms": "Round trip",
}
_UNITS = {"loss_pct": "%", "rtt_ms": " ms"}


def fact_name(key: str) -> str:
    return FACT_WORDS.get(key) or key.replace("_", " ").strip().capitalize()


def _value(v: Any, key: str = "") -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.2f}{_UNITS.get(key, '')}"
    if isinstance(v, int):
        return f"{v}{_UNITS.get(key, '')}"
    return str(v)


def key_facts(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The root cause first (when diagnosed), then the first evidence's scalar facts, in words."""
    facts: list[tuple[str, str]] = []
    answer = answer_of(result)
    rc = answer.get("root_cause")
    if rc:
        named = (("Root cause", rc.get("label")), ("Device", rc.get("device")),
                 ("Interface", rc.get("interface")), ("Confidence", rc.get("confidence")))
        facts += [(name, _value(v)) for name, v in named if v is not None]
        if facts and facts[0][0] == "Root cause":  # in words, the label as its tag
            facts[0] = ("Root cause", f"{plain(rc['label'])} (`{rc['label']}`)")
    for ev in answer.get("evidence", [])[:1]:
        for k, v in ev.get("facts", {}).items():
            if isinstance(v, bool | int | float | str) and v != "" and len(str(v)) <= 80:
                facts.append((fact_name(k), _value(v, k)))
    return facts[:MAX_FIELDS]


def _arg(key: str, value: Any) -> str:
    """One argument in words: a list by its count ("24 devices"), a flag by its name when set
    ("correlate", nothing when unset), anything else as "key value"."""
    name = key.replace("_", " ")
    if isinstance(value, list):
        return f"{len(value)} {name}" if len(value) != 1 else f"{name} {value[0]}"
    if isinstance(value, bool):
        return name if value else ""
    return f"{name} {value}"


def _args(args: Mapping[str, Any]) -> str:
    return ", ".join(p for p in (_arg(k, v) for k, v in args.items()) if p)


def citation_line(record: Mapping[str, Any], zone: str = "UTC") -> str:
    """[E1] the tool, its arguments in words and the time window it looked at, on the network's
    clock (`zone`, the copilot's `backends.zone`) with UTC beside (issue 25 item 5)."""
    ev = dump_of(record)
    win = ev.get("window") or {}
    looked = f" · window {when(win.get('start'), win.get('end'), zone)}" if win else ""
    said = _args(ev.get("args", {}))
    return mrkdwn(f"[{ev['id']}] {ev['tool']}" + (f" · {said}" if said else "") + looked)


def _id_number(ev: EvidenceDump) -> tuple[int, str]:
    digits = re.sub(r"\D", "", str(ev.get("id", "")))
    return (int(digits) if digits else 1 << 30, str(ev.get("id", "")))


def citation_blocks(cited: Sequence[Mapping[str, Any]], zone: str = "UTC") -> list[dict[str, Any]]:
    """The cited evidence in id order (E1, E2, … E10, not the order the prose happened to cite
    them), ten to a context block (Slack's cap on a context's elements)."""
    ordered = sorted({id(e): e for e in dumps_of(cited)}.values(), key=_id_number)
    lines = [citation_line(e, zone) for e in ordered]
    return [context(*lines[i:i + 10]) for i in range(0, len(lines), 10)]


def evidence_button(thread: str, ids: list[str]) -> dict[str, Any]:
    value = json.dumps({"t": thread, "ids": ids[:100]})  # within the 2000 characters of a value
    return {"type": "actions", "block_id": EVIDENCE_ACTION, "elements": [
        {"type": "button", "action_id": EVIDENCE_ACTION, "value": value,
         "text": {"type": "plain_text", "text": f"Show evidence ({len(ids)})"}}]}


def answer_blocks(result: Mapping[str, Any], thread: str, **kw: Any) -> list[dict[str, Any]]:
    """The answer message (ui/slack/answer.py builds it; kept here for the callers of old)."""
    from netopsai.ui.slack.answer import answer_blocks as build

    return build(result, thread, **kw)


def confirm_button(thread: str) -> dict[str, Any]:
    return {"type": "button", "action_id": CONFIRM_ACTION, "value": json.dumps({"t": thread}),
            "text": {"type": "plain_text", "text": ":thumbsup: Confirm diagnosis", "emoji": True}}


def progress_blocks(title: str, lines: list[str]) -> list[dict[str, Any]]:
    """The placeholder while the copilot works: what was asked (already mrkdwn), each step so far."""
    blocks = [section(f":hourglass_flowing_sand: {title}")]
    if lines:
        blocks.append(section("\n".join(f"• {mrkdwn(line)}" for line in lines[-12:])))
    return blocks


def fixed_width_table(columns: list[str], rows: list[dict[str, Any]]) -> str:
    """Rows as a fixed-width text table under a header of `columns` (the first row's keys when
    none are given): the evidence button's code blocks and the full-table modal (links.py)."""
    cols = columns or (list(rows[0]) if rows else [])
    cells = [[str(r.get(c, "") if r.get(c) is not None else "") for c in cols] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*cols)] + [fmt.format(*row) for row in cells])


def evidence_rows_blocks(evidence: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each evidence record's summary and rows (a code block), for the evidence button."""
    blocks: list[dict[str, Any]] = []
    for ev in dumps_of(evidence[:20]):  # two blocks each, within Slack's 50 per message
        rows = ev.get("rows", [])
        shown = rows[:MAX_ROWS]
        more = f" (first {len(shown)} of {len(rows)} rows)" if len(rows) > len(shown) else ""
        blocks.append(section(mrkdwn(f"**[{ev['id']}] {ev['tool']}**{more}: {ev.get('summary', '')}")))
        if shown:
            table = fixed_width_table(ev.get("columns", []), shown).replace("```", "'''")
            blocks.append(section(f"```{_clip(table, SECTION_MAX - 8)}```"))
    return blocks


HEADLINE_BLOCK = "netops_headline"  # the answer's first section: its headline


def message_text(blocks: list[dict[str, Any]]) -> str:
    """The notification fallback text: an answer's headline, else the first section's text."""
    heads = [b for b in blocks if b.get("block_id") == HEADLINE_BLOCK and "text" in b]
    for b in heads + [b for b in blocks if b.get("type") == "section" and "text" in b]:
        text = str(b["text"]["text"])
        if b in heads and len(text) > 1 and text[0] == text[-1] == "*":
            text = text[1:-1]  # bold in the message, plain in the notification
        return text[:300]
    return "netopsai"


def help_blocks(command: str) -> list[dict[str, Any]]:
    lines = [f"`{command} ask <question>`: ask the copilot anything about the network",
             f"`{command} trace <src> <dst>`: trace a path (diagnosed when it fails)",
             f"`{command} device <name>`: a device's facts",
             f"`{command} alarms [site] [window]`: alarms, e.g. `{command} alarms dc1 2h`",
             f"`{command} batch <ip or src,dst> ...`: batch connectivity checks (or DM me "
             "`batch` with a CSV/TXT file attached)",
             f"`{command} help`: this help",
             "Mention me or DM me to chat; a Slack thread is one conversation."]
    return [section("*netopsai*: a copilot for network on-calls (read-only)"),
            section("\n".join(f"• {line}" for line in lines))]


COUNTS = ("total", "reachable", "failing", "degraded", "errors")


def batch_blocks(summary: dict[str, Any], failures: list[str], problems: list[str]
                 ) -> list[dict[str, Any]]:
    """A batch run: the counts as fields, failures grouped by device and cause, the first
    failing pairs, and the input lines that could not be read."""
    blocks = [section(f"*Batch connectivity check*: {summary.get('total', 0)} pairs checked"),
              {"type": "section", "fields": [
                  {"type": "mrkdwn", "text": f"*{k}*\n{summary.get(k, 0)}"} for k in COUNTS]}]
    groups = [g.get("text") or str(g) for g in summary.get("groups") or []]
    if groups:
        blocks.append(section("\n".join(f"• {mrkdwn(g)}" for g in groups[:20])))
    if failures:
        more = f"\n… and {len(failures) - 15} more" if len(failures) > 15 else ""
        blocks.append(section("*Failing pairs*\n" + "\n".join(
            f"• {mrkdwn(f)}" for f in failures[:15]) + more))
    if problems:
        blocks.append(context(*[mrkdwn(p) for p in problems[:10]]))
    return blocks
