"""The vendor rules (netopsai/backends/syslog/rules/*.yaml) against fixtures written from each
vendor's documented message formats (tests/data/syslog/vendors/<family>.yaml): every line is
recognised by the rule it is written for, with the right kind, direction and subject; every rule
has a fixture; lines a rule must not take stay raw."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
import yaml

from netopsai.backends.syslog.parse import classify, parse_frame
from netopsai.backends.syslog.rules import rules
from tests.paths import DATA, REPO

VENDORS = DATA / "syslog" / "vendors"
CORPUS = REPO / "bench" / "real_logs"


def _real(case: dict[str, Any]) -> dict[str, Any]:
    """A fixture may name a real line by its corpus id (`corpus: smb_switch-0005`) rather than
    copy it: the line is read from bench/real_logs/ as collected."""
    if "corpus" not in case:
        return case
    nos = case["corpus"].rsplit("-", 1)[0]
    rows = (json.loads(t) for t in (CORPUS / f"{nos}.jsonl").read_text().splitlines() if t)
    return {**case, "line": next(r["line"] for r in rows if r["id"] == case["corpus"])}


CASES = [(f.stem, _real(case)) for f in sorted(VENDORS.glob("*.yaml"))
         for case in yaml.safe_load(f.read_text())]
SUBJECTS = ("interface", "peer", "neighbor", "component", "user")


@pytest.mark.parametrize(("family", "case"), CASES,
                         ids=[f"{fam}-{i}-{c['rule']}" for i, (fam, c) in enumerate(CASES)])
def test_each_fixture_line(family: str, case: dict[str, Any]) -> None:
    msg = parse_frame(case["line"].encode())
    got = classify(msg.text)
    assert got is not None, msg.text
    assert got.rule == f"{case.get('family', family)}/{case['rule']}", msg.text
    assert (got.kind, got.action) == (case["kind"], case["action"]), msg.text
    for field in SUBJECTS:
        if field in case:
            assert getattr(got, field) == str(case[field]), (field, msg.text)


def test_every_rule_has_a_fixture_and_the_corpus_is_broad() -> None:
    covered = {(c.get("family", fam), c["rule"]) for fam, c in CASES}
    every = {(r.family, r.name) for r in rules()}
    assert every - covered == set(), sorted(every - covered)
    assert len(CASES) >= 200
    per_family = Counter(fam for fam, _ in CASES)
    assert set(per_family) == {r.family for r in rules()} and min(per_family.values()) >= 8


def test_rule_names_are_unique_in_their_family() -> None:
    names = Counter((r.family, r.name) for r in rules())
    assert [k for k, n in names.items() if n > 1] == []


@pytest.mark.parametrize("text", [
    "%SYS-6-LOGGINGHOST_STARTSTOP: Logging to host 10.0.0.9 port 514 started - CLI initiated",
    "%SEC_LOGIN-5-LOGIN_SUCCESS: Login Success [user: ops] [Source: 10.0.0.5] [localport: 22]",
    "sshd[4242]: Accepted publickey for ops from 10.0.0.5 port 51234 ssh2",
    "%LINK-3-UPDOWN: Interface GigabitEthernet0/1, changed state to testing",
    "RPD_BGP_NEIGHBOR_STATE_CHANGED: BGP peer 10.0.0.2 (External AS 65002) changed state from "
    "Idle to Connect (event Start) (instance master)",
])
def test_lines_no_rule_should_take_are_not_alarms(text: str) -> None:
    got = classify(text)
    assert got is None or got.action == "note", got
