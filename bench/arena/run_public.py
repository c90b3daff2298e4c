"""NetOpsArena on the public set, a held-out set and with the scripted LLM; the leaderboard goes
to bench/RESULTS.md (section `arena`) and the raw results beside this script.

    .venv/bin/python -m bench.arena.run_public [--heldout-n 150] [--heldout-seed 2] [--skip-llm]
        [--reuse public,heldout,heldout-medium]

1. the public set (bench/scenarios, generated with seed 1), offline, every baseline;
2. held-out sets generated on the fly (the engine never saw them), every baseline: one with
   another seed on the same small lab, one on a medium lab with another lab seed;
3. the public set again with the scripted chat model (netopsai.arena.scripted) through the full
   pipeline only, to count the prompt tokens a diagnosis sends (target <= 6k).
Each run uses fresh labs restored from a healthy snapshot per scenario and an incident memory
that starts empty (online: each scenario's true cause is confirmed after it is scored).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_foundation import write_section
from netopsai.arena import run as arena
from netopsai.arena.generate import LabKey
from netopsai.arena.generate import write as generate
from netopsai.arena.report import leaderboard

HERE = Path(__file__).resolve().parent
MEDIUM = {"seed": 3, "lab_seed": 11}  # another lab (scale and seed) the engine has not seen
ROOT = HERE.parents[1]
# runs whose saved results (results/<label>.json) are read back instead of run again: a run cut
# short (the scripted one, last) need not repeat the others
REUSE: set[str] = set()



def _progress(label: str) -> arena.Progress:
    def show(i: int, n: int, sid: str) -> None:
        if i == n or i % 25 == 0:
            print(f"{label} [{i}/{n}] {sid}", file=sys.stderr, flush=True)
    return show


def _run(folder: Path, label: str, opts: arena.Options, **meta: Any) -> dict[str, Any]:
    saved = HERE / "results" / f"{label}.json"
    if label in REUSE and saved.is_file():  # its own date, machine and load are in its meta
        return dict(json.loads(saved.read_text()))
    results = arena.run(arena.load_dir(folder), opts, _progress(label), arena.manifest(folder))
    results["meta"].update(meta)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / f"{label}.json").write_text(json.dumps(results, indent=1, default=str) + "\n")
    (HERE / "results" / f"{label}.md").write_text(leaderboard(results))
    return results


def _tokens(res: dict[str, Any]) -> str:
    s = res["baselines"]["full"]["summary"]
    return (f"Scripted LLM (full pipeline, {s['n']} public scenarios): prompt tokens per diagnosis "
            f"p50 {s['prompt_tokens_p50']:.0f}, p95 {s['prompt_tokens_p95']:.0f}, max "
            f"{s['prompt_tokens_max']:.0f} (target <= 6000; the copilot's own estimate, ~4 "
            f"characters a token, as the scripted model reports no usage); LLM calls per diagnosis "
            f"mean {s['llm_calls_mean']:.1f}; micro-F1 {s['micro_f1']:.3f}, citations valid "
            f"{s['citations']:.3f}, wall p50 {s['wall_ms_p50']:.0f} ms.\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heldout-n", type=int, default=150)
    ap.add_argument("--heldout-seed", type=int, default=2)
    ap.add_argument("--medium-n", type=int, default=50, help="held-out scenarios on the medium lab")
    ap.add_argument("--skip-llm", action="store_true")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    ap.add_argument("--reuse", default="", help="labels whose saved results are read, not run")
    a = ap.parse_args()
    REUSE.update(x for x in a.reuse.split(",") if x)
    t0 = time.perf_counter()
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT, check=False).stdout.strip() or "unknown"
    public = _run(ROOT / "bench" / "scenarios", "public", arena.Options())
    with tempfile.TemporaryDirectory(prefix="netopsai-heldout-") as tmp:
        generate(Path(tmp), a.heldout_n, a.heldout_seed)
        held = _run(Path(tmp), "heldout", arena.Options(),
                    held_out={"n": a.heldout_n, "seed": a.heldout_seed})
    medium = None
    if a.medium_n:
        with tempfile.TemporaryDirectory(prefix="netopsai-heldout-") as tmp:
            generate(Path(tmp), a.medium_n, MEDIUM["seed"], LabKey(scale="medium", seed=MEDIUM["lab_seed"]))
            medium = _run(Path(tmp), "heldout-medium", arena.Options(),
                          held_out={"n": a.medium_n, "seed": MEDIUM["seed"], "scale": "medium",
                                    "lab_seed": MEDIUM["lab_seed"]})
    scripted = None if a.skip_llm else _run(ROOT / "bench" / "scenarios", "scripted",
                                            arena.Options(("full",), llm="scripted"))
    body = ("## NetOpsArena (issue 6)\n\n`python -m bench.arena.run_public`; raw results in "
            f"bench/arena/results/. Code at commit {head} (plus uncommitted work of the "
            "moment, if any). Public set: bench/scenarios (150, seed 1). Held out: "
            f"{a.heldout_n} generated with seed {a.heldout_seed} (small lab, lab seed 7) and "
            f"{a.medium_n} with seed {MEDIUM['seed']} on the medium lab (lab seed "
            f"{MEDIUM['lab_seed']}).\n\n"
            + leaderboard(public).replace("### ", "#### Public set — ", 1) + "\n"
            + leaderboard(held).replace("### ", "#### Held-out — ", 1) + "\n"
            + (leaderboard(medium).replace("### ", "#### Held-out, medium lab — ", 1) + "\n"
               if medium else "")
            + (_tokens(scripted) + "\n" if scripted else "")
            + f"This invocation: {time.perf_counter() - t0:.0f} s"
            + (f" (read back, not re-run: {', '.join(sorted(REUSE))}; each board gives its own "
               "run's date and load)" if REUSE else "") + ".\n")
    write_section(a.out, "arena", body)
    print(body)


if __name__ == "__main__":
    main()
