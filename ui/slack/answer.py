"""An answer in Block Kit, in the order an on-call reads it (issue 26): the headline first (the
line the web app pins and the terminal prints first, from netopsai.copilot.headline; it is also the
message's notification text), the window read, the conclusion, the alarms as a list with their
buttons, the next steps, then the rest (also found, ruled out, checked), key facts in words,
citations in id order, and the buttons: evidence, confirm, full tables, open in netopsai."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from netopsai.copilot.headline import headline
from netopsai.copilot.payload import answer_of
from netopsai.ui.slack.blocks import (
    HEADLINE_BLOCK,
    citation_blocks,
    confirm_button,
    context,
    evidence_button,
    key_facts,
    mrkdwn,
    section,
)
from netopsai.ui.slack.links import open_buttons, table_buttons
from netopsai.ui.slack.page import short_unplaced

MAX_DETAIL_SECTIONS = 8
MAX_BLOCKS = 50  # Slack's cap per message
_WINDOW = re.compile(r"^_[^_].*_$", re.S)
_HEADING = re.compile(r"(?m)^#{1,6}\s*(.+)$")


def headline_block(answer: str) -> dict[str, Any]:
    """The first section: the headline in bold (the answer's first paragraph when it gives no
    headline, e.g. an answer that is all italics)."""
    line = headline(answer) or answer.strip()[:200] or "no answer"
    return {"type": "section", "block_id": HEADLINE_BLOCK,
            "text": {"type": "mrkdwn", "text": f"*{mrkdwn(line)}*"}}


def parts(answer: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(window line, conclusion, [(heading, body)]): the italic window line an answer may open
    with, its first saying paragraph, then each headed part of the prose; tables, their 'Rows
    of' captions and the evidence list are left to the buttons."""
    body = answer.split("### Evidence")[0]
    paras = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    prose = [p for p in paras if not p.startswith(("|", "Rows of", "- [E"))]
    window = prose.pop(0) if prose and _WINDOW.match(prose[0]) and len(prose) > 1 else ""
    conclusion = prose.pop(0) if prose else answer.strip()[:500]
    sections: list[tuple[str, str]] = []
    for p in prose:
        m = _HEADING.match(p)
        if m:
            sections.append((m.group(1).strip(), p[m.end():].strip()))
        elif sections:
            title, text = sections[-1]
            sections[-1] = (title, f"{text}\n\n{p}".strip())
        else:
            sections.append(("", p))
    return window, conclusion, sections


def _next_steps_first(sections: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """What to do is read before what was ruled out: the next steps move to the front."""
    steps = [s for s in sections if s[0].lower().startswith("next step")]
    return steps + [s for s in sections if s not in steps]


def _section_text(title: str, text: str) -> str:
    return mrkdwn(f"**{title}**\n{text}" if title and text else title or text)


def answer_blocks(result: Mapping[str, Any], thread: str, *, base_url: str | None = None,
                  alarm_blocks: list[dict[str, Any]] | None = None,
                  page: dict[str, Any] | None = None, zone: str = "UTC",
                  link_sig: str = "") -> list[dict[str, Any]]:
    """The whole answer message, its times on the network's clock (`zone`). `alarm_blocks`: an
    alarm list (ui/slack/alarm_list.py) shown after the conclusion; `page`: the "Page the
    on-call" button (ui/slack/page.py), when an on-call channel is configured. A question not
    placed is its line and example buttons."""
    answer = str(answer_of(result).get("answer") or "")
    short = short_unplaced(answer, thread)
    if short is not None:  # the headline is that line already: the help and its buttons follow
        return [headline_block(answer), *short[1:]]
    window, conclusion, sections = parts(answer)
    blocks = [headline_block(answer)]
    if window:
        blocks.append(context(mrkdwn(window)))
    blocks.append(section(mrkdwn(conclusion)))
    blocks += alarm_blocks or []
    room = MAX_BLOCKS - len(blocks) - 7  # fields, citations and the button rows keep their place
    for title, text in _next_steps_first(sections)[:max(0, min(room, MAX_DETAIL_SECTIONS))]:
        blocks.append(section(_section_text(title, text)))
    facts = key_facts(result)
    if facts:
        blocks.append({"type": "section", "fields": [
            {"type": "mrkdwn", "text": f"*{k}*\n{mrkdwn(v)}"[:1900]} for k, v in facts]})
    typed = answer_of(result)
    by_id = {e["id"]: e for e in typed.get("evidence", [])}
    blocks += citation_blocks([by_id[c] for c in typed.get("citations", []) if c in by_id],
                              zone)[:2]
    if by_id:
        buttons = evidence_button(thread, list(by_id))
        rc = typed.get("root_cause")
        label = rc.get("label") if rc else None
        if label and label not in ("none", "inconclusive"):
            buttons["elements"].append(confirm_button(thread))
        buttons["elements"] += table_buttons(thread, list(by_id.values()))
        blocks.append(buttons)
    links = open_buttons(base_url, thread, result, link_sig)
    if links:
        blocks.append(links)
    if page is not None:
        blocks.append({"type": "actions", "block_id": "netops_next", "elements": [page]})
    return blocks[:MAX_BLOCKS]

