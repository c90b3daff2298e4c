"""Are two revisions' answers the same? (issue 27: a house step changes no answer.)

    .venv/bin/python -m bench.house_same [REV_A] [REV_B] [--n 2] [--scenarios 12] [--keep DIR]
    .venv/bin/python -m bench.house_same [REV_A] [REV_B] --export DIR   # only the two layouts

Each revision is exported (git archive: no worktree, the checkout untouched) into a temporary
directory laid out as it installs (tools/, ui/, prompts/, inventory/ inside netopsai/, as
setup.py maps them) and put first on PYTHONPATH, so its netopsai, tools and ui are the ones
imported (checked: the child reports where they came from). In each, one child (bench/house_ask.py) builds
bench_copilot's medium lab (seed 7, clock 2025-11-04T20:00Z), asks bench_copilot's questions
(drawn once, fixed seed, from the current tree: --n warm ones per class plus the cold one; the
faulted ones injected in turn) and a fixed spread of the arena's public scenarios (each on its
own lab, with its own clock), all through the CLI's `ask --json` with the offline planner and a
fixed thread id and hash seed. The JSON is compared whole but for timing fields (elapsed_ms, a step's ms, the
sandbox's elapsed and warm-start facts). Prints "byte-identical: N/N" or the first differences.
One revision against itself is the control: what differs then varies from run to run (a device
row's key order does: bench/RESULTS.md, "house step 2").
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from bench.bench_copilot import _child
from bench.copilot_config import CLASSES, CLOCK, FAULT_AT, LAB_SEED, ROOT, SCALE

HERE = Path(__file__).resolve().parent
# time spent, not what was answered: a step's or an answer's ms, the sandbox's own clock
TIMING = {"elapsed_ms", "ms", "wall_ms", "duration_ms", "sandbox_ms", "warm"}
SCENARIO_SETS = ("scenarios", "scenarios-ai")


def package_view() -> Any:
    spec = importlib.util.spec_from_file_location("package_view", ROOT / "scripts" / "package_view.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def export(rev: str, dest: Path) -> Path:
    """REV's files in DEST/tree (git archive), laid out as they install: tools/, ui/, prompts/
    and inventory/ copied into netopsai/ (real files, not links: the sandbox runs its child by
    path inside a prison that binds only real directories)."""
    tree = dest / "tree"
    tree.mkdir(parents=True)
    tar = dest / "tree.tar"
    with tar.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], stdout=out, check=True)
    with tarfile.open(tar) as t:
        t.extractall(tree, filter="data")
    tar.unlink()
    for name, folder in package_view().mapped_folders(tree).items():
        shutil.copytree(tree / folder, tree / "netopsai" / name.removeprefix("netopsai."))
    return tree


def questions(n: int) -> list[dict[str, Any]]:
    """bench_copilot's questions, drawn in its own children (init, sample) from this tree."""
    home = Path(tempfile.mkdtemp(prefix="netopsai-house-q-"))
    try:
        _child("init", home)
        qs = _child("sample", home, n)["questions"]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return [{"class": c, **q} for c in CLASSES for q in qs[c]]


def scenarios(tree: Path, count: int) -> list[str]:
    """COUNT scenarios spread evenly over the public sets (file names sorted)."""
    files = sorted(p for s in SCENARIO_SETS for p in (tree / "bench" / s).glob("*.yaml"))
    step = max(1, len(files) // max(count, 1))
    return [str(p) for p in files[::step][:count]]


def answers(rev: str, dest: Path, bench: list[dict[str, Any]], count: int) -> dict[str, Any]:
    tree = export(rev, dest)
    plan = {"lab": {"scale": SCALE, "seed": LAB_SEED, "clock": CLOCK.isoformat(), "fault_at": FAULT_AT},
            "bench": bench, "scenarios": scenarios(tree, count)}
    (dest / "plan.json").write_text(json.dumps(plan))
    home = dest / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("NETOPSAI_")}
    # one hash seed for both: a device's columns come in the order SQLAlchemy loaded its
    # attributes, which follows string hashes and so changes from process to process
    env.update(NETOPSAI_HOME=str(home), PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, str(HERE / "house_ask.py"), str(dest / "plan.json"),
                           str(dest / "out.json")], cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{rev}: the child failed:\n{done.stderr[-3000:]}")
    out: dict[str, Any] = json.loads((dest / "out.json").read_text())
    for name, path in out["where"].items():
        if not Path(path).is_relative_to(tree.resolve()):
            raise SystemExit(f"{rev}: {name} came from {path}, not from the exported tree")
    return out["answers"]


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def comparable(got: dict[str, Any]) -> str:
    try:
        body: Any = untimed(json.loads(got["stdout"]))
    except json.JSONDecodeError:
        body = got["stdout"]  # an error line: compared as printed
    return json.dumps({"exit": got["exit"], "out": body}, indent=1, sort_keys=True, ensure_ascii=False)


def compare(a: dict[str, Any], b: dict[str, Any], shown: int = 3) -> tuple[int, list[str]]:
    same, diffs = 0, []
    for key in a.keys() | b.keys():
        left, right = comparable(a.get(key, {"exit": None, "stdout": ""})), comparable(
            b.get(key, {"exit": None, "stdout": ""}))
        if left == right:
            same += 1
        elif len(diffs) < shown:
            diffs.append(f"--- {key}\n" + "\n".join(list(difflib.unified_diff(
                left.splitlines(), right.splitlines(), "a", "b", lineterm="", n=2))[:40]))
    return same, diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("rev_a", nargs="?", default="ae7e994")
    ap.add_argument("rev_b", nargs="?", default="f933d7c")
    ap.add_argument("--n", type=int, default=2, help="warm bench_copilot questions per class (+1 cold)")
    ap.add_argument("--scenarios", type=int, default=12, help="arena scenarios, spread over the sets")
    ap.add_argument("--keep", type=Path, help="keep the answers under this folder (a/out.json, b/out.json)")
    ap.add_argument("--export", type=Path, help="only lay both revisions out under this folder (to time "
                    "them: PYTHONPATH=DIR/a/tree:. python -P -m bench.bench_batch ...)")
    a = ap.parse_args()
    if a.n < 0 or a.scenarios < 0:
        raise SystemExit("--n and --scenarios must be 0 or more")
    if a.export:
        for side, rev in (("a", a.rev_a), ("b", a.rev_b)):
            print(export(rev, a.export / side))
        return
    bench = questions(a.n)
    work = Path(tempfile.mkdtemp(prefix="netopsai-house-"))
    try:
        # a and b apart even when one revision is run twice (the control: what varies run to run)
        sides = {"a": a.rev_a, "b": a.rev_b}
        got = [answers(rev, work / side, bench, a.scenarios) for side, rev in sides.items()]
        if a.keep:
            for side in sides:
                (a.keep / side).mkdir(parents=True, exist_ok=True)
                shutil.copy(work / side / "out.json", a.keep / side / "out.json")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    same, diffs = compare(*got)
    total = len(got[0].keys() | got[1].keys())
    print(f"{a.rev_a} vs {a.rev_b}: {len(bench)} bench_copilot questions, {a.scenarios} scenarios")
    print(f"byte-identical: {same}/{total}")
    for d in diffs:
        print(d)
    sys.exit(0 if same == total else 1)


if __name__ == "__main__":
    main()
