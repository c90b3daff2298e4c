"""The parse's fast paths equal the full ones on every real line we hold (bench/real_logs/) and
every vendor fixture line: the needle search (one pass for all the rules' needles) finds exactly
the needles `in` finds, and classify, trying only the rules whose needle a line holds, gives what
trying every rule in turn gives."""

from __future__ import annotations

import json

import pytest
import yaml

from netopsai.backends.syslog.needles import Needles
from netopsai.backends.syslog.parse import parse_frame
from netopsai.backends.syslog.rules import classify, classify_each, rules
from tests.paths import DATA, REPO


def _lines() -> list[str]:
    out = [json.loads(row)["line"] for path in sorted((REPO / "bench" / "real_logs").glob("*.jsonl"))
           for row in path.read_text().splitlines() if row.strip()]
    for path in sorted((DATA / "syslog" / "vendors").glob("*.yaml")):
        out += [item["line"] for item in yaml.safe_load(path.read_text()) or [] if "line" in item]
    return out


LINES = _lines()


def test_the_lines_are_many() -> None:
    assert len(LINES) > 3000  # the corpus and the fixtures were found


@pytest.mark.parametrize(("literals", "text", "found"), [
    (["abc", "bcd", "cde", "b"], "xabcdey", {"abc", "bcd", "cde", "b"}),  # each starts in the last
    (["BFD", "BFD-", "BFD Sess", "FD"], "BFD-5 BFD Sess", {"BFD", "BFD-", "BFD Sess", "FD"}),
    (["state ", "changed state to"], "changed state"[:-1], set()),
    (["aa", "aaa"], "aaaa", {"aa", "aaa"}),
])
def test_needles_on_overlaps(literals: list[str], text: str, found: set[str]) -> None:
    assert Needles(literals).present(text) == found


def test_needles_refuse_an_empty_literal() -> None:
    with pytest.raises(ValueError, match="empty literal"):
        Needles(["x", ""])


def test_needles_equal_in_on_every_line() -> None:
    literals = sorted({r.needle for r in rules()})
    search = Needles(literals)
    for line in LINES:
        for text in (line, parse_frame(line.encode()).text):
            assert search.present(text) == {n for n in literals if n in text}, text


def test_classify_equals_every_rule_in_turn() -> None:
    recognised = 0
    for line in LINES:
        text = parse_frame(line.encode()).text
        got = classify(text)
        assert got == classify_each(text), line
        recognised += got is not None
    assert recognised > 1500  # the rules did match: the equality is not of two Nones
