"""Fuzzy matching of typed device, PoD and site names against the inventory's names.

A name is compared as (letters, numbers): "dc1-leaf-03", "DC1 leaf 3" and "dc1-leaf3" all become
("dcleaf", (1, 3)). Numbers must match exactly (leaf-13 is never leaf-03); only the letters are
fuzzy (rapidfuzz), so "dc1-spien-02" still finds dc1-spine-02. A name typed without its site
("leaf-03 in dc1") takes the site named elsewhere in the question; without one, it is matched
only when a single site has it, otherwise it is reported as ambiguous rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORD = re.compile(r"[A-Za-z0-9]+")
_PART = re.compile(r"[a-z]+|\d+")
_GAP = re.compile(r"[\s_-]{1,3}")  # what may separate the words of one typed name
_ALIASES = {"tor": "leaf", "ss": "superspine"}  # common shorthands for a role inside a name
MAX_WORDS = 5
CUTOFF = 80.0

Key = tuple[str, tuple[int, ...]]


def _ratio(a: str, b: str) -> float:
    """rapidfuzz's similarity of two names' letters, imported at the first typed name with no
    exact match: most questions spell their names as the inventory does, and the import was
    ~5-8 ms of every cold `ask` (issue 28 item 4, RESULTS "cold-ask-21")."""
    from rapidfuzz import fuzz

    return float(fuzz.ratio(a, b))


def key(text: str) -> Key:
    parts = _PART.findall(text.lower())
    alpha = "".join(_ALIASES.get(p, p) for p in parts if not p.isdigit())
    return alpha, tuple(int(p) for p in parts if p.isdigit())


@dataclass
class Hit:
    name: str
    kind: str  # device, pod or site
    typed: str
    start: int
    end: int
    score: float
    ambiguous: tuple[str, ...] = ()  # several names fit equally well: none is taken


class NameIndex:
    """Inventory names by their numbers, so a lookup only compares names that could match."""

    def __init__(self, devices: list[str], pods: list[str], sites: list[str]) -> None:
        self.sites = sites
        self._by_nums: dict[tuple[int, ...], list[tuple[str, str, str]]] = {}
        for kind, names in (("device", devices), ("pod", pods), ("site", sites)):
            for name in names:
                alpha, nums = key(name)
                self._by_nums.setdefault(nums, []).append((alpha, name, kind))
        self._site_rx = {s: re.compile(r"\b" + r"[\s_-]?".join(
            re.escape(p) for p in _PART.findall(s.lower())) + r"\b", re.I) for s in sites}

    def best(self, k: Key, allow_site: bool = True) -> list[tuple[float, str, str]]:
        """All names with the best score at or above the cutoff (several means a tie)."""
        alpha, nums = k
        candidates = self._by_nums.get(nums, [])
        # an exact name outscores every other (a ratio is 100 only for equal letters): then no
        # fuzzy score is needed, nor rapidfuzz loaded, as for most names typed as listed
        exact = [(100.0, name, kind) for cand_alpha, name, kind in candidates
                 if cand_alpha == alpha and (kind != "site" or allow_site)]
        if exact:
            return exact
        scored = []
        for cand_alpha, name, kind in candidates:
            score = 100.0 if cand_alpha == alpha else _ratio(alpha, cand_alpha)
            if kind == "site" and (score < 100 or not allow_site):
                continue  # sites are short: only an exact site name counts
            if score >= CUTOFF:
                scored.append((score, name, kind))
        top = max((s for s, _, _ in scored), default=None)
        return [x for x in scored if x[0] == top]

    def sites_in(self, text: str) -> list[str]:
        """Sites mentioned anywhere, also inside a device name (hints for site-less names)."""
        return [s for s, rx in self._site_rx.items() if rx.search(text)]


def _candidate(index: NameIndex, typed: str, start: int, end: int, hints: list[str]) -> Hit | None:
    k = key(typed)
    if not k[0] or not k[1]:
        return None  # a name has letters and numbers
    found = [(s, n, kind, True) for s, n, kind in index.best(k)]
    if not index.sites_in(typed):  # "superspines of dc1" is not a site-less "superspine 1"
        for site in hints or index.sites:
            sk = key(site)
            found += [(s, n, kind, False) for s, n, kind in index.best(
                (sk[0] + k[0], sk[1] + k[1]), allow_site=False)]
    if not found:
        return None
    top = max(f[0] for f in found)
    names = sorted({f[1] for f in found if f[0] == top})
    kind = next(f[2] for f in found if f[0] == top)
    return Hit(names[0], kind, typed, start, end, top, tuple(names) if len(names) > 1 else ())


def find_names(text: str, index: NameIndex, hints: list[str]) -> list[Hit]:
    """Every run of up to MAX_WORDS words is a candidate; device and PoD names are taken before
    sites (so "dc1-spien-02" is a misspelt spine, not the site dc1 and junk), the best first,
    then the longer, never overlapping; returned in text order."""
    words = list(_WORD.finditer(text))
    cands: list[Hit] = []
    for i in range(len(words)):
        if words[i].start() and text[words[i].start() - 1] in "-_":
            continue  # never start inside a hyphenated name: "dc9-spine-01" is not "spine-01"
        for j in range(i, min(i + MAX_WORDS, len(words))):
            if j > i and not _GAP.fullmatch(text[words[j - 1].end():words[j].start()]):
                break
            start, end = words[i].start(), words[j].end()
            hit = _candidate(index, text[start:end], start, end, hints)
            if hit and not (hit.kind == "site" and text[end:end + 1] in ("-", "_")):
                cands.append(hit)  # the dc1 of an unknown "dc1-leaf-33" is not a site on its own
    taken: list[Hit] = []
    used = bytearray(len(text))  # the characters taken: a walk over every earlier hit was quadratic
    for hit in sorted(cands, key=lambda h: (h.kind == "site", -h.score, h.start - h.end, h.start)):
        if not any(used[hit.start:hit.end]):
            taken.append(hit)
            used[hit.start:hit.end] = b"\x01" * (hit.end - hit.start)
    return sorted(taken, key=lambda h: h.start)
