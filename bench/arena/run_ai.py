"""NetOpsArena on the GPU fabric (issue 15): the public AI set (bench/scenarios-ai, seed 1, small
AI lab) and two held-out sets generated on the fly (another seed on the small lab; the medium AI
lab of 2,048 GPUs with another lab seed), offline, every baseline; the leaderboards go to
bench/RESULTS.md (section `arena-ai`).

    .venv/bin/python -m bench.arena.run_ai [--n 40]
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from bench.bench_foundation import _machine, write_section
from netopsai.arena import run as arena
from netopsai.arena.generate_ai import write_ai
from netopsai.arena.report import leaderboard

HERE = Path(__file__).resolve().parent



def _score(folder: Path) -> str:
    results = arena.run(arena.load_dir(folder), arena.Options(arena.BASELINES),
                        categories=arena.manifest(folder))
    return leaderboard(results)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--out", type=Path, default=HERE.parent / "RESULTS.md")
    a = ap.parse_args()
    boards = [("Public AI set (bench/scenarios-ai)", _score(HERE.parent / "scenarios-ai"))]
    with tempfile.TemporaryDirectory() as tmp:
        for title, seed, scale, lab_seed in (("Held-out, small AI lab, seed 2", 2, "small", 7),
                                             ("Held-out, medium AI lab (2,048 GPUs), seed 3, lab seed 11",
                                              3, "medium", 11)):
            folder = Path(tmp) / f"{scale}-{seed}"
            write_ai(folder, a.n, seed, scale, lab_seed)
            boards.append((title, _score(folder)))
    mach = _machine()
    body = (f"## NetOpsArena on the GPU fabric (issue 15) — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n\n"
            f"Machine: {mach['cpu']}, {mach['cores']} cores; rev {mach['rev']}. "
            "`python -m bench.arena.run_ai`. Job questions with nic_flap, pfc_storm, ecmp_collision, "
            "rail_link_down, gpu_host_down and crc_errors on the job's NICs, hosts, rail uplinks "
            "or the leaf ports facing its NICs; healthy "
            "jobs; the same faults on hosts the job does not use (must be `none`). The generator "
            "is ours, so these scores show the pipeline works end to end, not that it generalises.\n\n"
            + "".join(board.replace("### ", f"#### {title} — ", 1) + "\n" for title, board in boards))
    print(body)
    write_section(a.out, "arena-ai", body)


if __name__ == "__main__":
    main()
