"""NetOpsArena: the generator (deterministic, every kind at every place, targets really on the
traced path, the seed's healthy case really has closed DCI alarms), the scoring math on a
hand-computed example, the runner end to end on real injected labs, and the CLI in a
subprocess (good and bad input)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy import Engine

from netopsai.arena import run as arena
from netopsai.arena.baselines import engine_strategy, one_shot
from netopsai.arena.cases import LABEL, PLACES
from netopsai.arena.generate import MANIFEST, generate, write
from netopsai.arena.score import check_citations, device_matches, f1_table
from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.lab.inject import inject
from netopsai.lab.scenario import LABELS, load_scenario
from netopsai.tools.registry import run_tool
from tests.paths import REPO

_SCRIPT = Path(sys.executable).with_name("netopsai")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "netopsai.cli"]


@pytest.fixture(scope="module")
def public_like() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A full-size set as the public one is made (150 scenarios), generated in memory."""
    return generate(150, 1)


def _targets(f: dict[str, Any]) -> tuple[str | None, str | None]:
    """(device, interface) a fault names."""
    t = f["target"]
    where = t.get("link") or t.get("interface")
    if where:
        dev, ifname = where.split(":", 1)
        return dev, ifname
    return t.get("device"), None


def _trace(backends: Backends, question: str, **extra: Any) -> Any:
    ips = [w for w in question.replace("?", " ").replace(",", " ").split() if w.count(".") == 3]
    return run_tool("traceroute", {"src": ips[0], "dst": ips[1], **extra}, backends)


# ---------------------------------------------------------------- generator

def test_same_seed_same_files_and_another_seed_differs(tmp_path: Path) -> None:
    a = write(tmp_path / "a", 25, 5)
    b = write(tmp_path / "b", 25, 5)
    c = write(tmp_path / "c", 25, 6)
    assert [p.name for p in a] == [p.name for p in b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b, strict=True))
    assert (tmp_path / "a" / MANIFEST).read_bytes() == (tmp_path / "b" / MANIFEST).read_bytes()
    assert [p.read_text() for p in a] != [p.read_text() for p in c]


def test_every_kind_at_every_place_and_every_category(public_like: list[Any]) -> None:
    entries = [e for _, e in public_like]
    seen = {(e["kind"], e["place"]) for e in entries if "kind" in e}
    assert seen == {(k, p) for k, places in PLACES.items() for p in places}
    cats = {e["category"] for e in entries}
    assert cats == {"fault", "healthy", "healthy-dci-closed", "change-on-path", "herring",
                    "fault-decoys", "two-faults"}
    labels = {sc["expect"]["root_cause"] for sc, _ in public_like}
    assert labels == set(LABEL.values()) | {"none"}
    assert len({sc["id"] for sc, _ in public_like}) == 150
    assert len({sc["question"].split(" ")[1] for sc, _ in public_like}) > 10  # varied wording


def test_public_set_is_the_generators_output_for_seed_1(public_like: list[Any]) -> None:
    public = REPO / "bench" / "scenarios"
    files = sorted(public.glob("*.yaml"))
    assert [p.stem for p in files] == sorted(sc["id"] for sc, _ in public_like)
    by_id = {sc["id"]: sc for sc, _ in public_like}
    for p in files:
        assert yaml.safe_load(p.read_text()) == by_id[p.stem], p.name


def test_files_load_as_scenarios(tmp_path: Path) -> None:
    paths = write(tmp_path, 30, 9)
    for p in paths:
        sc = load_scenario(p)
        assert sc.expect is not None and sc.expect.root_cause in LABELS
        assert sc.id == p.stem and sc.question


def test_fault_targets_are_on_the_traced_path(backends: Backends, public_like: list[Any]) -> None:
    """Checked through the traceroute tool on the healthy lab, not the generator's own code:
    a link target's two ends are consecutive hops; a device target is a hop; a second fault
    is on no equal-cost path of the flow."""
    checked = 0
    for sc, entry in public_like:
        if sc["expect"]["root_cause"] == "none" or entry["category"] == "healthy":
            continue
        ev = _trace(backends, sc["question"])
        src = run_tool("metadata", {"query": "ip", "ip": ev.args["src"]}, backends).rows[0]["device"]
        path = [src, *(r["device"] for r in ev.rows)]
        first = sc["faults"][0]
        dev, ifname = _targets(first)
        assert dev in path, (sc["id"], dev, path)
        if ifname and first["kind"] != "dci_link_down":
            nbr = {r["interface"]: r["neighbor"] for r in run_tool(
                "metadata", {"query": "neighbors", "name": dev}, backends).rows}
            i = path.index(dev)
            assert nbr[ifname] in path[max(0, i - 1): i + 2], (sc["id"], dev, ifname, path)
        if entry["category"] == "two-faults":
            other, _ = _targets(sc["faults"][-1])
            assert other not in set(ev.facts["ecmp_devices"]) | set(path), sc["id"]
        checked += 1
    assert checked > 100


def test_herrings_stay_off_every_equal_cost_path(backends: Backends, public_like: list[Any]) -> None:
    herrings = [(sc, e) for sc, e in public_like if e["category"] == "herring"]
    assert herrings
    for sc, entry in herrings:
        ev = _trace(backends, sc["question"])
        near = set(ev.facts["ecmp_devices"]) | set(entry["path"])
        for f in sc["faults"]:
            dev, _ = _targets(f)
            assert dev not in near, (sc["id"], f)


def _spread(made: list[tuple[dict[str, Any], dict[str, Any]]], k: int) -> list[dict[str, Any]]:
    """Scenarios of as many categories and kinds as k allows."""
    seen: set[str] = set()
    out = []
    for sc, e in made:
        key = e.get("kind") or e["category"]
        if key not in seen:
            seen.add(key)
            out.append(sc)
    return out[:k]


def test_sampled_scenarios_inject_and_show_their_fault(make_lab: Callable[..., Engine],
                                                      tmp_path: Path, public_like: list[Any]) -> None:
    engine = make_lab()
    backends = lab_backends(engine)
    for sc in _spread(public_like, 12):
        path = tmp_path / f"{sc['id']}.yaml"
        path.write_text(yaml.safe_dump(sc, sort_keys=False))
        done = inject(engine, load_scenario(path))
        assert not done.reinit and done.faults == [f["kind"] for f in sc["faults"]]
        if sc["expect"]["root_cause"] == "none":
            continue
        # each alarmed fault leaves an alarm (open, or cleared after a reboot) where expected
        if "alarms" in sc["expect"]["must_cite"]:
            ends = sc["expect"]["device"]
            names = [ends] if isinstance(ends, str) else ends
            rows = run_tool("alarms", {"state": "any", "devices": names, "window": "1h"}, backends).rows
            assert any(r["state"] == "open" or r["kind"] == "DEVICE_REBOOT" for r in rows), sc["id"]


def test_seed_case_has_closed_dci_alarms_no_changes_and_a_fine_path(
        make_lab: Callable[..., Engine], tmp_path: Path, public_like: list[Any]) -> None:
    cases = [sc for sc, e in public_like if e["category"] == "healthy-dci-closed"]
    assert cases
    engine = make_lab()
    backends = lab_backends(engine)
    for sc in cases:
        path = tmp_path / f"{sc['id']}.yaml"
        path.write_text(yaml.safe_dump(sc, sort_keys=False))
        inject(engine, load_scenario(path))
        dci = run_tool("alarms", {"category": "dci", "state": "any", "window": "1h"}, backends).rows
        assert dci and all(r["state"] == "closed" for r in dci), sc["id"]
        assert sc["faults"] == [] and sc["noise"]["changes"] == 0
        assert _trace(backends, sc["question"]).facts["reached"]


# ---------------------------------------------------------------- scoring

def test_f1_by_hand() -> None:
    # a: tp 1, fp 1 (c answered a), fn 1 (a answered b) -> 2/(2+1+1) = 0.5
    # b: tp 1, fp 1, fn 0 -> 2/3;  c: tp 0, fn 1 -> 0;  micro: tp 2, fp 2, fn 2 -> 0.5
    t = f1_table([("a", "a"), ("a", "b"), ("b", "b"), ("c", "a")])
    assert t["labels"]["a"]["f1"] == pytest.approx(0.5)
    assert t["labels"]["b"]["f1"] == pytest.approx(2 / 3)
    assert t["labels"]["c"]["f1"] == 0.0
    assert t["micro_f1"] == pytest.approx(0.5)
    assert t["macro_f1"] == pytest.approx((0.5 + 2 / 3 + 0.0) / 3)
    perfect = f1_table([("x", "x"), ("y", "y")])
    assert perfect["micro_f1"] == perfect["macro_f1"] == 1.0


def test_device_match_and_citations() -> None:
    assert device_matches(["dc1-leaf-01", "dc1-spine-01"], "DC1-SPINE-01")
    assert not device_matches("dc1-leaf-01", "dc1-leaf-02")
    assert device_matches(None, None) and not device_matches(None, "dc1-leaf-01")
    ev = [{"id": "E1", "tool": "traceroute"}, {"id": "E2", "tool": "alarms"}]
    index = "### Evidence\n- [E1] traceroute {}\n- [E2] alarms {}"
    ok, cited, _ = check_citations(f"Stops at leaf [E1].\n\nAn alarm [E2].\n\n{index}", ev,
                                   ["traceroute", "alarms"])
    assert ok and cited == ["alarms", "traceroute"]
    # the evidence index alone does not count as citing alarms
    ok, cited, problems = check_citations(f"Stops at leaf [E1].\n\n{index}", ev, ["traceroute", "alarms"])
    assert not ok and cited == ["traceroute"] and problems == ["cites no alarms evidence"]
    ok, _, problems = check_citations("Stops at leaf [E9].", ev, [])
    assert not ok and "E9" in problems[0]


def test_one_shot_uses_the_words_only() -> None:
    assert one_shot("10.1.1.20 to 10.2.1.20 is slow").label == "link.congestion"
    assert one_shot("any issue between 10.1.1.20 and 10.2.1.20?").label == "inconclusive"
    assert one_shot("10.1.1.20 can't reach 10.2.1.20").evidence == []


# ---------------------------------------------------------------- runner

def test_runner_end_to_end_on_five_scenarios(tmp_path: Path) -> None:
    folder = tmp_path / "sc"
    write(folder, 5, 11)
    scenarios = arena.load_dir(folder)
    names = ("one-shot", "traceroute-only", "cvd", "history", "full")
    results = arena.run(scenarios, arena.Options(names), categories=arena.manifest(folder))
    done = arena.write(results, tmp_path / "out")
    data = json.loads(done.json_path.read_text())
    board = done.markdown_path.read_text()
    runnable = [n for n in names if data["baselines"][n]["available"]]
    assert len(data["outcomes"]) == 5 * len(runnable)
    for n in runnable:
        s = data["baselines"][n]["summary"]
        assert s["n"] == 5
        for key in ("micro_f1", "macro_f1", "location", "citations"):
            assert 0.0 <= s[key] <= 1.0
    full = data["baselines"]["full"]["summary"]
    assert full["tool_calls_p50"] >= 1 and full["wall_ms_p50"] > 0 and full["errors"] == 0
    assert data["baselines"]["one-shot"]["summary"]["tool_calls_max"] == 0
    assert data["baselines"]["one-shot"]["summary"]["citations"] == 0.0
    if engine_strategy("cvd")[0] is None:  # never a number for what did not run
        assert "cvd" not in runnable and "| cvd | not available" in board
    assert "| full | " in board and "micro-F1" in board
    # online memory: every scenario's true cause was confirmed once all baselines had answered
    assert data["meta"]["memory"] == "online" and data["meta"]["incidents_confirmed"] == 5


def test_scripted_llm_counts_prompt_tokens(tmp_path: Path) -> None:
    folder = tmp_path / "sc"
    write(folder, 2, 12)
    results = arena.run(arena.load_dir(folder), arena.Options(("full",), llm="scripted"))
    for o in results["outcomes"]:
        assert o["error"] is None
        assert o["llm_calls"] >= 1 and o["prompt_tokens"] > 0
        assert o["citations_ok"] or o["citation_problems"]


# ---------------------------------------------------------------- CLI

def _cli(tmp: Path, *args: str, hash_seed: str = "0") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(tmp / "home"), NO_COLOR="1", COLUMNS="200", PYTHONHASHSEED=hash_seed)
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, env=env,
                          cwd=tmp, check=False)


def _one_line_error(r: subprocess.CompletedProcess[str], needle: str) -> None:
    assert r.returncode != 0 and "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr


def test_cli_gen_and_arena(tmp_path: Path) -> None:
    r = _cli(tmp_path, "bench", "gen", "--n", "3", "--seed", "4", "-o", "sc")
    assert r.returncode == 0, r.stderr
    assert len(list((tmp_path / "sc").glob("*.yaml"))) == 3 and (tmp_path / "sc" / MANIFEST).exists()
    # another process with another hash seed (set order) writes the same bytes
    assert _cli(tmp_path, "bench", "gen", "--n", "3", "--seed", "4", "-o", "again",
                hash_seed="12345").returncode == 0
    for p in (tmp_path / "sc").iterdir():
        assert (tmp_path / "again" / p.name).read_bytes() == p.read_bytes()
    # the files are what `netopsai lab inject` takes
    for p in sorted((tmp_path / "sc").glob("*.yaml")):
        r = _cli(tmp_path, "lab", "inject", str(p))
        assert r.returncode == 0 and f"scenario {p.stem}: lab " in r.stdout, r.stderr
        assert ", then injected " in r.stdout, r.stdout  # what happened to the lab is said
    r = _cli(tmp_path, "bench", "arena", "--scenarios", "sc", "--baselines", "one-shot,full",
             "-o", "out")
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert len(data["outcomes"]) == 6 and (tmp_path / "out" / "leaderboard.md").exists()
    r = _cli(tmp_path, "bench", "arena", "--generate", "2", "--seed", "8", "--baselines", "full",
             "-o", "held")
    assert r.returncode == 0, r.stderr
    held = json.loads((tmp_path / "held" / "results.json").read_text())
    assert held["meta"]["held_out"] == {"n": 2, "seed": 8, "scale": "small", "lab_seed": 7}
    assert len(held["outcomes"]) == 2


@pytest.mark.parametrize(("args", "needle"), [
    (("bench", "gen", "--n", "0", "-o", "x"), "--n must be between 1"),
    (("bench", "gen", "--n", "abc", "-o", "x"), "Invalid value for '--n'"),
    (("bench", "arena", "--scenarios", "nowhere"), "scenario folder not found: nowhere"),
    (("bench", "arena", "--scenarios", ".", "--baselines", "oneshot"), "unknown baseline 'oneshot'"),
    (("bench", "arena", "--llm", "gpt"), "--llm must be none or scripted"),
    (("bench", "arena", "--memory", "all"), "--memory must be online or none"),
    (("bench", "gen", "--n", "2", "--scale", "huge", "-o", "x"), "unknown scale 'huge'"),
])
def test_cli_bad_input_is_one_line(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    _one_line_error(_cli(tmp_path, *args), needle)


def test_cli_folder_without_scenarios(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _one_line_error(_cli(tmp_path, "bench", "arena", "--scenarios", "empty"), "no scenario files")
