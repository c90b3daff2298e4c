"""Issue 25's arena classes (classes.py) end to end: write the set, score it with every baseline
and the consistency check, and put the leaderboard in bench/RESULTS.md (section
`arena-answers`) with the raw results beside the other arenas'.

    .venv/bin/python -m netopsai.arena.answers [--n 70] [--seed 1] [--dir bench/scenarios-answers]
        [--results bench/arena/results] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import yaml

from netopsai.arena import run as arena
from netopsai.arena.classes import generate
from netopsai.arena.generate import MANIFEST
from netopsai.arena.report import leaderboard

SECTION = "arena-answers"


def write_set(out_dir: Path, n: int, seed: int) -> list[Path]:
    """One YAML file per scenario plus manifest.json (the same seed, the same files)."""
    made = generate(n, seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.yaml"):  # a set of other ids (another n or class list) goes first
        old.unlink()
    paths = []
    for sc, _ in made:
        p = out_dir / f"{sc['id']}.yaml"
        p.write_text(yaml.safe_dump(sc, sort_keys=False, default_flow_style=None, width=100))
        paths.append(p)
    manifest = {"seed": seed, "n": n, "generator": "netopsai.arena.classes",
                "scenarios": [entry for _, entry in made]}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return paths


def replace_section(path: Path, name: str, body: str) -> None:
    """Replace (or append) the `<!-- name:begin -->` .. `<!-- name:end -->` part of the file,
    leaving everything else of it as it is (others write their own sections)."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = path.read_text() if path.exists() else ""
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)


def _rev() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=70)  # 10 of each of the 7 classes
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", type=Path, default=Path("bench/scenarios-answers"))
    ap.add_argument("--results", type=Path, default=Path("bench/arena/results"))
    ap.add_argument("--out", type=Path, default=Path("bench/RESULTS.md"))
    a = ap.parse_args(argv)
    write_set(a.dir, a.n, a.seed)
    results = arena.run(arena.load_dir(a.dir), arena.Options(arena.BASELINES),
                        categories=arena.manifest(a.dir))
    board = leaderboard(results)
    a.results.mkdir(parents=True, exist_ok=True)
    (a.results / "answers.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
    (a.results / "answers.md").write_text(board)
    body = (f"## NetOpsArena, issue 25 classes — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n\n"
            f"`python -m netopsai.arena.answers` at {_rev()} (plus uncommitted work of the moment, "
            f"if any): {a.dir} ({a.n} scenarios, seed {a.seed}, netopsai/arena/classes.py) — "
            "a dead neighbour under the asked device (shared-cause-device), a dead rail leaf "
            "under a job (shared-cause-job), DCI alarm questions over a down backbone link or "
            "DCI circuit (category), the web app's suggested questions each on a lab "
            "faulted for it (suggested), a fault that came and went asked about its window "
            "(past-window: a device's link down for minutes hours ago, a router on a flow's "
            "path that rebooted, a job's rail link asked 'at' its time), an ACL or null route "
            "only the way back crosses asked in one-way words (return-path), and a fault on a "
            "flow asked in a hurry (hurried: typos, ip:port, w/, pls, cant, names in capitals; "
            "classes_window.py). A look-up (no diagnosis) scores its expected label "
            "when it names an expected device and cites a row showing it faulty, else `none`. "
            "Only the full pipeline answers device, job and look-up questions; the other "
            "baselines are shown for completeness. Our generator and our lab: these scores show "
            "no regression, not that the copilot generalises.\n\n"
            + board.replace("### ", "#### ", 1))
    replace_section(a.out, SECTION, body)
    print(board)


if __name__ == "__main__":
    main()
