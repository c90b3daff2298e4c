"""Misspelt words read as the planner's own, and everything else left as typed (issue 25 item 3;
netopsai/planner/spelling.py, lexicon.py, english_near.py).

The correction targets are the planner's words only, and the guard lists are built from real
lists: the English words near a planner word (wordfreq, tests/data/phrasings/english_near.py),
network terms, time zones, and the words of the inventory's names.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from datetime import UTC, datetime
from types import ModuleType

import pytest

import netopsai.planner as planner
from netopsai.planner import Vocabulary, plan
from netopsai.planner.english_near import BUILT_FOR, NEAR
from netopsai.planner.lexicon import JARGON, VOCAB
from netopsai.planner.spelling import correct, planner_word
from netopsai.planner.windows import parse_when
from tests.paths import DATA

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
BUILDER = DATA / "phrasings" / "english_near.py"


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("english_near_builder", BUILDER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _patterns() -> list[re.Pattern[str]]:
    """Every pattern the planner's modules hold, alone or in (name, pattern) tables."""
    found: list[re.Pattern[str]] = []
    for mod in pkgutil.iter_modules(planner.__path__):
        for value in vars(importlib.import_module(f"netopsai.planner.{mod.name}")).values():
            if isinstance(value, re.Pattern):
                found.append(value)
            elif isinstance(value, list) and value and all(
                    isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], re.Pattern) for x in value):
                found += [x[1] for x in value]
    return found


# --- the word lists -----------------------------------------------------------------------------

def test_every_target_word_is_one_the_planner_reads() -> None:
    """A correction to a word no rule reads would only add risk: each planner word is matched by
    one of the planner's patterns, written in one, or read by the window parser."""
    patterns = _patterns()
    source = " ".join(p.pattern.lower() for p in patterns)

    def read(word: str) -> bool:
        return (any(p.search(word) for p in patterns)
                or re.search(rf"(?<![a-z]){word}(?![a-z])", source) is not None
                or any(parse_when(text, CLOCK).window for text in (f"{word} 10:00", f"last 2 {word}")))
    assert len(patterns) > 80
    assert [w for w in sorted(VOCAB) if not read(w)] == []


def test_the_english_guard_was_built_for_these_words() -> None:
    """english_near.py lists the English words near *these* planner words: a word added to the
    lexicon without rebuilding it would be free to swallow real words near it."""
    builder = _builder()
    assert builder.fingerprint(VOCAB, JARGON) == BUILT_FOR, (
        "planner words changed: rebuild with tests/data/phrasings/english_near.py (see its docstring)")
    assert len(NEAR) > 1000 and not NEAR & VOCAB
    assert {"list", "post", "boarder", "hosted", "alarmed"} <= NEAR | VOCAB
    assert "most" not in NEAR  # no planner word one slip from it shares its first letter


def test_the_builder_finds_near_words_and_skips_misspellings() -> None:
    """The builder's own rules, on words of our choosing: a real word one slip from a planner
    word is kept, a known misspelling and a dropped final g are not, a far word is not near."""
    builder = _builder()
    lex = builder._lexicon()
    assert builder.osa("alrams", "alarms") == 1 and builder.osa("flaaping", "flapping") == 1
    assert builder.near_words(["boarder", "happend", "somethin", "zebra", "lost"], lex) == ["boarder"]


# --- corrections --------------------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "word"), [
    ("alrams", "alarms"), ("alrm", "alarm"), ("chnages", "changes"), ("erors", "errors"),
    ("discrads", "discards"), ("flaaping", "flapping"), ("happend", "happened"),
    ("utilzation", "utilization"), ("yesterdy", "yesterday"), ("dwon", "down"), ("lsot", "lost"),
    ("conection", "connection"), ("intermitent", "intermittent"), ("somethin", "something"),
    ("trce", "trace"), ("neigbors", "neighbors"), ("retransmts", "retransmits"),
])
def test_a_slip_reads_as_the_planner_word(typed: str, word: str) -> None:
    assert planner_word(typed) == word


@pytest.mark.parametrize("typed", [
    "most", "post", "list", "boarder", "hosted", "alarmed",  # English words near a planner word
    "sflow", "vxlan", "lacp", "mlag", "evpn",  # network terms in no English list
    "pors",  # one slip from ports, port and pods alike: no guess
    "xyzzy", "flap", "ab", "abc",  # no planner word near; a planner word; too short to guess at
])
def test_a_real_word_or_an_ambiguous_one_is_left_alone(typed: str) -> None:
    assert planner_word(typed) is None


def test_names_addresses_times_ports_and_acronyms_are_never_touched() -> None:
    text = ("dc1-laef-03 Ethernet52 et-0/0/1 10.1.1.1 14:02 2pm ml/bert-sweep gpu-[001-004] "
            "e.g. CEST NCCL ALRMS Europe/Paris host.example.net")
    assert correct(text) == (text, {})


def test_case_is_kept_and_what_was_read_is_said() -> None:
    assert correct("ALRAMS and Erors past hr") == ("ALARMS and Errors past hr",
                                                  {"ALRAMS": "alarms", "Erors": "errors"})


def test_a_word_of_the_inventorys_names_is_never_corrected() -> None:
    """A site or device called like a slip of a planner word ("flapd-01") keeps its name."""
    vocab = Vocabulary(devices=["flapd-01", "dc1-leaf-01"], sites=["dc1"], pods=[], roles=["leaf"],
                       meta={"flapd-01": {"role": "leaf", "site": "dc1", "pod": None},
                             "dc1-leaf-01": {"role": "leaf", "site": "dc1", "pod": None}})
    assert "flapd" in vocab.name_words
    assert correct("flapd errors", vocab.name_words)[0] == "flapd errors"
    assert correct("flapd errors")[0] == "flaps errors"  # what the guard prevents
    p = plan("erors on flapd-01 last 2h", vocab, CLOCK)
    assert p.intent == "telemetry.errors" and p.entities.devices == ["flapd-01"]
    assert "read 'erors' as 'errors'" in p.note
