"""Answers in plain words (issue 13): counts agree with their nouns, labels come with words,
nothing reads "None" or names an internal recipe. The helpers, then real answers on the lab."""

from __future__ import annotations

import re
from typing import Any

import pytest

from netopsai.common.words import PLAIN, count, plain
from netopsai.copilot.service import Copilot

ONE_PLURAL = re.compile(r"\b1 (?:alarms|ports|change records|links|interfaces|pairs|entries|"
                        r"devices|hosts|segments|sites|PoDs|errors|checks)\b")


def test_counts_and_labels() -> None:
    assert [count(n, "change record") for n in (0, 1, 2)] == [
        "0 change records", "1 change record", "2 change records"]
    assert count(1, "entry") == "1 entry" and count(3, "entry") == "3 entries"
    assert count(2, "PoD") == "2 PoDs" and count(2, "bgp alarm") == "2 bgp alarms"
    assert count(2, "match") == "2 matches" and count(2, "day") == "2 days"
    assert plain("config.acl_block") == "an ACL blocks the traffic"
    assert plain("site.custom") == "site.custom"  # a label of a site's own taxonomy, as it is
    from netopsai.lab.scenario import LABELS

    assert set(LABELS) <= set(PLAIN)  # every label the spec names has words


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("question", [
    "details of dc1-spine-04", "neighbours of dc1-leaf-01 Ethernet50", "open alarms on dc1-leaf-03",
    "what changed on dc1-spine-02 today", "list the PoDs of dc1", "who owns 10.1.3.20?",
    "is dc1-leaf-03 healthy?", "alarms on dc1-spine-01 vs changes today",
])
def test_answers_read_as_words(backends: Any, question: str) -> None:
    answer = Copilot(backends).answer(question, "words")["answer"]
    assert "None" not in answer, answer
    assert not ONE_PLURAL.search(answer), ONE_PLURAL.search(answer)
    assert not re.search(r"\b\w+_\w+ recipe\b", answer)  # no internal recipe names
