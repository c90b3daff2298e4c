"""Buttons that lead out of a Slack answer: "Open in netopsai" for the thread and its devices
(only when SLACK_WEB_BASE_URL names the web app; Slack opens the URL itself) and "Full table"
for evidence too big for a message, which opens a modal holding every row."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from netopsai.copilot.payload import answer_of, dump_facts, dump_of, dumps_of
from netopsai.tools.facts import AlarmFacts, TraceFacts

OPEN_ACTION = "netops_open"  # URL buttons: Slack still sends a click, which is acknowledged
TABLE_ACTION = "netops_table"
MAX_DEVICE_BUTTONS = 4
BIG_TABLE = 30  # more rows than the evidence message shows (blocks.MAX_ROWS)
MODAL_BLOCKS = 100  # Slack's cap on a modal's blocks
MODAL_TEXT = 2900  # a section's text, within Slack's 3000


def _button(text: str, action: str, **extra: Any) -> dict[str, Any]:
    return {"type": "button", "action_id": action,
            "text": {"type": "plain_text", "text": text[:75], "emoji": True}, **extra}


def _devices(result: Mapping[str, Any]) -> list[str]:
    """The devices an answer is about: the root cause's, where a trace stopped, the alarms'."""
    names: list[str] = []
    rc = answer_of(result).get("root_cause")
    names += [str(rc["device"])] if rc and rc.get("device") else []
    for ev in answer_of(result).get("evidence", []):
        trace = dump_facts(ev, TraceFacts)  # only a trace's facts name where it stopped
        names += [str(trace["stopped_at"])] if trace.get("stopped_at") else []
        alarms = dump_facts(ev, AlarmFacts)
        if ev.get("tool") == "alarms" and isinstance(alarms.get("devices"), list):
            names += [str(d) for d in alarms["devices"]]
    return list(dict.fromkeys(n for n in names if n))[:MAX_DEVICE_BUTTONS]


def open_buttons(base_url: str | None, thread: str, result: Mapping[str, Any],
                 sig: str = "") -> dict[str, Any] | None:
    """An actions block: the thread in the web app, then each device's page; None when no web
    address is configured (a button to nowhere is worse than none). `sig`: the thread link's
    signature (SlackSettings.thread_sig), without which the web app opens nothing of Slack's."""
    if not base_url:
        return None
    base = base_url.rstrip("/")
    signed = f"&sig={sig}" if sig else ""
    buttons = [_button("Open in netopsai", f"{OPEN_ACTION}_thread",
                       url=f"{base}/?thread={quote(thread, safe='')}{signed}")]
    buttons += [_button(f"Open {name}", f"{OPEN_ACTION}_device_{i}",
                        url=f"{base}/?device={quote(name, safe='')}")
                for i, name in enumerate(_devices(result))]
    return {"type": "actions", "block_id": OPEN_ACTION, "elements": buttons}


def table_buttons(thread: str, evidence: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A "Full table" button per evidence with more rows than a message shows (at most three,
    so the row keeps room for the evidence and confirm buttons)."""
    big = [e for e in dumps_of(evidence) if len(e.get("rows") or []) > BIG_TABLE][:3]
    return [_button(f"Full table {e['id']} ({len(e['rows'])} rows)", f"{TABLE_ACTION}_{i}",
                    value=json.dumps({"t": thread, "id": e["id"]}))
            for i, e in enumerate(big)]


def table_text(columns: list[str], rows: list[dict[str, Any]]) -> list[str]:
    """A table as fixed-width text, cut into chunks that each fit one section's code block."""
    from netopsai.ui.slack.blocks import fixed_width_table

    lines = fixed_width_table(columns, rows).replace("```", "'''").split("\n")
    chunks, cur = [], ""
    for line in lines:
        line = line[: MODAL_TEXT - 10]
        if cur and len(cur) + len(line) + 1 > MODAL_TEXT - 8:
            chunks.append(cur)
            cur = ""
        cur = f"{cur}\n{line}" if cur else line
    return [*chunks, cur] if cur else chunks


def table_modal(record: Mapping[str, Any]) -> dict[str, Any]:
    """A modal with one evidence's rows, as many as its 100 blocks hold (the count says so when
    they do not all fit)."""
    from netopsai.ui.slack.blocks import mrkdwn

    ev = dump_of(record)
    rows = ev.get("rows") or []
    chunks = table_text(list(ev.get("columns") or []), rows)
    shown = chunks[: MODAL_BLOCKS - 2]
    cut = (f" (the first {sum(c.count(chr(10)) for c in shown)} rows fit here; "
           "`netopsai tool` or the web app has them all)") if len(shown) < len(chunks) else ""
    head = mrkdwn(f"**[{ev['id']}] {ev['tool']}**: {len(rows)} rows{cut}. {ev.get('summary', '')}")
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": head[:MODAL_TEXT]}}]
    blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": f"```{c}```"}} for c in shown]
    title = f"{ev['id']} {ev['tool']}"[:24]
    return {"type": "modal", "title": {"type": "plain_text", "text": title},
            "close": {"type": "plain_text", "text": "Close"}, "blocks": blocks}
