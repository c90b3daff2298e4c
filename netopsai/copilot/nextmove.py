"""The next move after an answer, one click away (issue 26 items 8 and 9): the follow-up
questions its evidence suggests, the examples offered when a question could not be placed, and
the escalation text "Page the on-call" drafts. The one place the web app, the terminal (`ask`,
`chat`) and the Slack bot take them from, so the three offer the same examples in the same
order. Pure: no UI library here, so it is tested alone."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from netopsai.backends.rows import AlarmRow, Hop
from netopsai.copilot.headline import headline, plain

MAX_NEXT = 3
UNPLACED = "I could not place this"
_QUOTED = re.compile(r'"([^"]{4,80})"')
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
BAD_HOPS = ("!X", "!H", "!N", "*", "!F-mtu")


def _add(out: list[str], question: str, asked: str) -> None:
    if question.lower() != asked.strip().lower() and question not in out:
        out.append(question)


def _devices(turn: Sequence[Mapping[str, Any]], entities: dict[str, Any], names: set[str]) -> list[str]:
    """The devices this turn is about, the likeliest culprit first: where a trace stopped, the
    root of the first open case, the devices the question named, then devices in its rows."""
    found: list[str] = []
    for ev in turn:
        rows = ev.get("rows") or []
        if ev.get("tool") == "traceroute":
            hops: list[Hop] = rows
            found += [str(r["device"]) for r in hops if str(r.get("status")) in BAD_HOPS and r.get("device")]
        if ev.get("tool") == "alarms":
            alarms: list[AlarmRow] = rows
            found += [str(r["device"]) for r in alarms if r.get("root") and r.get("device")]
    found += [d for d in entities.get("devices") or [] if d in names]
    for ev in turn:
        found += [str(r["device"]) for r in (ev.get("rows") or [])[:5] if r.get("device")]
    return [d for d in dict.fromkeys(found) if d in names]


def follow_ups(asked: str, intent: str, turn: Sequence[Mapping[str, Any]], entities: dict[str, Any],
               names: set[str]) -> list[str]:
    """Two or three questions the answer's evidence suggests ("the reverse path", "upstream
    switch of IP", "details of DEVICE", "what changed on DEVICE"), none the one just asked."""
    out: list[str] = []
    trace = next((e for e in turn if e.get("tool") == "traceroute"), None)
    if trace is not None:
        src, dst = (trace.get("args") or {}).get("src"), (trace.get("args") or {}).get("dst")
        if src and dst:
            _add(out, f"trace {dst} to {src}", asked)  # the reverse path
    # addresses the on-call typed (a device named by name also resolves to its loopback: no
    # "upstream switch" of that)
    ips = [i for i in entities.get("endpoints") or entities.get("ips") or []
           if _IP.match(str(i)) and str(i) in asked]
    if ips and intent != "inventory.upstream":
        _add(out, f"upstream switch of {ips[0]}", asked)
    devices = _devices(turn, entities, names)
    for dev in devices[:2]:
        if intent != "inventory.device":
            _add(out, f"details of {dev}", asked)
        if intent != "changes":
            _add(out, f"what changed on {dev} in the last 24h", asked)
    if intent == "overview" and not devices:
        _add(out, "open alarms in the last 24h", asked)
    return out[:MAX_NEXT]


def examples(answer: str, limit: int = 4) -> list[str]:
    """The questions the "could not place" help names (each one the planner answers), a few of
    different kinds; [] for any other answer."""
    if UNPLACED not in answer:
        return []
    found = list(dict.fromkeys(_QUOTED.findall(answer)))
    picks = found[::max(1, len(found) // limit)][:limit]  # spread over the kinds the help lists
    return picks


def unplaced(answer: str) -> tuple[str, list[str]] | None:
    """A "could not place" answer as its one line (the reason) and up to four examples to ask
    instead; None for any other answer (or one whose help names no example)."""
    shown = examples(answer)
    if UNPLACED not in answer or not shown:
        return None
    start = answer.index(UNPLACED)
    return answer[start:].split(". ", 1)[0].rstrip(".") + ".", shown


def short_unplaced(prose: str, shown: list[str]) -> str:
    """The "could not place" answer as one sentence and a pointer to the clickable examples,
    instead of a paragraph of italics listing every kind of question."""
    if UNPLACED not in prose or not shown:
        return prose
    start = prose.index(UNPLACED)
    first = prose[start:].split(". ", 1)[0].rstrip(".") + "."
    return (f"**{first}**\n\nTry one of the questions below (a click asks it), or ask **help** "
            "for everything netopsai answers offline.")


def _section(answer: str, title: str) -> list[str]:
    """The bullet lines under '#### TITLE', as plain words."""
    m = re.search(rf"^#### {re.escape(title)}\s*\n(.*?)(?=^#{{2,4}} |\Z)", answer, re.M | re.S)
    if not m:
        return []
    return [plain(x[2:]) for x in m.group(1).splitlines() if x.startswith("- ")]


def page_draft(answer: str, question: str, link: str, limit: int = 6) -> str:
    """The escalation a "Page the on-call" click drafts: the headline, what was asked, what was
    ruled out (plain words, the label last), and the thread's link."""
    head = headline(answer) or "no conclusion yet"
    ruled = [ruled_out_words(x) for x in _section(answer, "Ruled out")]
    lines = [f"[netopsai] {head}", f"Asked: {question}" if question else ""]
    if ruled:
        lines.append("Ruled out:")
        lines += [f"  - {x}" for x in ruled[:limit]]
        lines += [f"  - and {len(ruled) - limit} more (see the thread)"] if len(ruled) > limit else []
    lines.append(f"Thread: {link}")
    return "\n".join(x for x in lines if x)


_LABEL = re.compile(r"^([a-z][a-z0-9_]*\.[a-z0-9_]+): (.+)$")


def ruled_out_words(line: str) -> str:
    """'link.down: no open link-down alarm …' -> 'no open link-down alarm … (link down)'."""
    m = _LABEL.match(line.strip())
    if not m:
        return line.strip()
    return f"{m.group(2).strip()} ({label_words(m.group(1))})"


def label_words(label: str) -> str:
    """A taxonomy label in words for a tag: 'routing.bgp_down' -> 'routing bgp down'."""
    return label.replace(".", " ").replace("_", " ")


_RULED_LINE = re.compile(r"^- ([a-z][a-z0-9_]*\.[a-z0-9_]+): (.+?)((?:\s*\[E\d+\])*)\s*$")


def tag_ruled_out(markdown: str) -> str:
    """The answer's "Ruled out" lines in plain words first, the taxonomy label after them as a
    small tag (a code span), so the eye reads the reason, not 'link.pfc_storm:'."""
    out, inside = [], False
    for line in markdown.split("\n"):
        if line.startswith("#"):
            inside = line.strip() == "#### Ruled out"
        elif inside and (m := _RULED_LINE.match(line)):
            text = m.group(2)[0].upper() + m.group(2)[1:]
            line = f"- {text}{m.group(3)} `{label_words(m.group(1))}`"
        out.append(line)
    return "\n".join(out)


_NEAR = re.compile(r"'([^'\n]{1,80})' is not in the inventory; did you mean ([^?\n]+)\?")


def corrected(asked: str, answer: str) -> list[str]:
    """The question again with each name the answer suggests for one it did not know ("did
    you mean dc1-pod1, dc1-pod2?"), so the right one is a click away."""
    m = _NEAR.search(answer)
    if not m or m.group(1) not in asked:
        return []
    return [asked.replace(m.group(1), near.strip(), 1) for near in m.group(2).split(",")][:MAX_NEXT]


def next_questions(asked: str, answer: str, intent: str, turn: Sequence[Mapping[str, Any]],
                   entities: dict[str, Any], names: set[str]) -> list[str]:
    """The chips after an answer: the examples of a question not placed, the question with a
    suggested name, else the follow-ups its evidence suggests."""
    return (examples(answer) or corrected(asked, answer)
            or follow_ups(asked, intent, turn, entities, names))
