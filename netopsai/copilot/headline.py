"""An answer's headline: one line (status · cause · where · impact · since) that every front end
shows first — pinned above the web chat, the first section and notification text of a Slack
answer, the first line of `netopsai ask` and of each terminal chat answer — so the conclusion
is where the eye lands however long the answer. Built from the answer's own first paragraph
and its Impact and Since lines, never from anything else: the headline cannot say what the
answer does not. Pure and light (re only): the thin CLI client imports it too."""

from __future__ import annotations

import re

MAX_CHARS = 240  # a lookup's first sentence beyond this is cut at a word, with "…"
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CITE = re.compile(r"\s*\\?\[E\d+\](?:\([^)]*\))?")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_FACT = re.compile(r"^- \*\*(Impact|Since):\*\*\s*(.+)$", re.M)


def plain(text: str) -> str:
    """Markdown down to its words: no citations, links, emphasis or code marks."""
    text = _CITE.sub("", text)
    text = _LINK.sub(r"\1", text)
    return re.sub(r"\s+", " ", text.replace("**", "").replace("`", "").replace("\\", "")).strip()


def _lead(answer: str) -> str:
    """The first paragraph that says something: not the italic window line an answer may open
    with ("_Window: last 2h …_"), not a heading; an answer all in italics (the planner's "I
    could not place this") gives its first paragraph."""
    paras = [p.strip().split("\n- ")[0].strip() for p in re.split(r"\n\s*\n", answer.strip())]
    paras = [p for p in paras if p and not p.startswith("#")]
    said = [p for p in paras if not (p.startswith("_") and p.endswith("_"))]
    return said[0] if said else (paras[0].strip("_") if paras else "")


def _short(text: str, limit: int = MAX_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + " …"


def _fact(kind: str, text: str) -> str:
    """'impact: total: none of the 4 equal-cost paths delivers' from its answer line; a Since
    that is 'not shown: …' says nothing and is left out."""
    words = plain(text)
    if not words or words.lower().startswith(("not shown", "unknown")):
        return ""
    if kind == "Since":
        return "since " + re.split(r",| when | \(", words, maxsplit=1)[0].strip()
    return "impact: " + _short(re.split(r"[;,] ", words, maxsplit=1)[0].strip(), 90)


def headline(answer: str) -> str:
    """One line: a diagnosis' bold findings (the status, the cause and where), its impact and
    since; a lookup's first sentence. "" when the answer has no words yet."""
    lead = _lead(answer)
    if not lead:
        return ""
    bold = [plain(b).rstrip(".") for b in _BOLD.findall(lead)]
    if not bold:
        sentence = re.split(r"(?<=[^.][.!?])\s+(?=[A-Z0-9(])", plain(lead), maxsplit=1)[0]
        return _short(sentence)
    facts = {k: _fact(k, v) for k, v in _FACT.findall(answer)}
    parts = [*bold, facts.get("Impact", ""), facts.get("Since", "")]
    return " · ".join(p for p in parts if p)
