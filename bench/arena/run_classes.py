"""Issue 25's arena classes (netopsai/arena/classes.py) on held-out draws: another seed on the
small labs, and another seed on the medium labs with another lab seed (the medium default lab
and the medium AI lab of 2,048 GPUs). The public draw (seed 1, small labs) is
`python -m netopsai.arena.answers` (section `arena-answers`); these go to section
`arena-classes-heldout` of bench/RESULTS.md, per class, with the headline/evidence consistency
count of every answer.

    .venv/bin/python -m bench.arena.run_classes [--n 70] [--out bench/RESULTS.md]

Our generator and our labs: the scores show no regression, not that the copilot generalises.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from bench.bench_foundation import _machine, write_section
from netopsai.arena import run as arena
from netopsai.arena.classes import CLASSES, generate
from netopsai.arena.generate import MANIFEST, LabKey
from netopsai.arena.report import leaderboard

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

SECTION = "arena-classes-heldout"
DRAWS = (  # (label, title, seed, default lab, AI lab)
    ("classes-heldout-small", "Held-out, small labs, seed 2", 2, LabKey(), LabKey("ai")),
    ("classes-heldout-medium", "Held-out, medium labs (lab seed 11; the AI lab of 2,048 GPUs), seed 3",
     3, LabKey(scale="medium", seed=11), LabKey("ai", scale="medium", seed=11)),
)


def _write(folder: Path, n: int, seed: int, lab: LabKey, ai: LabKey) -> None:
    """The draw as answers.write_set writes the public one (one YAML per scenario, a manifest),
    on the labs given."""
    made = generate(n, seed, lab, ai)
    folder.mkdir(parents=True, exist_ok=True)
    for sc, _ in made:
        (folder / f"{sc['id']}.yaml").write_text(yaml.safe_dump(sc, sort_keys=False, width=100))
    manifest = {"seed": seed, "n": n, "generator": "netopsai.arena.classes",
                "scenarios": [entry for _, entry in made]}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def per_class(results: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    """class -> (label right, label, device and citations right, scenarios) of the full
    pipeline."""
    cats = results["categories"]
    label: Counter[str] = Counter()
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for o in results["outcomes"]:
        if o["baseline"] != "full":
            continue
        c = cats.get(o["scenario"], {}).get("category", "?")
        total[c] += 1
        label[c] += o["expected"] == o["predicted"]
        right[c] += o["expected"] == o["predicted"] and o["device_ok"] and o["citations_ok"]
    return {c: (label[c], right[c], total[c]) for c in CLASSES if total[c]}


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--n", type=int, default=70)  # 10 of each of the 7 classes
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    a = ap.parse_args()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=ROOT, check=False).stdout.strip() or "unknown"
    mach, load = _machine(), os.getloadavg()
    parts, lines = [], []
    for label, title, seed, lab, ai in DRAWS:
        with tempfile.TemporaryDirectory(prefix="netopsai-classes-") as tmp:
            _write(Path(tmp), a.n, seed, lab, ai)
            results = arena.run(arena.load_dir(Path(tmp)), arena.Options(arena.BASELINES),
                                categories=arena.manifest(Path(tmp)))
        (HERE / "results").mkdir(exist_ok=True)
        (HERE / "results" / f"{label}.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
        (HERE / "results" / f"{label}.md").write_text(leaderboard(results))
        s = results["baselines"]["full"]["summary"]
        lines.append(f"- {title}: " + ", ".join(f"{c} {r}/{n}" + (f" (label {lab_}/{n})" if lab_ != r else "")
                                               for c, (lab_, r, n) in per_class(results).items())
                     + f"; contradictions {s.get('contradictions', 0)} in {s.get('contradicting', 0)} "
                     f"of {s.get('judged', 0)} answers")
        parts.append(leaderboard(results).replace("### ", f"#### {title} — ", 1))
    body = (f"## NetOpsArena, issue 25 classes on held-out draws — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n\n"
            f"`python -m bench.arena.run_classes` at {rev} (plus uncommitted work of the moment, if any); "
            f"machine: {mach['cpu']}, {mach['cores']} cores; 1-min load at the start {load[0]:.1f}. "
            "The classes of netopsai/arena/classes.py (shared-cause-device, shared-cause-job, "
            "category, suggested, past-window, return-path, hurried) drawn with other seeds and on "
            "other labs than the public draw (section arena-answers). Only the full pipeline answers "
            "device, job and look-up questions. **Our generator and our labs: these scores prove no "
            "regression, nothing about generalisation.**\n\n"
            "Per class (full pipeline: label, device and citations all right; the label alone "
            "where it differs):\n\n" + "\n".join(lines)
            + "\n\n" + "\n".join(parts))
    write_section(a.out, SECTION, body)
    print(body)


if __name__ == "__main__":
    main()
