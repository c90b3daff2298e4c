"""Batch benchmark (issue 4 §5): `netopsai batch` over 10,000 pairs on the medium lab, wall time
and peak memory; target <= 10 s and <= 1 GB.

    .venv/bin/python -m bench.bench_batch [--pairs 10000] [--runs 3] [--out bench/RESULTS.md]

One medium lab (seed 7, clock 2025-11-04T20:00Z) is built in a temporary NETOPSAI_HOME, with
faults injected so that a few hundred pairs fail and go through the diagnosis: an ACL on one
spine of dc1-pod1 towards dc2 (flows that hash through it stop, the others are degraded), a
dead dc2 ToR, and one dead host link. The pairs are unique host pairs drawn with a fixed seed, a
third each within a PoD, across PoDs of a site and across sites (as bench_foundation's traces).
Each run is the real command in a fresh child interpreter (`netopsai.launch.app.main(["batch", ...])`):
wall time as the user sees it (interpreter start to exit) and as spent inside the command; peak
RSS of the command's process and of its largest worker (ru_maxrss), the judged memory being
their sum over all processes. Two modes: the command as shipped (worker processes on a
multi-core machine) and `--concurrency 1` (one process); then, as a reference, the shipped mode on
the healthy lab (the lab's traces are dearer while any ACL or null route exists). When the shipped
mode misses its time target, one more `--concurrency 1` run under cProfile says where the time goes.
The `<!-- batch:medium:begin -->` section of the results file is replaced on re-run.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import child_cmd, child_env
from bench.bench_foundation import _lab_counts, _machine, write_section

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
SCALE, LAB_SEED, RNG_SEED = "medium", 7, 20251104
TARGET_S, TARGET_MB = 10.0, 1024.0
HERE = Path(__file__).resolve().parent
SCENARIO = {"id": "bench-batch", "lab": {"spec": "default", "scale": SCALE, "seed": LAB_SEED},
            "now": "2025-11-04T20:00:00Z", "faults": [
                {"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-spine-01"},
                 "params": {"dst": "10.2.0.0/16"}},
                {"kind": "device_down", "at": "-15m", "target": {"device": "dc2-leaf-010"}},
                {"kind": "link_down", "at": "-10m", "target": {"link": "dc1-leaf-100:Ethernet1"}}]}
# what the profile buckets add up (cumulative time of these functions)
BUCKETS = [("traceroute tool, end to end", "traceroute.py", "traceroute"),
           ("  lab_info (LabPaths reads it per trace; the batch, once)", "manage.py", "lab_info"),
           ("  simulated trace (lab.trace.trace)", "trace.py", "trace"),
           ("    of which Router.next_hops (not memoised)", "forwarding.py", "next_hops"),
           ("    of which Router.count_paths", "forwarding.py", "count_paths"),
           ("    of which Router.ecmp_devices", "forwarding.py", "ecmp_devices"),
           ("diagnose (failing pairs: the diagnosis engine)", "engine.py", "diagnose"),
           ("writing rows (Sink.write)", "output.py", "write")]


# ---------------------------------------------------------------- children

def _rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # KiB on Linux


def child_init() -> dict[str, Any]:
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import init_lab
    from netopsai.lab.scenario import Scenario
    from netopsai.store.engine import get_engine

    t0 = time.perf_counter()
    init_lab(get_engine(), "default", SCALE, LAB_SEED, CLOCK)
    t1 = time.perf_counter()
    done = inject(get_engine(), Scenario.model_validate(SCENARIO))
    return {"init_s": t1 - t0, "inject_s": time.perf_counter() - t1, "faults": done.faults}


def child_reset() -> dict[str, Any]:
    from netopsai.lab.manage import reset_lab
    from netopsai.store.engine import get_engine

    reset_lab(get_engine())
    return {}


def child_batch(arg: dict[str, Any]) -> dict[str, Any]:
    t0 = time.perf_counter()
    from netopsai.launch.app import main
    t1 = time.perf_counter()
    argv = ["batch", arg["file"], "-o", arg["out"], "--concurrency", str(arg["concurrency"])]
    if arg.get("profile"):
        prof = cProfile.Profile()
        rc = prof.runcall(main, argv)
        prof.dump_stats(arg["profile"])
    else:
        rc = main(argv)
    t2 = time.perf_counter()
    cpus = len(os.sched_getaffinity(0))
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"rc": rc, "import_s": t1 - t0, "run_s": t2 - t1, "cpus": cpus,
            "cpu_s": me.ru_utime + me.ru_stime, "worker_cpu_s": kids.ru_utime + kids.ru_stime,
            "rss_self_mb": _rss_mb(resource.RUSAGE_SELF),
            "rss_worker_mb": _rss_mb(resource.RUSAGE_CHILDREN)}


def _child(mode: str, home: Path, arg: dict[str, Any] | None = None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NETOPSAI_PROBE_SOURCE")}
    env["NETOPSAI_HOME"] = str(home)
    cmd = child_cmd("bench.bench_batch", "--child", mode, "--arg", json.dumps(arg or {}))
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=child_env(env), capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{mode} child failed:\n{out.stderr[-3000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_s"] = time.perf_counter() - t0
    res["stderr"] = out.stderr
    return res


# ---------------------------------------------------------------- the pairs

def make_pairs(db: Path, n: int) -> list[tuple[str, str]]:
    """Unique host pairs: a third each within a PoD, across PoDs of a site, across sites."""
    with sqlite3.connect(db) as c:
        hosts = sorted(c.execute("select ip, pod, site from hostaddress"))
    by_pod: dict[str, list[tuple[str, str, str]]] = {}
    for h in hosts:
        by_pod.setdefault(h[1], []).append(h)
    rng, pairs = random.Random(RNG_SEED), set()
    while len(pairs) < n:
        a, kind = rng.choice(hosts), len(pairs) % 3
        if kind == 0:
            pool = [h for h in by_pod[a[1]] if h != a]
        else:
            pool = [h for p, hs in by_pod.items() if p != a[1] and (hs[0][2] == a[2]) == (kind == 1)
                    for h in hs]
        pairs.add((a[0], rng.choice(pool)[0]))
    ordered = sorted(pairs)
    rng.shuffle(ordered)
    return ordered


# ---------------------------------------------------------------- runs

def run_mode(home: Path, file: Path, concurrency: int, runs: int) -> list[dict[str, Any]]:
    from netopsai.copilot.batch.output import read_done, summarize

    out = []
    for i in range(runs):
        dest = home / f"out-{concurrency}-{i}.csv"
        r = _child("batch", home, {"file": str(file), "out": str(dest), "concurrency": concurrency})
        results = read_done(dest, as_json=False)
        r["summary"] = summarize(results)
        r["rows"] = len(results)
        print(f"[batch] concurrency {concurrency} run {i + 1}/{runs}: {r['process_s']:.2f} s, "
              f"CPU {r['cpu_s']:.1f} s + workers {r['worker_cpu_s']:.1f} s, "
              f"peak {r['rss_self_mb']:.0f} MB + worker {r['rss_worker_mb']:.0f} MB", file=sys.stderr)
        out.append(r)
    return out


def profile(home: Path, file: Path) -> dict[str, Any]:
    path = home / "batch.prof"
    r = _child("batch", home, {"file": str(file), "out": str(home / "out-prof.csv"),
                               "concurrency": 1, "profile": str(path)})
    st = pstats.Stats(str(path))
    raw: dict[Any, Any] = st.stats  # type: ignore[attr-defined]
    total = max(ct for (_, _, _), (_, _, _, ct, _) in raw.items())
    buckets = []
    for label, fname, func in BUCKETS:
        ct = max((v[3] for (f, _, fn), v in raw.items() if fn == func and f.endswith("/" + fname)),
                 default=0.0)
        buckets.append((label, ct))
    top = sorted(raw.items(), key=lambda kv: -kv[1][2])[:10]
    return {"run_s": r["run_s"], "total": total, "buckets": buckets,
            "top": [(f"{Path(f).parent.name}/{Path(f).name}:{ln}({fn})", v[1], v[2], v[3])
                    for (f, ln, fn), v in top]}


def bench(a: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="netopsai-bench-batch-"))
    load0 = os.getloadavg()[0]
    try:
        init = _child("init", home)
        print(f"[batch] lab ready in {init['init_s']:.1f} s (+ inject {init['inject_s']:.1f} s)",
              file=sys.stderr)
        pairs = make_pairs(home / "netopsai.db", a.pairs)
        file = home / "pairs.csv"
        file.write_text("src,dst\n" + "".join(f"{s},{d}\n" for s, d in pairs))
        res: dict[str, Any] = {"init": init, "counts": _lab_counts(home / "netopsai.db"),
                               "pairs": len(pairs)}
        res["shipped"] = run_mode(home, file, 8, a.runs)
        res["single"] = run_mode(home, file, 1, a.single_runs) if a.single_runs else []
        wall = statistics.median(r["process_s"] for r in res["shipped"])
        if a.profile or (wall > TARGET_S and not a.no_profile):
            res["profile"] = profile(home, file)
        if a.healthy_runs:  # last: it resets the lab to healthy
            _child("reset", home)
            res["healthy"] = run_mode(home, file, 8, a.healthy_runs)
        res["load"] = (load0, os.getloadavg()[0])
        return res
    finally:
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------- report

def _workers(r: dict[str, Any], concurrency: int, pairs: int) -> int:
    from netopsai.copilot.batch.runner import PROCESS_MIN

    n = min(concurrency, r["cpus"])
    return n if pairs >= PROCESS_MIN and n >= 2 else 0


def _row(name: str, runs: list[dict[str, Any]], concurrency: int, pairs: int) -> str:
    walls = [r["process_s"] for r in runs]
    workers = _workers(runs[0], concurrency, pairs)
    rss = max(r["rss_self_mb"] for r in runs)
    wrss = max(r["rss_worker_mb"] for r in runs) if workers else 0.0
    total = rss + workers * wrss
    t_ok, m_ok = statistics.median(walls) <= TARGET_S, total <= TARGET_MB
    met = "yes" if t_ok and m_ok else "**NO**" + ("" if t_ok else " (time)") + ("" if m_ok else " (memory)")
    how = f"{workers} worker processes" if workers else "one process"
    cpu = statistics.median(r["cpu_s"] + r["worker_cpu_s"] for r in runs)
    return (f"| {name} ({how}) | {len(runs)} | {statistics.median(walls):.2f} s | {max(walls):.2f} s "
            f"| {statistics.median(r['run_s'] for r in runs):.2f} s | {cpu:.1f} s | {rss:.0f} MB "
            f"| {wrss:.0f} MB | {total:.0f} MB | ≤ 10 s, ≤ 1 GB | {met} |")


def render(res: dict[str, Any], machine: dict[str, str]) -> str:
    c, t = res["counts"], res["counts"]["tables"]
    s = res["shipped"][0]["summary"]
    groups = "; ".join(g["text"] for g in s["groups"][:4])
    out = [f"## Batch — {SCALE}", "",
           f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {machine['rev']}",
           f"- Machine: {machine['cpu']}, {machine['cores']} logical cores, {machine['ram']} RAM; "
           f"Python {machine['python']}, SQLite {machine['sqlite']}, {machine['os']}; 1-min load "
           f"average {res['load'][0]:.2f} before, {res['load'][1]:.2f} after (other work skews figures)",
           f"- Lab: spec `default`, scale `{SCALE}`, seed {LAB_SEED}, clock {CLOCK:%Y-%m-%dT%H:%MZ}; "
           f"{t['hostaddress']} host addresses, {t['link']} links; faults injected: "
           f"{', '.join(res['init']['faults'])} (ACL on dc1-spine-01 to 10.2.0.0/16, dc2-leaf-010 "
           f"down, host link dc1-leaf-100:Ethernet1 down); database {c['db_mb']:.0f} MB",
           f"- Input: {res['pairs']} unique host pairs, CSV with a header (a third each within a PoD, "
           f"across PoDs, across sites; seed {RNG_SEED}); output CSV to a file",
           f"- Result (each run): {res['shipped'][0]['rows']} rows; {s['reachable']} reachable "
           f"({s['degraded']} degraded), {s['failing']} unreachable, {s['errors']} errors; "
           f"groups: {groups}",
           "- Wall = the child interpreter from start to exit (what `time netopsai batch` shows); "
           "in-command = inside `main()`, after imports. Memory = ru_maxrss of the command's process "
           "and of its largest worker; the total is the command plus every worker at that peak "
           "(an upper bound).", "",
           "| mode | runs | wall p50 | wall max | in-command p50 | CPU p50 (all processes) | peak RSS, "
           "command | peak RSS, largest worker | peak total | target | met |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
           _row("as shipped, --concurrency 8", res["shipped"], 8, res["pairs"])]
    if res["single"]:
        out.append(_row("--concurrency 1", res["single"], 1, res["pairs"]))
    if res.get("healthy"):
        out.append(_row("as shipped, healthy lab (no faults: a reference)", res["healthy"], 8,
                        res["pairs"]))
    if "profile" in res:
        out += _profile_lines(res["profile"])
    return "\n".join(out) + "\n"


def _profile_lines(p: dict[str, Any]) -> list[str]:
    calls = next((n for name, n, _, _ in p["top"] if name.endswith("(next_hops)")), None)
    out = ["", f"Where the time goes (`--concurrency 1` under cProfile, {p['run_s']:.1f} s with the "
           "profiler's overhead; cumulative seconds; the \"of which\" lines overlap, as count_paths "
           "and ecmp_devices call next_hops). Nearly all of it is the lab's forwarding model "
           "(netopsai/lab/forwarding.py, not the batch's to change): Router.next_hops rebuilds its "
           "list on every call" + (f" ({calls} calls for the batch)" if calls else "") + ", "
           "ecmp_devices walks the whole ECMP fan-out per trace, and count_paths' memo is not shared "
           "between traces while any ACL or null route exists in the lab.", "",
           "| part | seconds | share |", "| --- | ---: | ---: |"]
    out += [f"| {label} | {ct:.2f} | {100 * ct / p['total']:.0f}% |" for label, ct in p["buckets"]]
    out += ["", "Top functions by own time:", "", "| function | calls | own s | cumulative s |",
            "| --- | ---: | ---: | ---: |"]
    out += [f"| `{name}` | {n} | {tt:.2f} | {ct:.2f} |" for name, n, tt, ct in p["top"]]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3, help="runs of the command as shipped")
    ap.add_argument("--single-runs", type=int, default=1, help="runs with --concurrency 1 (0: none)")
    ap.add_argument("--healthy-runs", type=int, default=1, help="runs on the healthy lab (0: none)")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--profile", action="store_true", help="profile even when the target is met")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--no-write", action="store_true", help="print, do not touch the results file")
    ap.add_argument("--json", type=Path, help="also dump the raw figures here")
    ap.add_argument("--note", default="", help="a line added under the table (e.g. figures before a change)")
    ap.add_argument("--child", choices=["init", "reset", "batch"], help=argparse.SUPPRESS)
    ap.add_argument("--arg", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        res = {"init": child_init, "reset": child_reset}.get(a.child, lambda: child_batch(
            json.loads(a.arg)))()
        print(json.dumps(res))
        return
    machine = _machine()
    res = bench(a)
    body = render(res, machine) + (f"\n{a.note}\n" if a.note else "")
    if not a.no_write:
        write_section(a.out, f"batch:{SCALE}", body)
    print(body)
    if a.json:
        a.json.write_text(json.dumps({"machine": machine, "results": res}, indent=1, default=str))


if __name__ == "__main__":
    main()
