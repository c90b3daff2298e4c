"""rapidfuzz is loaded only when a question needs a fuzzy score (issue 28 item 4: its import was
~5-8 ms of every cold `ask`): a name typed as the inventory lists it, and a question whose words
are all known, never load it; a misspelt name or word still finds its match."""

from __future__ import annotations

import itertools
import subprocess
import sys

from rapidfuzz import fuzz

from netopsai.planner.names import CUTOFF, NameIndex, key

DEVICES = ["dc1-leaf-03", "dc1-spine-03", "dc1-host-03-1", "dc2-leaf-03", "dc1-lef-03", "dc1-pod3",
           "dc1-border-03", "dc1-superspine-03"]
PODS = ["dc1-pod3", "dc2-pod3"]
SITES = ["dc1", "dc2"]


def _scored(index: NameIndex, typed: str, allow_site: bool) -> list[tuple[float, str, str]]:
    """NameIndex.best as it was before the exact-name shortcut: every candidate scored."""
    alpha, nums = key(typed)
    scored = []
    for cand_alpha, name, kind in index._by_nums.get(nums, []):
        score = 100.0 if cand_alpha == alpha else fuzz.ratio(alpha, cand_alpha)
        if kind == "site" and (score < 100 or not allow_site):
            continue
        if score >= CUTOFF:
            scored.append((score, name, kind))
    top = max((s for s, _, _ in scored), default=None)
    return [x for x in scored if x[0] == top]


def test_best_is_what_scoring_every_candidate_gives() -> None:
    index = NameIndex(DEVICES, PODS, SITES)
    typed = [*DEVICES, *PODS, *SITES, "dc1-spien-03", "DC1 leaf 3", "dc1-leaf3", "dc1-lf-03",
             "dc1-tor-03", "dc1", "dc3", "dc1-pod-3", "dc1-hst-03-1", "leaf-03", "xx-99"]
    for name, allow_site in itertools.product(typed, (True, False)):
        assert index.best(key(name), allow_site) == _scored(index, name, allow_site), (name, allow_site)


CHILD = """
import sys
from netopsai.planner.names import NameIndex, key
from netopsai.planner.spelling import correct
index = NameIndex({devices!r}, {pods!r}, {sites!r})
print(index.best(key("dc1-leaf-03"))[0][1], correct("who owns 10.1.3.20? any alarms")[1],
      "rapidfuzz" in sys.modules)
print(index.best(key("dc1-spien-03"))[0][1], "rapidfuzz" in sys.modules)
print(correct("is it flaaping")[1])
"""


def test_rapidfuzz_is_loaded_only_for_a_fuzzy_score() -> None:
    code = CHILD.format(devices=DEVICES, pods=PODS, sites=SITES)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "dc1-leaf-03 {} False"  # exact name, known words: not loaded
    assert out[1] == "dc1-spine-03 True"  # a slip: scored by rapidfuzz
    assert out[2] == "{'flaaping': 'flapping'}"
