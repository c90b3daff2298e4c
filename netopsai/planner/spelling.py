"""Misspelt words read as the planner's own ("alrams" -> alarms, "discrads" -> discards,
"flaaping" -> flapping, "happend" -> happened), by edit distance (rapidfuzz's OSA: a swap of
two neighbouring letters is one slip, as typed).

Guarded so that nothing real is changed: only a plain word (letters alone, not touching a
digit, a hyphen, a dot, a slash or a colon: never part of a device name, an address, a port, a
time or a path) of at least MIN_LENGTH letters; never a planner word, an English word near one
(english_near.py, from a real English list), a network term (lexicon.JARGON), a time zone name
or a word of the inventory's names; a short acronym in capitals (CEST, NCCL) is left as typed.
The word must begin with the same letter as the planner word (people rarely slip on the first
letter, and most real words one edit from a planner word differ there), be at most
`lexicon.radius` edits from it, and that word must be the only one so near (or all the nearest
are one word's forms: "erors" is errors or error, either is read).
"""

from __future__ import annotations

import re
from functools import lru_cache

from netopsai.common.zones import ABBREVIATIONS
from netopsai.planner.english_near import NEAR
from netopsai.planner.lexicon import JARGON, MIN_LENGTH, VOCAB, radius

# a plain word: not inside a name (dc1-leaf-03), an address, a path or a time; bounded so a
# 100 K-character run of letters costs one look-up, not a scan per letter
WORD = re.compile(r"(?<![\w./:@'-])[A-Za-z]{1,40}+(?![\w/:@'-]|\.[A-Za-z0-9])")
MAX_LENGTH = 24  # longer "words" are pasted identifiers, not typing slips
_KEEP = VOCAB | NEAR | JARGON | {z.lower() for z in ABBREVIATIONS}
_BY_INITIAL: dict[str, tuple[str, ...]] = {}
for _w in sorted(VOCAB):
    _BY_INITIAL[_w[0]] = (*_BY_INITIAL.get(_w[0], ()), _w)


@lru_cache(maxsize=8192)
def planner_word(word: str) -> str | None:
    """The planner word a lower-case word is a slip of, or None (a word of its own, or no
    single planner word near enough)."""
    if not MIN_LENGTH <= len(word) <= MAX_LENGTH or word in _KEEP:
        return None
    from rapidfuzz.distance import OSA  # here: a question whose words are all known never loads it

    limit = radius(word)
    found = [(OSA.distance(word, v, score_cutoff=limit), v) for v in _BY_INITIAL.get(word[0], ())]
    found = [(d, v) for d, v in found if d <= limit]
    if not found:
        return None
    best = min(d for d, _ in found)
    nearest = sorted((v for d, v in found if d == best), key=lambda v: (abs(len(v) - len(word)), v))
    stem = nearest[0][:MIN_LENGTH]
    return nearest[0] if all(v.startswith(stem) for v in nearest) else None


def correct(text: str, keep: frozenset[str] = frozenset()) -> tuple[str, dict[str, str]]:
    """The text with its misspelt planner words corrected (case kept: "ALRAMS" -> ALARMS), and
    what was read as what. `keep`: more words never to touch (the inventory's name words)."""
    read: dict[str, str] = {}

    def fix(m: re.Match[str]) -> str:
        typed = m.group(0)
        if typed.isupper() and len(typed) <= 5:
            return typed  # an acronym, or a zone
        low = typed.lower()
        word = None if low in keep else planner_word(low)
        if word is None:
            return typed
        read[typed] = word
        return word.upper() if typed.isupper() else word.capitalize() if typed[0].isupper() else word
    return WORD.sub(fix, text), read
