"""Copilot benchmark: end-to-end latency per query class offline, `netopsai ask` cold start, and
prompt tokens per connectivity diagnosis with a scripted LLM, on the medium lab.

    .venv/bin/python -m bench.bench_copilot [--n 20] [--out bench/RESULTS.md] [--json FILE]

One medium lab (seed 7, clock 2025-11-04T20:00Z) is built in a temporary NETOPSAI_HOME. The
questions are drawn (fixed seed) from the lab's inventory through the metadata tool, in a child
of their own. Each query class then runs in a fresh child interpreter with one offline Copilot
and a fresh thread per question: the first question is reported as cold, the next N give
p50/p95. Diagnoses with a fault inject it (netopsai.lab.inject) before the question, outside the
timing, and ask the same question once more. The cold start runs the installed console script
as a new process; the token figures drive a Copilot through a scripted diagnosis over HTTP on
127.0.0.1 (testkit's fake_openai.py) with no usage in the replies, so the copilot's own estimate is
what it reports. A class that misses its target is profiled (cProfile) in one more child.
The section `<!-- copilot:medium:begin -->` of the results file is replaced on re-run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench import child_cmd, child_env
from bench.bench_foundation import _lab_counts, _machine, write_section
from bench.copilot_children import child_class, child_cli_split, child_tokens
from bench.copilot_config import CLASSES, CLI_QUESTION, HERE, ROOT, SCALE
from bench.copilot_profile import child_profile
from bench.copilot_questions import child_init, child_sample
from bench.copilot_report import render


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- parent
# (the children are copilot_questions, copilot_children and copilot_profile, each run in an
# interpreter of its own through --child)

def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k != "DATABASE_URL" and not k.startswith("NETOPSAI_")}
    env["NETOPSAI_HOME"] = str(home)
    return env


def _child(mode: str, home: Path, arg: Any = None) -> dict[str, Any]:
    argf = home / f"arg-{mode}.json"
    argf.write_text(json.dumps(arg))
    cmd = child_cmd("bench.bench_copilot", "--child", mode, "--arg", str(argf))
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=child_env(_env(home)), capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{mode} child failed:\n{out.stderr[-4000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_s"] = time.perf_counter() - t0
    return res


def _cli_cold(home: Path, runs: int) -> dict[str, Any]:
    """`netopsai ask ... --json` as a new process each time; one unrecorded run first."""
    exe = ROOT / ".venv" / "bin" / "netopsai"
    cmd = [str(exe), "ask", CLI_QUESTION, "--json"]
    walls, answer_ms, ok, cpus = [], [], [], []
    load = os.getloadavg()[0]
    for _ in range(runs + 1):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, env=_env(home), capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - t0)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # this run's CPU: load does not inflate it
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        try:
            r = json.loads(p.stdout)
            answer_ms.append(r["elapsed_ms"])
            ok.append(p.returncode == 0 and "dc1-host-003-1" in r["answer"])
        except (json.JSONDecodeError, KeyError):
            answer_ms.append(float("nan"))
            ok.append(False)
    imports = [_importtime(home) for _ in range(3)]
    splits = [_child("cli_split", home) for _ in range(3)]
    split = {k: statistics.median(x[k] for x in splits) for k in splits[0] if k.endswith("_ms")}
    mid = sorted(imports, key=lambda x: x["total_ms"])[1]
    return {"first_s": walls[0], "walls_s": walls[1:], "answer_ms": answer_ms[1:],
            "cpu_s": cpus[1:], "load": (load, os.getloadavg()[0]), "ok": all(ok), "imports": mid,
            "split": split,
            "import_totals_ms": [x["total_ms"] for x in imports]}


def _importtime(home: Path) -> dict[str, Any]:
    """`python -X importtime` over the console script's path (ask --json). Each third-party
    package is charged where the project first pulls it in (its cumulative time there); the
    project's own modules by their self time, and the heaviest of them by cumulative time."""
    code = (f"import sys; sys.argv = ['netopsai', 'ask', {CLI_QUESTION!r}, '--json']; "
            "from netopsai.launch.app import run; run()")
    p = subprocess.run([sys.executable, "-X", "importtime", "-c", code], env=_env(home),
                       capture_output=True, text=True, check=False)
    lines = []
    for line in p.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( +)(\S+)", line)
        if m:
            lines.append((int(m.group(1)) / 1000, int(m.group(2)) / 1000,
                          (len(m.group(3)) - 1) // 2, m.group(4)))
    stack: dict[int, str] = {}
    by_pkg: Counter[str] = Counter()
    entry: dict[str, float] = {}  # third-party modules the project imports directly
    ours: dict[str, float] = {}
    total = own = 0.0
    for self_ms, cum, depth, name in reversed(lines):  # importtime prints children first
        stack[depth] = name
        root = name.split(".")[0]
        total += cum if depth == 0 else 0.0
        if root == "netopsai":
            own += self_ms
            ours[name] = ours.get(name, 0.0) + cum
        elif all(stack[d].split(".")[0] == "netopsai" for d in range(depth)):
            by_pkg[root] += cum
            entry[name] = entry.get(name, 0.0) + cum
    top = sorted(ours.items(), key=lambda kv: -kv[1])[:8]
    return {"total_ms": total, "own_ms": own, "packages": by_pkg.most_common(8),
            "entries": sorted(entry.items(), key=lambda kv: -kv[1])[:6], "ours": top}


def run(opts: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="netopsai-bench-copilot-"))
    load0 = os.getloadavg()[0]
    try:
        init = _child("init", home)
        _log(f"lab init {init['init_s']:.2f} s")
        counts = _lab_counts(home / "netopsai.db")
        sample = _child("sample", home, opts.n)
        qs = sample["questions"]
        classes: dict[str, Any] = {}
        for name in CLASSES:
            if opts.classes and name not in opts.classes:
                continue
            classes[name] = _child("class", home, {"name": name, "questions": qs[name]})
            xs = [r["wall_ms"] for r in classes[name]["records"][1:]]
            _log(f"{name}: cold {classes[name]['records'][0]['wall_ms']:.0f} ms, "
                 f"p50 {statistics.median(xs):.1f} ms ({classes[name]['process_s']:.1f} s)")
        cold = _cli_cold(home, opts.cold_runs) if not opts.skip_cold else None
        if cold:
            _log(f"cold start p50 {statistics.median(cold['walls_s']):.2f} s")
        token_specs = _token_specs(qs, opts.n_tokens)
        tokens = _child("tokens", home, token_specs) if not opts.skip_tokens else None
        profiles = {}
        for name, res in classes.items():
            missed = _missed(res["records"][1:], CLASSES[name][1])
            if missed and not opts.no_profile:
                subset = [qs[name][0], *(q for q in qs[name][1:] if q["kind"] in missed)]
                profiles[name] = {**_child("profile", home, {"name": name, "questions": subset}),
                                  "kinds": sorted(missed)}
                _log(f"profiled {name}: {', '.join(sorted(missed))}")
        return {"counts": counts, "init": init, "sample": {k: v for k, v in sample.items()
                                                           if k != "questions"},
                "questions": qs, "classes": classes, "cold": cold, "tokens": tokens,
                "profiles": profiles, "load": (load0, os.getloadavg()[0])}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _missed(recs: list[dict[str, Any]], target: float | None) -> set[str]:
    """The question kinds to profile: all of the class when its p50 misses, else the kinds
    whose own p50 does."""
    if target is None:
        return set()
    kinds = {r["kind"] for r in recs}
    if statistics.median(r["wall_ms"] for r in recs) > target:
        return kinds
    return {k for k in kinds if statistics.median(r["wall_ms"] for r in recs if r["kind"] == k) > target}


def _token_specs(qs: dict[str, list[dict[str, Any]]], n: int) -> list[dict[str, Any]]:
    """Healthy diagnoses (each pair kind) and faulted ones (ACL, link down) in turn."""
    healthy = [{"q": s["q"], "kind": f"healthy, {s['kind']}"} for s in qs["diagnosis"]
               if "not communicating" in s["q"]]
    faulted = qs["faulted"]
    out = []
    for i in range(n):
        src = healthy[i // 2 % len(healthy)] if i % 2 == 0 else faulted[i // 2 % len(faulted)]
        out.append(src)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--n", type=int, default=20, help="warm questions per class (plus a cold one)")
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--n-tokens", type=int, default=8, help="scripted-LLM diagnoses")
    ap.add_argument("--classes", nargs="*", help="only these query classes (default: all)")
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--skip-tokens", action="store_true")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--no-write", action="store_true", help="print, do not touch the results file")
    ap.add_argument("--json", type=Path, help="also dump the raw figures here")
    ap.add_argument("--child", choices=["init", "sample", "class", "profile", "tokens", "cli_split"],
                    help=argparse.SUPPRESS)
    ap.add_argument("--arg", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        arg = json.loads(a.arg.read_text()) if a.arg else None
        fn = {"init": lambda: child_init(), "sample": lambda: child_sample(arg),
              "class": lambda: child_class(arg["name"], arg["questions"]),
              "profile": lambda: child_profile(arg["name"], arg["questions"]),
              "tokens": lambda: child_tokens(arg), "cli_split": child_cli_split}[a.child]
        print(json.dumps(fn(), default=str))
        return
    res = run(a)
    body = render(res, _machine(), a)
    if not a.no_write:
        write_section(a.out, f"copilot:{SCALE}", body)
    print(body)
    if a.json:
        a.json.write_text(json.dumps(res, indent=1, default=str))


if __name__ == "__main__":
    main()
