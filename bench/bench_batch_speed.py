"""`netopsai batch` of 10,000 pairs (issue 28 item 4, goal <= 3 s): two revisions side by side in
one run, and where each one's time goes.

    .venv/bin/python -m bench.bench_batch_speed --vs REV [--rev HEAD] [--runs 3] [--no-profile] [--source]

The side-by-side runs are bench_everyday's (each revision exported as it installs, its own
medium lab with bench_batch's three faults, the same pairs, fresh processes alternating, wall
and CPU of the process and its workers, the CSV compared byte for byte with the base's, what
is left in the process group). Then each revision's command runs once more under cProfile, in
the driver and in every forked worker, and the profile is cut into the parts of a batch:
process start and imports, reading the input, starting the workers, the traces, the diagnoses
of the failing pairs, the route model's load, writing rows. cProfile's overhead falls mostly on
the many small calls of the traces, so the parts are shares of a profiled run, the seconds of
the plain runs above. Writes `<!-- batch-speed:begin -->`."""

from __future__ import annotations

import argparse
import glob
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.bench_everyday import _env, batches, compiled
from bench.bench_foundation import _machine, write_section
from bench.house_same import export

HERE = Path(__file__).resolve().parent
# (part, file, function): cumulative seconds of the function, summed over the processes
WORKER_PARTS = [("traces of healthy pairs (healthy.py, new)", "healthy.py", "healthy_result"),
                ("traces through the traceroute tool", "pairs.py", "trace"),
                ("the lab's route model, full traces (lab/trace.py)", "trace.py", "trace"),
                ("the lab's lean walk of healthy pairs (lab/trace.py plainly_delivered, new)",
                 "trace.py", "plainly_delivered"),
                ("  of both: counting ECMP paths (Router.count_paths)", "forwarding.py", "count_paths"),
                ("diagnoses of failing pairs", "pairs.py", "diagnosed_result"),
                ("  of which tool calls the diagnosis makes", "pairs.py", "run"),
                ("  of which address owners (FrozenInventory.ip_owner)", "frozen.py", "ip_owner"),
                ("loading the lab's routes (router_for)", "forwarding.py", "router_for")]
DRIVER_PARTS = [("reading the input (parse_input)", "parse.py", "parse_input"),
                ("the batch's run, start to last row (BatchChecker.run)", "runner.py", "run"),
                ("  of which waiting for the workers", "threading.py", "wait"),
                ("  of which writing rows (Sink.write)", "output.py", "write")]

PROFILE_CHILD = """
import cProfile, json, os, sys, time
t0 = time.perf_counter()
try:
    from netopsai.launch.app import main
except ImportError:
    from netopsai.cli.app import main
try:  # the batch's imports as batch_cmd makes them, where it makes them without collections
    from netopsai.launch.thin import long_lived_setup
except ImportError:
    from contextlib import nullcontext as long_lived_setup
with long_lived_setup():
    import netopsai.batch
try:  # the worker side: workers.py since session 21, runner.py before
    import netopsai.copilot.batch.workers as side
    INIT = "worker_init"
except ImportError:
    import netopsai.copilot.batch.runner as side
    INIT = "_worker_init"
imported = time.perf_counter() - t0
out = sys.argv[1]
first = getattr(side, INIT)
def init(*args):
    from multiprocessing import util
    prof = cProfile.Profile()
    prof.enable()
    first(*args)
    def dump():
        prof.disable()
        prof.dump_stats(f"{out}/worker-{os.getpid()}.prof")
    util.Finalize(None, dump, exitpriority=100)
setattr(side, INIT, init)
prof = cProfile.Profile()
t1 = time.perf_counter()
prof.runcall(main, ["batch", sys.argv[2], "-o", f"{out}/rows.csv"])
prof.dump_stats(f"{out}/driver.prof")
print(json.dumps({"imports_s": imported, "main_s": time.perf_counter() - t1}))
"""


def _cum(stats: pstats.Stats, fname: str, func: str) -> float:
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    return max((v[3] for (f, _, fn), v in raw.items() if fn == func and f.endswith("/" + fname)),
               default=0.0)


def profile(tree: Path, home: Path) -> dict[str, Any]:
    """One profiled batch in `tree`: the driver's parts and the workers' (summed)."""
    out = Path(tempfile.mkdtemp(prefix="batch-speed-prof-"))
    try:
        run = subprocess.run([sys.executable, "-P", "-c", PROFILE_CHILD, str(out), str(home / "pairs.csv")],
                             env=_env(tree, home), capture_output=True, text=True)
        if run.returncode:
            raise SystemExit(f"profiled batch failed: {run.stderr[-1500:]}")
        head = json.loads(run.stdout.strip().splitlines()[-1])
        driver = pstats.Stats(str(out / "driver.prof"))
        workers = [pstats.Stats(p) for p in sorted(glob.glob(str(out / "worker-*.prof")))]
        w_total = sum(max(_cum(w, "runner.py", "_worker_chunk"), _cum(w, "workers.py", "worker_chunk"))
                      for w in workers)
        parts = {"driver": [(label, _cum(driver, f, fn)) for label, f, fn in DRIVER_PARTS],
                 "workers": [(label, sum(_cum(w, f, fn) for w in workers)) for label, f, fn in WORKER_PARTS]}
        return {**head, "parts": parts, "workers_n": len(workers), "workers_s": w_total}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _rows(batch: dict[str, list[dict[str, Any]]], revs: dict[str, str]) -> list[str]:
    lines = ["| revision | runs | wall p50 (min–max) | CPU p50, all processes | CSV equal to base's "
             "| left in its process group | 1-min load during the runs |",
             "| --- | ---: | ---: | ---: | --- | --- | --- |"]
    for rev, rs in batch.items():
        walls = [r["wall"] for r in rs]
        loads = ", ".join(f"{r['load'][0]:.1f}" for r in rs)
        lines.append(f"| {rev} ({revs[rev]}) | {len(rs)} | {statistics.median(walls):.2f} s "
                     f"({min(walls):.2f}–{max(walls):.2f}) | {statistics.median(r['cpu'] for r in rs):.2f} s "
                     f"| {'yes' if all(r['same'] for r in rs) else 'NO'} | "
                     f"{'; '.join(sorted({x for r in rs for x in r['left']})) or 'none'} | {loads} |")
    return lines


def _profile_lines(profs: dict[str, dict[str, Any]], revs: dict[str, str]) -> list[str]:
    names = list(profs)
    lines = ["", "Where the time goes: one batch per revision under cProfile (driver and each worker "
             "profiled; seconds with the profiler's overhead, the workers' summed over "
             f"{', '.join(str(profs[n]['workers_n']) for n in names)} workers).", "",
             "| part | " + " | ".join(f"{n} ({revs[n]})" for n in names) + " |",
             "| --- |" + " ---: |" * len(names),
             "| driver: start-up imports (before the profiler) | "
             + " | ".join(f"{profs[n]['imports_s']:.2f}" for n in names) + " |",
             "| driver: the command, profiled | "
             + " | ".join(f"{profs[n]['main_s']:.2f}" for n in names) + " |"]
    for i, (label, _) in enumerate(profs[names[0]]["parts"]["driver"]):
        lines.append(f"| driver: {label} | " + " | ".join(f"{profs[n]['parts']['driver'][i][1]:.2f}"
                                                        for n in names) + " |")
    lines.append("| workers: every chunk, start to end | "
                 + " | ".join(f"{profs[n]['workers_s']:.2f}" for n in names) + " |")
    for i, (label, _) in enumerate(profs[names[0]]["parts"]["workers"]):
        lines.append(f"| workers: {label} | " + " | ".join(f"{profs[n]['parts']['workers'][i][1]:.2f}"
                                                         for n in names) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--vs", required=True, help="the base revision")
    ap.add_argument("--rev", default="HEAD", help="the new revision")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--source", action="store_true",
                    help="run the trees from source, not byte-compiled (sessions 19-20's figures)")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true", help="print, do not touch the results file")
    a = ap.parse_args()
    t0 = time.perf_counter()
    up0 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    revs = {k: subprocess.run(["git", "rev-parse", "--short", r], capture_output=True, text=True,
                              check=True).stdout.strip() for k, r in (("base", a.vs), ("new", a.rev))}
    work = Path(tempfile.mkdtemp(prefix="bench-batch-speed-"))
    try:
        # byte-compiled as a pip install leaves them (bench_everyday.compiled, as its asks are):
        # a fresh export run with PYTHONDONTWRITEBYTECODE compiled every module of ours from
        # source in the driver and again in each worker, every run; --source keeps that
        trees = {k: export(r, work / k) for k, r in revs.items()}
        if not a.source:
            trees = {k: compiled(t) for k, t in trees.items()}
        batch = batches(trees, work, a.runs, a.pairs)
        up1 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
        profs = {} if a.no_profile else {k: profile(t, work / f"batch-{k}") for k, t in trees.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = _machine()
    lines = [f"## Batch speed (issue 28 item 4): `netopsai batch`, {a.pairs:,} pairs, medium lab, "
             "bench_batch's three faults", "",
             f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; base = {revs['base']}, new = {revs['new']} "
             f"(`.venv/bin/python -m bench.bench_batch_speed --vs {a.vs} --runs {a.runs}`, "
             f"{(time.perf_counter() - t0) / 60:.0f} min)",
             f"- Machine: {m['cpu']}, nproc {os.cpu_count()}, {m['ram']}; Python {m['python']}",
             f"- Load (`uptime`): before `{up0}`; after the timed runs `{up1}` — shared with other "
             "sessions' work: walls stretch with the load, CPU much less.",
             "- Fresh processes, the revisions alternating; wall / CPU (user + sys, workers included); "
             + ("trees run from source (--source)." if a.source
                else "both trees byte-compiled, as installed."), "",
             *_rows(batch, revs)]
    if profs:
        lines += _profile_lines(profs, revs)
    body = "\n".join(lines) + "\n"
    print(body)
    if not a.no_write:
        write_section(a.out, "batch-speed", body)


if __name__ == "__main__":
    main()
