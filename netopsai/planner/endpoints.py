"""The ends of a path, in the order the question names them.

On-calls name an end by address ("10.1.3.20"), by host or switch name ("dc1-host-03-1"), or
both ("dc1-host-03-1 (10.1.3.20)"). Each mention becomes a Mention; a name and the address
written next to it in brackets are one end, and an end named twice (by name and by its
address, or twice over) is still one end: "A cannot reach A" is not a pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"\s*[(\[]\s*(?:(?:ip|ipv4|addr|address)\b\s*[:=]?\s*)?", re.I)  # "name (ip: "
_CLOSE = re.compile(r"\s*[)\]]")
_FROM = re.compile(r"\bfrom\s+(?:host\s+|the\s+)?$", re.I)


@dataclass(frozen=True)
class Mention:
    """One place the question names an end: an address, or an inventory name and its address."""

    start: int
    end: int
    ip: str
    name: str | None = None  # inventory name, when typed as a name

    @property
    def label(self) -> str:
        return self.name or self.ip


@dataclass
class Ends:
    ips: list[str]  # distinct ends, in path order
    notes: list[str]
    conflicts: list[str]  # "name (address)" where the inventory gives the name another address
    repeated: list[str]  # why there is no pair: one end named twice (empty when there is one)


def endpoints(question: str, mentions: list[Mention]) -> Ends:
    """Distinct ends in path order ("B reachable from A" traces A -> B), with notes on pairs
    that disagree with the inventory and on ends named twice."""
    merged, notes, conflicts = _pair(question, sorted(mentions, key=lambda m: m.start))
    distinct: list[Mention] = []
    twice: list[str] = []
    for m in merged:
        first = next((d for d in distinct if d.ip == m.ip), None)
        if first is None:
            distinct.append(m)
        else:
            twice.append(_twice(first, m))
    if len(distinct) >= 2 and _FROM.search(question[:distinct[1].start]) \
            and not _FROM.search(question[:distinct[0].start]):
        distinct[0], distinct[1] = distinct[1], distinct[0]
    # with two other ends, "A / its IP" is just said twice: no harm done
    return Ends([m.ip for m in distinct], notes, conflicts, twice if len(distinct) < 2 else [])


def _pair(question: str, mentions: list[Mention]) -> tuple[list[Mention], list[str], list[str]]:
    """Join "name (address)" and "address (name)" into one mention."""
    out: list[Mention] = []
    notes: list[str] = []
    conflicts: list[str] = []
    i = 0
    while i < len(mentions):
        a = mentions[i]
        b = mentions[i + 1] if i + 1 < len(mentions) else None
        if b is None or not _bracketed(question, a, b):
            out.append(a)
            i += 1
            continue
        named, literal = (a, b) if a.name else (b, a)
        if named.ip != literal.ip:
            close = _CLOSE.match(question, b.end)
            text = question[a.start:close.end() if close else b.end]
            conflicts.append(text)
            notes.append(f"{text!r}: the inventory has {named.name} at {named.ip}, not "
                         f"{literal.ip}; say which one is meant")
        out.append(Mention(a.start, b.end, named.ip, named.name))
        i += 2
    return out, notes, conflicts


def _bracketed(question: str, a: Mention, b: Mention) -> bool:
    """b is in brackets right after a, and exactly one of them is a name."""
    return (a.name is None) != (b.name is None) and bool(
        _OPEN.fullmatch(question[a.end:b.start])) and bool(_CLOSE.match(question, b.end))


def _twice(first: Mention, again: Mention) -> str:
    if first.label == again.label:
        return f"{first.label} is named twice: a path needs two different ends"
    return (f"{first.label} and {again.label} are the same end ({first.ip}): "
            "a path needs two different ends")
