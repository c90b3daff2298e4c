"""Copilot benchmark: end-to-end latency per query class offline, `netopsai ask` cold start, and
prompt tokens per connectivity diagnosis with a scripted LLM, on the medium lab.

    .venv/bin/python bench/bench_copilot.py [--n 20] [--out bench/RESULTS.md] [--json FILE]

One medium lab (seed 7, clock 2025-11-04T20:00Z) is built in a temporary NETOPSAI_HOME. The
questions are drawn (fixed seed) from the lab's inventory through the metadata tool, in a child
of their own. Each query class then runs in a fresh child interpreter with one offline Copilot
and a fresh thread per question: the first question is reported as cold, the next N give
p50/p95. Diagnoses with a fault inject it (netopsai.lab.inject) before the question, outside the
timing, and ask the same question once more. The cold start runs the installed console script
as a new process; the token figures drive a Copilot through a scripted diagnosis over HTTP on
127.0.0.1 (tests/fake_openai.py) with no usage in the replies, so the copilot's own estimate is
what it reports. A class that misses its target is profiled (cProfile) in one more child.
The section `<!-- copilot:medium:begin -->` of the results file is replaced on re-run.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
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

from bench_foundation import _lab_counts, _machine, write_section
from copilot_config import (
    CLASSES,
    CLI_QUESTION,
    CLOCK,
    FAULT_AT,
    HERE,
    LAB_SEED,
    RNG_SEED,
    ROOT,
    SCALE,
)
from copilot_report import render


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- children

def _backends() -> Any:
    from netopsai.backends.lab import lab_backends
    from netopsai.store.engine import get_engine

    return lab_backends(get_engine())


def child_init() -> dict[str, Any]:
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import get_engine

    t0 = time.perf_counter()
    init_lab(get_engine(), "default", SCALE, LAB_SEED, CLOCK)
    return {"init_s": time.perf_counter() - t0}


def _meta(backends: Any, **args: Any) -> list[dict[str, Any]]:
    from netopsai.tools.registry import run_tool

    ev = run_tool("metadata", args, backends)
    if ev.errors:
        raise SystemExit(f"metadata {args} failed: {ev.errors[0]}")
    return ev.rows


def _pairs(hosts: list[dict[str, Any]], n: int, rng: random.Random) -> list[tuple[dict, dict, str]]:
    """(a, b, kind): same PoD, same site other PoD and cross-site pairs in turn."""
    out = []
    for i in range(n):
        a = rng.choice(hosts)
        kind = ("same PoD", "other PoD", "cross-site")[i % 3]
        pool = [h for h in hosts if h["name"] != a["name"] and (
            (kind == "same PoD" and h["pod"] == a["pod"])
            or (kind == "other PoD" and h["site"] == a["site"] and h["pod"] != a["pod"])
            or (kind == "cross-site" and h["site"] != a["site"]))]
        out.append((a, rng.choice(pool), kind))
    return out


def _q(text: str, kind: str, intent: str, **extra: Any) -> dict[str, Any]:
    return {"q": text, "kind": kind, "intent": intent, **extra}


def child_sample(n: int) -> dict[str, Any]:
    """The questions of every class, named from the inventory the metadata tool returns."""
    from netopsai.tools.registry import run_tool

    b = _backends()
    rng = random.Random(RNG_SEED)
    sites = [r["site"] for r in _meta(b, query="sites")]
    pods = [r["pod"] for s in sites for r in _meta(b, query="pods", site=s)]
    devices = [(r["name"], r["role"]) for r in _meta(b, query="devices") if r["role"] != "host"]
    hosts = _meta(b, query="hosts")
    spines = [d for d, r in devices if r == "spine"]
    leafs = [d for d, r in devices if r == "leaf"]
    total = n + 1  # the first is the cold one
    qs: dict[str, list[dict[str, Any]]] = {c: [] for c in CLASSES}
    for i in range(total):
        h = rng.choice(hosts)
        qs["inventory"].append([
            _q(f"list the PoDs of {rng.choice(sites)} and their segments", "PoDs of a site",
               "inventory.pods"),
            _q(f"who owns {h['ip']}?", "who owns an IP", "inventory.ip"),
            _q(f"upstream switch of {h['ip']}", "upstream of an IP", "inventory.upstream"),
            _q(f"details of {rng.choice(devices)[0]}", "device details", "inventory.device"),
        ][i % 4])
        cat, when = [("DCI", "2 hours"), ("backbone", "3h"), ("link", "6 hours"),
                     ("DCI", "12h")][(i // 2) % 4]
        qs["alarms"].append(
            _q(f"any {cat} link alarms in the last {when}?", "category alarms in a window", "alarms")
            if i % 2 == 0 else
            _q(f"open alarms on {rng.choice([*spines, *leafs])} in the last 24h",
               "open alarms on a device, 24h", "alarms"))
        qs["telemetry"].append([
            _q(f"port link status across all switches since {rng.choice([6, 8, 10, 12]):02d}:00",
               "link status, all switches, since HH:00", "telemetry.status"),
            _q(f"top error ports in {rng.choice(sites)} over the last 24h",
               "top error ports in a site, 24h", "telemetry.errors"),
            _q(f"top error ports in {rng.choice(pods)} over the last 24h",
               "top error ports in a PoD, 24h", "telemetry.errors"),
        ][i % 3])
        qs["changes"].append(_q(f"what changed on {rng.choice(spines)} today",
                                "changes on a spine today", "changes"))
    for a, z, kind in _pairs(hosts, total, rng):
        qs["trace"].append(_q(f"trace {a['ip']} to {z['ip']}", kind, "trace"))
    phrasing = ("{a} to {b} not communicating", "{a} can't reach {b}", "packet loss from {a} to {b}")
    for i, (a, z, kind) in enumerate(_pairs(hosts, total, rng)):
        qs["diagnosis"].append(_q(phrasing[i % 3].format(a=a["ip"], b=z["ip"]), kind,
                                  "diagnose.connectivity"))
    for i, (a, z, _) in enumerate(_pairs(hosts, total, rng)):
        site = rng.choice(sites)
        qs["analysis"].append([
            _q(f"which devices on the path from {a['ip']} to {z['ip']} had alarms in the last 24h",
               "path_alarms", "alarms", recipe="path_alarms"),
            _q(f"which devices on the path from {a['ip']} to {z['ip']} had changes in the last 24h",
               "path_changes", "changes", recipe="path_changes"),
            _q(f"top error ports per pod in {site} over the last 24h", "top_per_pod",
               "telemetry.errors", recipe="top_per_pod"),
            _q(f"did any alarms in {site} line up with changes in the last "
               f"{rng.choice(['12h', '24h', '48h'])}?", "alarms_vs_changes", "alarms",
               recipe="alarms_vs_changes"),
        ][i % 4])
    # faults: other-PoD and cross-site pairs, so the flow leaves the source ToR by an uplink
    far = [p for p in _pairs(hosts, 3 * total, rng) if p[2] != "same PoD"][:total]
    for i, (a, z, kind) in enumerate(far):
        hop1 = run_tool("traceroute", {"src": a["ip"], "dst": z["ip"]}, b).rows[0]
        tor, ifname = a["tor"], hop1["out_interface"]
        if i % 2 == 0:
            faults = [{"kind": "acl_block", "target": {"device": tor},
                       "params": {"dst": z["segment"]}},
                      {"kind": "change", "at": "-27m", "target": {"device": tor},
                       "params": {"summary": "Apply new ACL set", "ticket": f"CHG-{4200 + i}"}}]
            expect = {"label": "config.acl_block", "devices": [tor]}
        else:
            nbr = next(r["neighbor"] for r in _meta(b, query="neighbors", name=tor)
                       if r["interface"] == ifname)
            faults = [{"kind": "link_down", "target": {"link": f"{tor}:{ifname}"}}]
            expect = {"label": "link.down", "devices": [tor, nbr]}
        name = faults[0]["kind"]
        qs["faulted"].append(_q(f"{a['ip']} to {z['ip']} not communicating", name,
                                "diagnose.connectivity", faults=faults, expect=expect, pair=kind))
    return {"questions": qs, "hosts": len(hosts), "devices": len(devices)}


def _nodes(steps: list[dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for s in steps:
        out[s["node"]] = out.get(s["node"], 0.0) + float(s["ms"])
    return out


def _record(spec: dict[str, Any], r: dict[str, Any], wall_ms: float) -> dict[str, Any]:
    from netopsai.copilot.evidence import validate_citations

    ids = {e["id"] for e in r["evidence"]}
    coder = [e for e in r["evidence"] if e["tool"] == "coder"]
    rc = r["root_cause"] or {}
    return {"q": spec["q"], "kind": spec["kind"], "wall_ms": wall_ms, "elapsed_ms": r["elapsed_ms"],
            "intent": r["intent"], "intent_ok": r["intent"] == spec["intent"],
            "tools": [e["tool"] for e in r["evidence"]],
            "errors": [f"{e['tool']}: {e['errors'][0]}" for e in r["evidence"] if e["errors"]],
            "citations_ok": not validate_citations(r["answer"], ids) and bool(r["citations"]),
            "label": rc.get("label"), "device": rc.get("device"), "nodes": _nodes(r["steps"]),
            "coder": [{"recipe": (e["args"] or {}).get("recipe"), "ok": not e["errors"],
                       "sandbox_ms": (e["facts"] or {}).get("elapsed_ms"),
                       "warm": bool((e["facts"] or {}).get("warm"))} for e in coder]}


def _scenario(spec: dict[str, Any], i: int) -> Any:
    from netopsai.lab.scenario import Scenario

    return Scenario.model_validate({
        "id": f"bench-{i}", "lab": {"spec": "default", "scale": SCALE, "seed": LAB_SEED},
        "now": CLOCK, "question": spec["q"], "faults": [{"at": FAULT_AT, **f} for f in spec["faults"]],
        "noise": {"alarms": 20, "changes": 6, "flaps": 2}})


def child_class(name: str, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """One query class in this fresh process: one Copilot, a fresh thread per question."""
    from netopsai.copilot.service import Copilot

    b = _backends()
    t0 = time.perf_counter()
    copilot = Copilot(b)
    build_ms = (time.perf_counter() - t0) * 1000
    if name == "analysis":  # a long-lived front end (chat, web app) starts the sandbox worker
        copilot.warm_up()
    out: dict[str, Any] = {"build_ms": build_ms, "records": [], "again": [], "inject_ms": [],
                           "load": os.getloadavg()[0]}
    for i, spec in enumerate(questions):
        if name == "faulted":
            from netopsai.lab.inject import inject
            from netopsai.store.engine import get_engine

            t0 = time.perf_counter()
            inject(get_engine(), _scenario(spec, i))
            out["inject_ms"].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        r = copilot.answer(spec["q"], f"{name}-{i}")
        rec = _record(spec, r, (time.perf_counter() - t0) * 1000)
        if name == "faulted":
            rec["label_ok"] = (rec["label"] == spec["expect"]["label"]
                               and rec["device"] in spec["expect"]["devices"])
            t0 = time.perf_counter()
            again = copilot.answer(spec["q"], f"{name}-{i}-again")
            out["again"].append(_record(spec, again, (time.perf_counter() - t0) * 1000))
        out["records"].append(rec)
    if name == "faulted":
        from netopsai.lab.manage import reset_lab
        from netopsai.store.engine import get_engine

        reset_lab(get_engine())  # the next children see the healthy lab
    if name == "analysis":  # the sandbox's fixed cost: a child that runs nothing
        from netopsai.sandbox import SandboxSettings, prestart, run_code

        prestart(wait=True)
        floor = [run_code("result = 1\n") for _ in range(5)]
        out["sandbox_floor_ms"] = statistics.median(r.elapsed_ms for r in floor if r.warm)
        cold = SandboxSettings(warm=False)
        out["sandbox_cold_floor_ms"] = statistics.median(
            run_code("result = 1\n", settings=cold).elapsed_ms for _ in range(5))
        pandas = []
        for _ in range(5):  # what any such child pays before its code: python -I + pandas
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-c", "import pandas"], check=True)
            pandas.append((time.perf_counter() - t0) * 1000)
        out["pandas_import_ms"] = statistics.median(pandas)
    return out


def child_profile(name: str, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """cProfile over a class's warm questions (the first one runs unprofiled)."""
    from netopsai.copilot import toolbox
    from netopsai.copilot.service import Copilot

    toolbox.ThreadPoolExecutor = _Serial  # type: ignore[attr-defined,misc]  # cProfile sees one thread
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import reset_lab
    from netopsai.store.engine import get_engine

    copilot = Copilot(_backends())
    prof = cProfile.Profile()
    warm = questions[1:]
    for i, spec in enumerate(questions):
        if spec.get("faults"):
            inject(get_engine(), _scenario(spec, i))
        if i == 0:
            copilot.answer(spec["q"], "profile-cold")
        else:
            prof.runcall(copilot.answer, spec["q"], f"profile-{i}")
    if name == "faulted":
        reset_lab(get_engine())
    st = pstats.Stats(prof, stream=io.StringIO())
    stats = st.stats  # type: ignore[attr-defined]
    # a wrapper passes ≥ 90% of its time to one callee of ours: show the callee instead
    passed: dict[Any, float] = {}
    for fn, (_cc, _nc, _tt, _ct, callers) in stats.items():
        if not _ours(fn[0]):
            continue
        for caller, (_c1, _c2, _t, ct_from) in callers.items():
            passed[caller] = max(passed.get(caller, 0.0), ct_from)
    rows = []
    for fn, (_cc, ncalls, tt, ct, _callers) in stats.items():
        path, line, func = fn
        rows.append({"where": _short(path, line, func), "ncalls": ncalls, "tot_ms": tt * 1000,
                     "cum_ms": ct * 1000, "ours": _ours(path),
                     "wrapper": passed.get(fn, 0.0) >= 0.9 * ct})
    n = len(warm)
    whole = sum(r["tot_ms"] for r in rows)  # the entry points (Copilot.ask) are all of it
    ours = sorted((r for r in rows if r["ours"] and not r["wrapper"] and r["cum_ms"] < 0.95 * whole),
                  key=lambda r: -r["cum_ms"])
    top_self = sorted(rows, key=lambda r: -r["tot_ms"])[:10]
    per = [{**r, "cum_ms": r["cum_ms"] / n, "tot_ms": r["tot_ms"] / n} for r in ours[:10]]
    return {"n": n, "ours": per, "total_ms": whole / n,
            "self": [{**r, "cum_ms": r["cum_ms"] / n, "tot_ms": r["tot_ms"] / n} for r in top_self]}


class _Serial:
    """Stands in for the Toolbox's thread pool under the profiler: the calls run one after
    another in this thread, where cProfile can see them."""

    def __init__(self, max_workers: int | None = None) -> None:
        pass

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map(self, fn: Any, *iterables: Any) -> Any:
        return list(map(fn, *iterables))


def _ours(path: str) -> bool:
    p = str(Path(path).resolve()) if path.startswith("/") else path
    return p.startswith((str(ROOT / "netopsai"), str(ROOT / "tools")))


def _short(path: str, line: int, func: str) -> str:
    p = Path(path)
    if _ours(path):
        rel = p.resolve().relative_to(ROOT)
        return f"{rel}:{line}({func})"
    if "site-packages" in path:
        rel = path.split("site-packages/", 1)[1]
        return f"{rel}:{line}({func})"
    return f"{p.name}:{line}({func})" if path.startswith("/") else f"{path}({func})"


def child_tokens(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Scripted-LLM diagnoses: the model traces, checks changes and alarms on the path, answers
    citing the evidence; the replies carry no usage, so `tokens.prompt` is the copilot's own
    estimate of what it sent. The request bodies' exact sizes come from Content-Length."""
    sys.path.insert(0, str(ROOT))
    from netopsai.copilot.evidence import validate_citations
    from netopsai.copilot.service import Copilot
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import reset_lab
    from netopsai.store.engine import get_engine
    from tests.fake_openai import FakeOpenAI, call, calls, text

    b = _backends()
    out: list[dict[str, Any]] = []
    with FakeOpenAI() as fake:
        copilot = Copilot(b, llm=fake.chat_model(timeout=10))
        for i, spec in enumerate(pairs):
            if spec.get("faults"):
                inject(get_engine(), _scenario(spec, 900 + i))
            else:
                reset_lab(get_engine())
            src, dst = re.findall(r"\d+\.\d+\.\d+\.\d+", spec["q"])
            first = len(fake.requests)
            # the model plans the trace; the engine verifies and diagnoses; the model writes
            fake.script(
                calls(call("traceroute", {"src": src, "dst": dst}), usage=None),
                text(f"Connectivity from {src} to {dst}: see the traceroute [E1].\n\n"
                     "Change records on the path devices in the last hour are listed in [E2].\n\n"
                     "Alarms on the path devices [E3] and DCI alarms [E4] were checked.", usage=None))
            t0 = time.perf_counter()
            r = copilot.answer(spec["q"], f"tokens-{i}")
            wall = (time.perf_counter() - t0) * 1000
            sizes = [int(h.get("content-length", 0)) for h in fake.headers[first:]]
            parts = [_request_parts(body) for body in fake.requests[first:]]
            ids = {e["id"] for e in r["evidence"]}
            out.append({"q": spec["q"], "kind": spec["kind"], "prompt": r["tokens"]["prompt"],
                        "completion": r["tokens"]["completion"], "llm_calls": r["llm_calls"],
                        "request_bytes": sizes, "parts": parts, "wall_ms": wall,
                        "tools": [e["tool"] for e in r["evidence"]],
                        "label": (r["root_cause"] or {}).get("label"),
                        "llm_answer": r["answer"].startswith("Connectivity from"),
                        "citations_ok": not validate_citations(r["answer"], ids),
                        "left": fake.pending, "unscripted": fake.unscripted})
            fake.replies.clear()
        reset_lab(get_engine())
    return {"runs": out}


def child_cli_split() -> dict[str, Any]:
    """The `ask` path's phases in one fresh process, as cli.py runs them."""
    t0 = time.perf_counter()
    from netopsai.cli import app as cli

    t1 = time.perf_counter()
    copilot = cli._copilot()
    t2 = time.perf_counter()
    r = copilot.answer(CLI_QUESTION, f"split-{os.getpid()}")
    t3 = time.perf_counter()
    json.dumps(r, default=str)
    return {"import_cli_ms": (t1 - t0) * 1000, "copilot_ms": (t2 - t1) * 1000,
            "answer_ms": (t3 - t2) * 1000, "json_ms": (time.perf_counter() - t3) * 1000}


def _request_parts(body: dict[str, Any]) -> dict[str, int]:
    """Bytes of one chat request by part (re-serialised compactly, so a little under the wire
    size): the tool schemas, the system prompt, everything else (question, evidence, history)."""
    def size(x: Any) -> int:
        return len(json.dumps(x, separators=(",", ":")))
    msgs = body.get("messages") or []
    system = sum(size(m.get("content")) for m in msgs if m.get("role") == "system")
    return {"tools": size(body["tools"]) if body.get("tools") else 0, "system": system,
            "rest": size(msgs) - system}


# ---------------------------------------------------------------- parent

def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k != "DATABASE_URL" and not k.startswith("NETOPSAI_")}
    env["NETOPSAI_HOME"] = str(home)
    return env


def _child(mode: str, home: Path, arg: Any = None) -> dict[str, Any]:
    argf = home / f"arg-{mode}.json"
    argf.write_text(json.dumps(arg))
    cmd = [sys.executable, __file__, "--child", mode, "--arg", str(argf)]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=_env(home), capture_output=True, text=True, check=False)
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
            "from netopsai.cli.app import run; run()")
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
