"""The everyday commands (issue 28 item 4), two revisions side by side in one run: a cold
standalone `netopsai ask` against a bare `import langgraph.graph`, a thin `ask` over the home's
Unix socket against `python -c pass`, and `netopsai batch` of 10,000 pairs on the medium lab
with faults (bench_batch's lab and pairs), each yardstick measured in the same rounds.

    .venv/bin/python -m bench.bench_everyday --vs REV [--rev HEAD] [--runs 5] [--batch-runs 2]

Both revisions are exported as they install (house_same.export), byte-compiled (as pip compiles
an install) and put first on PYTHONPATH;
every command is a fresh process, the revisions and yardsticks alternating within each round so
that the load of a shared machine falls on all alike. Wall time and CPU time (user + sys of the
process and its children) are both reported: on a loaded machine the CPU is the steadier figure.
The socket's server is the newer revision's `netopsai api` (only the client differs). A batch
runs in a session of its own: what is left in its process group 0.5 s after it exits is listed,
and its CSV must equal the base revision's byte for byte. Writes `<!-- everyday:begin -->`."""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import child_cmd, child_env
from bench.bench_batch import make_pairs
from bench.bench_batch_pairs import left_in_group
from bench.bench_foundation import _machine, write_section
from bench.bench_thin_ask import QUESTIONS, _lab
from bench.house_same import export

HERE = Path(__file__).resolve().parent
PY = sys.executable


def compiled(tree: Path) -> Path:
    """TREE's modules byte-compiled, as a pip install leaves them (and langgraph, the yardstick, is
    read from its installed .pyc): a fresh export has no __pycache__, so with
    PYTHONDONTWRITEBYTECODE set (as on this machine) every run recompiled each module from source
    (~0.35 s of a cold standalone ask's CPU, RESULTS "cold-ask-gc"), and without it the first
    round alone did."""
    subprocess.run([PY, "-m", "compileall", "-q", "-j", "0", str(tree / "netopsai")], check=True,
                   stdout=subprocess.DEVNULL)
    return tree


def _env(tree: Path | None, home: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NETOPSAI_", "DATABASE_URL", "PYTHONPATH"))}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if home is not None:
        env["NETOPSAI_HOME"] = str(home)
    return env


class Run:
    def __init__(self, wall: float, cpu: float, code: int, err: str, pid: int) -> None:
        self.wall, self.cpu, self.code, self.err, self.pid = wall, cpu, code, err, pid


def timed(cmd: list[str], env: dict[str, str], session: bool = False) -> Run:
    """A fresh process: its wall time and the CPU of it and its children (user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=session)
    _, err = proc.communicate()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, proc.returncode, err, proc.pid)


# bench_thin_ask._lab run by a revision's own code in its own home: a store made by a newer
# revision carries a schema an older one cannot open ("Can't locate revision")
LAB = """
import os
from pathlib import Path
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab, lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
engine = engine_for(f"sqlite:///{Path(os.environ['NETOPSAI_HOME']) / 'netopsai.db'}")
init_lab(engine, "default", "small", 7)
inject(engine, Scenario.model_validate({
    "id": "bench-thin", "now": lab_info(engine).clock, "question": "q",
    "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                "params": {"dst": "10.2.1.0/24"}}]}))
"""


def serve(tree: Path, home: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([PY, "-P", "-m", "netopsai.cli", "api", "--port", "0"], env=_env(tree, home),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1200):
        if (home / "api.sock").is_socket():
            return proc
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("netopsai api did not open its socket")


def asks(trees: dict[str, Path], work: Path, runs: int) -> dict[str, dict[str, list[tuple[float, float]]]]:
    """Per question: yardsticks and each revision's standalone and thin ask, alternating."""
    served = work / "served"
    served.mkdir(mode=0o700)
    _lab(served)
    alone: dict[str, Path] = {}
    for rev, tree in trees.items():  # each revision's own lab, in its own schema
        alone[rev] = work / f"alone-{rev}"
        alone[rev].mkdir(mode=0o700)
        made = subprocess.run([PY, "-P", "-c", LAB], env=_env(tree, alone[rev]), capture_output=True,
                              text=True)
        if made.returncode:
            raise SystemExit(f"lab for {rev} failed: {made.stderr[-1500:]}")
    server = serve(trees["new"], served)
    try:
        cmds: dict[str, tuple[list[str], dict[str, str]]] = {
            "python -c pass": ([PY, "-c", "pass"], _env(None, None)),
            "import langgraph.graph": ([PY, "-c", "import langgraph.graph"], _env(None, None))}
        out: dict[str, dict[str, list[tuple[float, float]]]] = {}
        for q in QUESTIONS:
            for rev, tree in trees.items():
                cmds[f"standalone {rev}"] = ([PY, "-P", "-m", "netopsai.cli", "ask", q],
                                             _env(tree, alone[rev]))
                cmds[f"thin {rev}"] = ([PY, "-P", "-m", "netopsai.cli", "ask", q], _env(tree, served))
            got: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
            for _ in range(runs):
                for name, (cmd, env) in cmds.items():
                    r = timed(cmd, env)
                    if r.code:
                        raise SystemExit(f"{name} failed: {r.err[-1500:]}")
                    got[name].append((r.wall, r.cpu))
            out[q] = got
            said = ", ".join(f"{k} {p50(v, 0):.2f}/{p50(v, 1):.2f} s" for k, v in got.items())
            print(f"[ask] {q}: {said}", file=sys.stderr, flush=True)
        return out
    finally:
        server.terminate()
        server.wait()


def batches(trees: dict[str, Path], work: Path, runs: int, pairs: int) -> dict[str, list[dict[str, Any]]]:
    homes = {rev: work / f"batch-{rev}" for rev in trees}
    for rev, tree in trees.items():  # each revision's lab made by its own code (its schema)
        homes[rev].mkdir()
        made = subprocess.run(child_cmd("bench.bench_batch", "--child", "init", "--arg", "{}"),
                              env=child_env(_env(tree, homes[rev])), capture_output=True, text=True)
        if made.returncode:
            raise SystemExit(f"batch lab for {rev} failed: {made.stderr[-1500:]}")
    text = "src,dst\n" + "".join(f"{s},{d}\n" for s, d in make_pairs(homes["new"] / "netopsai.db", pairs))
    for home in homes.values():
        (home / "pairs.csv").write_text(text)
    out: dict[str, list[dict[str, Any]]] = {rev: [] for rev in trees}
    reference: bytes | None = None
    for i in range(runs):
        for rev, tree in trees.items():
            home = homes[rev]
            file = home / "pairs.csv"
            dest = home / f"out-{rev}-{i}.csv"
            load = os.getloadavg()[0]
            r = timed([PY, "-P", "-m", "netopsai.cli", "batch", str(file), "-o", str(dest)],
                      _env(tree, home), session=True)
            if r.code not in (0, 1):
                raise SystemExit(f"batch {rev} failed: {r.err[-1500:]}")
            time.sleep(0.5)
            left = left_in_group(r.pid)  # a session leader: its pid is its process group's id
            wall, cpu = r.wall, r.cpu
            reference = reference or dest.read_bytes()
            out[rev].append({"wall": wall, "cpu": cpu, "left": left, "same": dest.read_bytes() == reference,
                             "load": (load, os.getloadavg()[0])})
            print(f"[batch] {rev} run {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, left {left or 'none'}",
                  file=sys.stderr, flush=True)
    return out


def p50(pairs: list[tuple[float, float]], i: int) -> float:
    return statistics.median(p[i] for p in pairs)


def _cell(got: dict[str, list[tuple[float, float]]], k: str) -> str:
    return f"{p50(got[k], 0):.3f} / {p50(got[k], 1):.3f} s"


def _ratio(got: dict[str, list[tuple[float, float]]], k: str, yard: str) -> str:
    return f"{p50(got[k], 0) / p50(got[yard], 0):.2f}×, {p50(got[k], 1) / p50(got[yard], 1):.2f}×"


def render(a: argparse.Namespace, revs: dict[str, str], ask: dict[str, Any], batch: dict[str, Any],
           load: tuple[str, str], took: float) -> str:
    m = _machine()
    lines = ["## The everyday commands (issue 28 item 4): two revisions side by side", "",
             f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; base = {revs['base']}, new = {revs['new']} "
             f"(`.venv/bin/python -m bench.bench_everyday --vs {a.vs} --runs {a.runs} "
             f"--batch-runs {a.batch_runs}`, {took / 60:.0f} min)",
             f"- Machine: {m['cpu']}, nproc {os.cpu_count()}, {m['ram']}; Python {m['python']}",
             f"- Load (`uptime`): before `{load[0]}`; after `{load[1]}` — shared with other sessions' "
             "runs: the walls stretch with the load, the CPU times much less.",
             "- Every figure a median of fresh processes, the revisions and the yardsticks alternating in "
             "each round; wall / CPU (user + sys, children included).", ""]
    lines += ["| question | `python -c pass` | `import langgraph.graph` | standalone base | standalone new "
              "| new ÷ langgraph (wall, CPU) | thin base | thin new | new ÷ pass (wall, CPU) |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for q, got in ask.items():
        lines.append(f"| {q} | {_cell(got, 'python -c pass')} | {_cell(got, 'import langgraph.graph')} | "
                     f"{_cell(got, 'standalone base')} | {_cell(got, 'standalone new')} | "
                     f"{_ratio(got, 'standalone new', 'import langgraph.graph')} | "
                     f"{_cell(got, 'thin base')} | {_cell(got, 'thin new')} | "
                     f"{_ratio(got, 'thin new', 'python -c pass')} |")
    lines += ["", f"`netopsai batch`, {a.pairs:,} pairs, medium lab with bench_batch's three faults, "
              "as shipped (worker processes):", "",
              "| revision | runs | wall p50 (min–max) | CPU p50 | CSV equal to base's | "
              "left in its process group |",
              "| --- | ---: | ---: | ---: | --- | --- |"]
    for rev, rs in batch.items():
        walls = [r["wall"] for r in rs]
        lines.append(f"| {rev} ({revs[rev]}) | {len(rs)} | {statistics.median(walls):.2f} s "
                     f"({min(walls):.2f}–{max(walls):.2f}) | "
                     f"{statistics.median(r['cpu'] for r in rs):.2f} s | "
                     f"{'yes' if all(r['same'] for r in rs) else 'NO'} | "
                     f"{'; '.join(sorted({x for r in rs for x in r['left']})) or 'none'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vs", required=True, help="the base revision")
    ap.add_argument("--rev", default="HEAD", help="the new revision")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--batch-runs", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    t0 = time.perf_counter()
    uptime0 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    revs = {k: subprocess.run(["git", "rev-parse", "--short", r], capture_output=True, text=True,
                              check=True).stdout.strip() for k, r in (("base", a.vs), ("new", a.rev))}
    work = Path(tempfile.mkdtemp(prefix="bench-everyday-"))
    try:
        trees = {k: compiled(export(r, work / k)) for k, r in revs.items()}
        ask = asks(trees, work, a.runs)
        batch = batches(trees, work, a.batch_runs, a.pairs) if a.batch_runs else {}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    uptime1 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    body = render(a, revs, ask, batch, (uptime0, uptime1), time.perf_counter() - t0)
    print(body)
    write_section(a.out, "everyday", body)


if __name__ == "__main__":
    main()
