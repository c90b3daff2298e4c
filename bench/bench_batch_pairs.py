"""A million pairs (issue 28 item 3): a big batch on the medium lab with faults, failing pairs
diagnosed by the driver (as before) or by the workers (this checkout), local worker processes
and Ray, side by side in one run; and what is left running in the command's process group when
it has ended.

    .venv/bin/python -m bench.bench_batch_pairs [--pairs 100000] [--no-ray] [--out bench/RESULTS.md]

Each run is the real `netopsai batch` in a fresh process, in a session of its own (so its
process group is its own): wall time from start to exit, the CPU of the command and of its
children, and, half a second after it exits, every process still in its process group. "Driver
diagnoses" is this same tree with `runner.remote_diagnosis` answering no (a sitecustomize on
PYTHONPATH), so the two differ in where failing pairs are diagnosed and nothing else (an older
commit would also differ in whatever the diagnosis itself learnt since). Every CSV must equal
the first one byte for byte. Writes the `<!-- batch-pairs:begin -->` section."""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
from bench.bench_batch import _child, make_pairs  # noqa: E402
from bench.bench_foundation import _machine, write_section  # noqa: E402

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def left_in_group(pgid: int) -> list[str]:
    """The processes of a process group, by name and command."""
    out = []
    for p in psutil.process_iter(["pid", "name", "cmdline"]):
        try:
            if os.getpgid(p.pid) == pgid:
                out.append(f"{p.info['name']}: {' '.join(p.info['cmdline'] or [])[:80]}")
        except (ProcessLookupError, psutil.Error):
            continue
    return out


DRIVER_ONLY = """import netopsai.copilot.batch.runner as runner
runner.remote_diagnosis = lambda backends, url: False  # the driver diagnoses, as before
"""


def driver_only() -> Path:
    """A folder whose sitecustomize keeps the diagnosis on the driver."""
    folder = Path(tempfile.mkdtemp(prefix="bench-pairs-driver-"))
    (folder / "sitecustomize.py").write_text(DRIVER_ONLY)
    return folder


def run(tree: str, home: Path, file: Path, out: Path, args: list[str], workers: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NETOPSAI_PROBE_SOURCE")}
    env.update(RAY_ENV, NETOPSAI_HOME=str(home), PYTHONPATH=tree, NETOPSAI_RAY_WORKERS=str(workers))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "netopsai.cli", "batch", str(file), "-o", str(out),
                             *args], env=env, cwd=str(ROOT), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    _, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"batch {args} failed:\n{err[-2000:]}")
    time.sleep(0.5)
    left = left_in_group(proc.pid)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "left": left, "load": (load0, os.getloadavg()[0])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="netopsai-bench-pairs-"))
    try:
        _child("init", home)
        file = home / "pairs.csv"
        file.write_text("src,dst\n" + "".join(f"{s},{d}\n" for s, d in make_pairs(home / "netopsai.db",
                                                                                  a.pairs)))
        trees = {"driver diagnoses (as before)": f"{driver_only()}:{ROOT}",
                 "workers diagnose (this checkout)": str(ROOT)}
        engines = {"local processes": []} if a.no_ray else {"local processes": [],
                                                             "Ray (local cluster)": ["--engine", "ray"]}
        res: dict[str, dict[str, Any]] = {}
        reference: bytes | None = None
        for engine, args in engines.items():
            for name, tree in trees.items():
                out = home / f"out-{len(res)}.csv"
                r = run(tree, home, file, out, args, a.workers)
                reference = reference or out.read_bytes()
                r["same"] = out.read_bytes() == reference
                res[f"{engine}, {name}"] = r
                print(f"{engine}, {name}: {r}", file=sys.stderr, flush=True)
        body = render(res, a)
        print(body)
        write_section(a.out, "batch-pairs", body)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def model(pairs: int = 1_000_000, workers: tuple[int, ...] = (2, 10, 100)) -> list[str]:
    """bench/sim_ray_fleet.py's batch model with this machine's per-item costs, the diagnosis
    on the driver (as before) and in the actors (the driver only merges rows)."""
    import random
    from dataclasses import replace

    from bench.sim_ray_fleet import Costs, sim_batch

    before = Costs()
    after = replace(before, trace_cpu=before.trace_cpu + before.failing * before.diagnosis_cpu,
                    diagnosis_cpu=0.0)
    lines = ["", f"Modelled with bench/sim_ray_fleet.py's batch model and its per-item costs from "
             f"bench_ray.py (trace {before.trace_cpu * 1e3:.3f} ms per pair, diagnosis "
             f"{before.diagnosis_cpu * 1e3:.1f} ms per failing pair, {before.failing:.1%} failing, "
             f"{before.row_cpu * 1e6:.0f} µs per row on the driver, actors start in "
             f"{before.actor_start:.1f} s), {pairs:,} pairs:", "",
             "| workers | driver diagnoses: round (driver busy) | actors diagnose: round (driver busy) |",
             "| ---: | ---: | ---: |"]
    for w in workers:
        b = sim_batch(before, w, pairs, random.Random(1))
        x = sim_batch(after, w, pairs, random.Random(1))
        lines.append(f"| {w} | {b['round_s']:.0f} s ({b['driver_busy_s']:.0f} s) | "
                     f"{x['round_s']:.0f} s ({x['driver_busy_s']:.0f} s) |")
    return lines


def render(res: dict[str, dict[str, Any]], a: argparse.Namespace) -> str:
    m = _machine()
    lines = ["## A million pairs (issue 28 item 3): workers diagnose, the driver merges", "",
             f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; this checkout {m['rev']}; "
             f"`.venv/bin/python -m bench.bench_batch_pairs --pairs {a.pairs}`",
             f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; shared "
             "with other engineers' runs (1-minute load before→after each run).",
             f"- {a.pairs:,} pairs on bench_batch's medium lab with its faults, {a.workers} workers; "
             "one run each (a big batch is minutes of work: noise is smaller than the differences). "
             "CPU = the command and its children; left = processes still in the command's process "
             "group 0.5 s after it exited.", "",
             "| run | wall | CPU | CSV equal | load | left in its process group |",
             "| --- | ---: | ---: | --- | --- | --- |"]
    for name, r in res.items():
        left = "; ".join(r["left"]) or "none"
        lines.append(f"| {name} | {r['wall']:.1f} s | {r['cpu']:.1f} s | {'yes' if r['same'] else 'NO'} | "
                     f"{r['load'][0]:.1f}→{r['load'][1]:.1f} | {left} |")
    return "\n".join(lines + model() + [""])


if __name__ == "__main__":
    main()
