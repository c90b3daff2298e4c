"""Which of many literals occur in a text, in one pass of one regular expression: the vendor
rules' needles (rules.py), so that a line is tried only against the rules whose needle it holds
instead of every rule in turn (some 340 of them: most of a line's parse went there).

Exact, not a heuristic: the literals become one trie-shaped pattern whose match at a position is
the longest literal starting there (at each node only one branch can take the next character,
and going deeper is tried before stopping). Every literal inside a matched one (its prefixes
included) is then present too. A literal may also start inside a match and run past its end:
where any of a match's proper suffixes begins another literal the search resumes one character
after the match's start, otherwise after its end. So `present(text)` is exactly
`{n for n in literals if n in text}` (tests/backends/syslog/test_syslog_needles.py checks it on
every corpus line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Trie = dict[str, "Trie"]


def _trie_pattern(literals: Iterable[str]) -> str:
    trie: Trie = {}
    for word in literals:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # a literal ends here

    def build(node: Trie) -> str:
        kids = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not kids:
            return ""
        body = kids[0] if len(kids) == 1 else "(?:" + "|".join(kids) + ")"
        return f"(?:{body})?" if "" in node else body  # deeper first: the longest wins

    return build(trie)


class Needles:
    """The literals `literals` (non-empty, any number, duplicates allowed)."""

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = tuple(dict.fromkeys(literals))
        if "" in self.literals:
            raise ValueError("an empty literal is in every text: leave it out of the search")
        self._pattern = re.compile(_trie_pattern(self.literals)) if self.literals else None
        # per literal: every literal inside it (itself too), and whether another may start
        # inside it and end beyond it
        self._inside = {n: frozenset(m for m in self.literals if m in n) for n in self.literals}
        self._straddled = {n: any(m.startswith(n[i:]) and len(m) > len(n) - i
                                  for m in self.literals for i in range(1, len(n)))
                           for n in self.literals}

    def present(self, text: str) -> set[str]:
        """The literals that occur in `text`."""
        found: set[str] = set()
        if self._pattern is None:
            return found
        search, inside, straddled, pos = self._pattern.search, self._inside, self._straddled, 0
        while m := search(text, pos):
            word = m.group()
            found |= inside[word]
            pos = m.start() + 1 if straddled[word] else m.end()
        return found
