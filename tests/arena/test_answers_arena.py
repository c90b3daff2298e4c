"""Issue 25's arena classes (netopsai/arena/classes.py) and the consistency check in the arena's
scoring: the generator is deterministic and places each class's fault where its question looks;
the web app's suggested questions are the ones it asks; a look-up is scored by what it shows;
and a small run of every class through the full pipeline scores right with no contradiction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from netopsai.arena import run as arena
from netopsai.arena.answers import replace_section, write_set
from netopsai.arena.classes import CLASSES, SUGGESTED, generate
from netopsai.arena.report import leaderboard
from netopsai.arena.score import lookup_label


def test_the_suggested_questions_are_the_web_apps() -> None:
    from netopsai.ui.gradio.chat_tab import SEED_QUESTIONS

    assert SUGGESTED == SEED_QUESTIONS


def test_the_generator_is_deterministic_and_places_each_class(tmp_path: Path) -> None:
    a, b = generate(8, 3), generate(8, 3)
    assert a == b
    assert {e["category"] for _, e in a} == set(CLASSES)
    for sc, e in a:
        f = sc["faults"]
        if e["category"].startswith("shared-cause"):
            assert f[0]["kind"] == "device_down" and sc["expect"]["device"] == f[0]["target"]["device"]
            assert sc["expect"]["root_cause"] == "device.down"
        if e["category"] == "shared-cause-device":
            asked = sc["question"].split(" ")
            assert f[0]["target"]["device"] not in asked  # the neighbour, never the asked one
        if e["category"] == "category":
            end = f[0]["target"]["link"].split(":")[0]
            assert ("dci" in end or "border" in end) and end in sc["expect"]["device"]
        if e["category"] == "past-window":  # came and went hours ago, asked about its time
            assert f[0].get("params", {}).get("for_min") or f[0]["kind"] == "device_reboot"
            assert any(c.isdigit() for c in sc["question"]) or "morning" in sc["question"]
        if e["category"] == "return-path":  # only the way back is denied: the source's segment
            src = sc["question"]
            assert f[0]["kind"] in ("acl_block", "blackhole") and "leaf" in f[0]["target"]["device"]
            assert f[0]["params"]["dst"].rsplit(".", 1)[0] in src
    write_set(tmp_path / "set", 8, 3)
    assert len(arena.load_dir(tmp_path / "set")) == 8 and arena.manifest(tmp_path / "set")
    write_set(tmp_path / "set", 3, 4)  # a smaller set replaces it whole
    assert len(arena.load_dir(tmp_path / "set")) == 3


def test_a_lookup_scores_what_it_shows() -> None:
    ev = [{"id": "E1", "tool": "alarms", "rows": [
        {"device": "dc1-border-01", "state": "open"}, {"device": "dc1-dci-02", "state": "closed"}]}]
    want = ["dc1-border-01", "dc1-dci-02"]
    shown = "2 dci alarms: open LINK_DOWN on dc1-border-01 [E1]\n\n### Evidence\n- [E1] alarms"
    assert lookup_label(shown, ev, "dci.link_down", want) == ("dci.link_down", "dc1-border-01")
    silent = "0 dci alarms in the window [E1]\n\n### Evidence\n- [E1] dc1-border-01"
    assert lookup_label(silent, ev, "dci.link_down", want) == ("none", None)
    uncited = "open LINK_DOWN on dc1-border-01\n\n### Evidence\n- [E1] alarms"
    assert lookup_label(uncited, ev, "dci.link_down", want) == ("none", None)


def test_every_class_scores_right_with_no_contradiction(tmp_path: Path) -> None:
    n = len(CLASSES)  # one of each
    write_set(tmp_path / "set", n, 1)
    results: dict[str, Any] = arena.run(arena.load_dir(tmp_path / "set"), arena.Options(("full",)),
                                        categories=arena.manifest(tmp_path / "set"))
    s = results["baselines"]["full"]["summary"]
    assert s["micro_f1"] == 1.0 and s["citations"] == 1.0, results["outcomes"]
    assert s["judged"] == n and s["contradictions"] == 0
    board = leaderboard(results)
    assert f"contradictions: full 0 in 0 of {n} answers (target: 0)" in board
    assert all(f"category {c}" in board for c in CLASSES)  # scored per class
    out = tmp_path / "R.md"
    out.write_text("# R\n\n<!-- other:begin -->\nkeep\n<!-- other:end -->\n")
    replace_section(out, "arena-answers", "one")
    replace_section(out, "arena-answers", "two")
    text = out.read_text()
    assert "keep" in text and "two" in text and "one" not in text
