"""Issue 25 item 3, words typed in a hurry: a fuzz set of real-style phrasings scored per intent.

tests/data/phrasings/hurried.yaml holds questions written for our lab from operators' own words
in public tickets, issue threads and Q&A pages (typos, `ip:port`, "lost", "hangs", "times out",
"flaky", "w/", "pls", "cant", names in capitals ...), each kept with its source and a short quote
of the original. Every phrasing goes through the offline planner (`plan()`, as the copilot's
offline planner node calls it, job table included) and is right when the planner's intent is
the intent written beside it and every entity in its `expect` was read: the two ends in order
(`src`, `dst`) or the addresses named (`endpoints`), the devices as the inventory spells them,
the window, the port, the job, the alarm category.

The test holds a floor per intent at what the planner scores (FLOORS, a little below), prints
the table of accuracy per intent and per style (`pytest -s tests/planner/test_phrasings_hurried.py`), and
lists the phrasings misread now in tests/data/phrasings/known_misses.txt, the planner's to-do
list. So that the score shows what generalises, not what was fitted, two parts are kept apart
in the tables: of the first round, every fifth source (in sorted order) is held back, the
planner having been taught from the other sources' misses (HELD_BACK_FLOOR); the second round
(`round: 2`) was written after the planner learnt the hurried words and scored before it was
taught from them (its first score is in the README). After improving the planner, regenerate
the list and see the floors to raise with

    .venv/bin/python -m tests.planner.test_phrasings_hurried --update
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.planner import Plan, Vocabulary, plan
from netopsai.planner.calls import METRIC_INTENTS
from tests.paths import DATA as TEST_DATA

DATA = TEST_DATA / "phrasings"
SET: list[dict[str, Any]] = yaml.safe_load((DATA / "hurried.yaml").read_text())
MISSES = DATA / "known_misses.txt"
CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)  # tests/conftest.py CLOCK: the windows' "now"

INTENTS = {  # the offline planner's intents (netopsai/planner/rules.py, jobs.py, job_thread.py)
    "diagnose.connectivity", "diagnose.device", "diagnose.job", "trace", "alarms", "changes",
    "interface.history", "inventory.jobs", "inventory.ip", "inventory.upstream",
    "inventory.neighbors", "inventory.device", "inventory.devices", "inventory.hosts",
    "inventory.pods", "inventory.segments", "inventory.sites", "inventory.interfaces",
    *METRIC_INTENTS.values()}
MAJOR = ["diagnose.connectivity", "diagnose.device", "diagnose.job", "trace", "alarms", "changes",
         "telemetry.flaps", "telemetry.status", "telemetry.errors", "telemetry.discards"]
STYLES = ["typo", "ip:port", "caps", "shorthand", "lost", "hangs", "times-out", "flaky", "w/",
          "pls", "cant", "no-punctuation"]  # issue 25's hurried words: 15 phrasings each at least
EXPECT_KEYS = {"src", "dst", "endpoints", "devices", "window", "interface", "job", "category"}

# Share of each intent's phrasings read right (intent and entities) when measured, less one
# phrasing's worth; raise them as the planner learns (the --update run prints the shares).
FLOORS = {  # measured with the hurried-words pass (planner/hurried.py), issue 25 item 3
    "alarms": 0.96, "changes": 0.96, "diagnose.connectivity": 0.97, "diagnose.device": 0.97,
    "diagnose.job": 0.96, "interface.history": 0.88, "inventory.device": 0.80,
    "inventory.devices": 0.80, "inventory.hosts": 0.66, "inventory.interfaces": 0.66,
    "inventory.ip": 0.87, "inventory.jobs": 0.83, "inventory.neighbors": 0.83,
    "inventory.pods": 0.66, "inventory.segments": 0.66, "inventory.sites": 0.66,
    "inventory.upstream": 0.83, "telemetry.discards": 0.95, "telemetry.ecn": 0.75,
    "telemetry.errors": 0.95, "telemetry.flaps": 0.93, "telemetry.pfc": 0.83,
    "telemetry.retransmits": 0.75, "telemetry.rx_power": 0.90, "telemetry.status": 0.95,
    "telemetry.utilization": 0.90, "trace": 0.96,
}
OVERALL_FLOOR = 0.98
HELD_BACK_EVERY = 5  # every fifth source, in sorted order, is held back
HELD_BACK_FLOOR = 0.94  # 73/75 when first measured, less one phrasing's worth


@dataclass
class Lab:
    vocab: Vocabulary
    jobs: Callable[[], Any]


@dataclass
class Scored:
    row: dict[str, Any]
    got: str
    misses: list[str]  # what was misread: the intent, then each entity

    @property
    def right(self) -> bool:
        return not self.misses

    @property
    def intent_right(self) -> bool:
        return self.got == self.row["intent"]


def held_back(row: dict[str, Any]) -> bool:
    """A first-round phrasing of every HELD_BACK_EVERY-th source: none of them taught the planner."""
    return "round" not in row and row["source"] in _HELD


_HELD = {s for i, s in enumerate(sorted({r["source"] for r in SET if "round" not in r}))
         if i % HELD_BACK_EVERY == HELD_BACK_EVERY - 1}


def _lab(b: Backends) -> Lab:
    return Lab(Vocabulary.from_inventory(b.inventory), lambda: b.inventory.jobs(None, None))


def read(row: dict[str, Any], lab: Lab) -> Scored:
    """One phrasing through the offline planner, checked against its intent and entities."""
    p: Plan = plan(row["q"], lab.vocab, CLOCK, job_table=lab.jobs)
    e, want = p.entities, row["expect"]
    misses = [] if p.intent == row["intent"] else [f"intent {p.intent} (want {row['intent']})"]
    ends = list(e.endpoints)
    checks: list[tuple[str, Any, Any]] = [
        ("src", ends[0] if ends else None, want.get("src")),
        ("dst", ends[1] if len(ends) > 1 else None, want.get("dst")),
        ("endpoints", ends, want.get("endpoints")),
        ("devices", sorted(e.devices), sorted(want.get("devices", []))),
        ("window", e.window, want.get("window")),
        ("job", e.jobs[0] if e.jobs else None, want.get("job")),
    ]
    for key, got, wanted in checks:
        if key in want and got != wanted:
            misses.append(f"{key} {got} (want {wanted})")
    if "interface" in want and want["interface"].lower() not in [i.lower() for i in e.interfaces]:
        misses.append(f"interface {e.interfaces} (want {want['interface']})")
    if "category" in want and want["category"] not in e.categories:
        misses.append(f"category {e.categories} (want {want['category']})")
    return Scored(row, p.intent, misses)


def read_all(labs: dict[str, Lab]) -> list[Scored]:
    return [read(row, labs[row.get("lab", "default")]) for row in SET]


def shares(scored: list[Scored], key: Callable[[Scored], list[str]]) -> dict[str, tuple[int, int, int]]:
    """(right, intent right, phrasings) by each key a phrasing has."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for s in scored:
        for k in key(s):
            out[k][0] += s.right
            out[k][1] += s.intent_right
            out[k][2] += 1
    return {k: (v[0], v[1], v[2]) for k, v in sorted(out.items())}


def table(scored: list[Scored]) -> str:
    lines = []
    for title, key in (("intent", lambda s: [s.row["intent"]]), ("style", lambda s: s.row["style"])):
        lines.append(f"{title:<24} {'right':>11} {'intent':>11}    n")
        for k, (right, intent, n) in shares(scored, key).items():
            lines.append(f"{k:<24} {right / n:>6.0%} {right:>4} {intent / n:>6.0%} {intent:>4} {n:>4}")
        lines.append("")
    first = [s for s in scored if "round" not in s.row]
    parts = {"all": scored, "round 1, taught from": [s for s in first if not held_back(s.row)],
             "round 1, held back": [s for s in first if held_back(s.row)],
             "round 2": [s for s in scored if "round" in s.row]}
    for name, part in parts.items():
        right = sum(s.right for s in part)
        intent = sum(s.intent_right for s in part)
        lines.append(f"{name:<24} {right / len(part):>6.0%} {right:>4} "
                     f"{intent / len(part):>6.0%} {intent:>4} {len(part):>4}")
    return "\n".join(lines)


def misses_text(scored: list[Scored]) -> str:
    head = ("# Hurried phrasings the offline planner misreads now "
            "(tests/planner/test_phrasings_hurried.py).\n"
            "# Regenerate: .venv/bin/python -m tests.planner.test_phrasings_hurried --update\n"
            "# want-intent | question | what was misread\n")
    body = [f"{s.row['intent']} | {s.row['q']} | {'; '.join(s.misses)}"
            for s in sorted(scored, key=lambda s: (s.row["intent"], s.row["q"])) if not s.right]
    return head + "\n".join(body) + "\n"


# --- the set itself ---------------------------------------------------------------------------

def test_set_is_big_sourced_and_covers_intents_and_styles() -> None:
    assert len(SET) >= 300
    qs = [r["q"] for r in SET]
    assert len(set(qs)) == len(qs), [q for q, n in Counter(qs).items() if n > 1]
    for r in SET:
        assert set(r) <= {"q", "intent", "expect", "style", "source", "quote", "lab", "round"}, r
        assert r["intent"] in INTENTS, r
        assert set(r["expect"]) <= EXPECT_KEYS, r
        assert r["source"].startswith(("https://", "http://")), r
        assert 0 < len(r["quote"].split()) <= 15, r
        assert r["style"], r
    per_intent = Counter(r["intent"] for r in SET)
    assert set(per_intent) == INTENTS, INTENTS - set(per_intent)
    assert all(per_intent[i] >= 20 for i in MAJOR), per_intent
    per_style = Counter(s for r in SET for s in r["style"])
    assert all(per_style[s] >= 15 for s in STYLES), per_style


# --- the planner on it ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def labs(backends: Backends, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Lab]:
    from tests.lab.test_ai_fabric import new_ai_lab
    ai = lab_backends(new_ai_lab(tmp_path_factory.mktemp("hurried") / "ai.db"))
    return {"default": _lab(backends), "ai": _lab(ai)}


def test_hurried_phrasings_hold_their_floors(labs: dict[str, Lab]) -> None:
    scored = read_all(labs)
    print("\n" + table(scored))
    known = _known()
    now = {s.row["q"] for s in scored if not s.right}
    if new := sorted(now - known):
        print("\nmisread now, not in known_misses.txt:\n  " + "\n  ".join(new))
    if fixed := sorted(known - now):
        print("\nright now, still in known_misses.txt (run --update):\n  " + "\n  ".join(fixed))
    low = {i: f"{r}/{n}" for i, (r, _, n) in shares(scored, lambda s: [s.row["intent"]]).items()
           if r / n < FLOORS.get(i, 0.0)}
    assert not low, f"below the floor: {low}"
    assert sum(s.right for s in scored) / len(scored) >= OVERALL_FLOOR
    held = [s for s in scored if held_back(s.row)]
    assert sum(s.right for s in held) / len(held) >= HELD_BACK_FLOOR


def test_held_back_sources_are_a_fifth_and_span_the_intents() -> None:
    """The held-back part is big enough to say something: a fifth of the sources, their
    phrasings spread over the major intents."""
    held = [r for r in SET if held_back(r)]
    assert len(_HELD) == len({r["source"] for r in SET if "round" not in r}) // HELD_BACK_EVERY
    assert len(held) >= 60
    assert len({r["intent"] for r in held} & set(MAJOR)) >= 8


def _known() -> set[str]:
    if not MISSES.exists():
        return set()
    lines = [ln for ln in MISSES.read_text().splitlines() if ln and not ln.startswith("#")]
    return {ln.split(" | ")[1] for ln in lines}


# --- the --update helper ----------------------------------------------------------------------

def _labs_outside_pytest(tmp: Path) -> dict[str, Lab]:
    from tests.conftest import new_lab
    from tests.lab.test_ai_fabric import new_ai_lab
    return {"default": _lab(lab_backends(new_lab(tmp / "lab.db"))),
            "ai": _lab(lab_backends(new_ai_lab(tmp / "ai.db")))}


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        scored = read_all(_labs_outside_pytest(Path(tmp)))
    print(table(scored))
    if "--update" in argv:
        MISSES.write_text(misses_text(scored))
        print(f"\nwrote {MISSES} ({sum(not s.right for s in scored)} misses)")
        print("current shares (FLOORS may go up to these, a little below):")
        for i, (r, _, n) in shares(scored, lambda s: [s.row["intent"]]).items():
            print(f"    {i!r}: {r / n:.2f},")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
