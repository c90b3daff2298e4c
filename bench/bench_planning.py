"""Planning time against question length (issue 23, B6): the offline planner (`planner.plan`,
what the graph's first node runs) on questions of 4,000 characters (the door's limit), 25,000
and 100,000, of realistic text (on-call prose; a pasted syslog) and of pathological text (one
phrase repeated: each once drove a quadratic pattern or loop). Linear planning makes the
100 K / 25 K ratio about 4; quadratic, about 16. Each case runs in a fresh interpreter with a
time limit, after a warm-up question, on the small lab's vocabulary (seed 7). Also timed: the
door refusing a 300 KB question, and the hostlist bomb refused from its bracket sizes.

    .venv/bin/python -m bench.bench_planning [--sizes 4000 25000 100000] [--limit-s 60]
        [--tree DIR] [--label NAME] [--out bench/RESULTS.md] [--no-write]

`--tree DIR` plans with another checkout's planner (e.g. `git archive HEAD netopsai | tar -x
-C DIR`, for the numbers before a change); its table is written under `--label`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROSE = ("10.1.3.20 to 10.2.1.40 not communicating since 08:15, dc1-leaf-03 Ethernet49 is flapping "
         "and dc1-spine-02 shows CRC errors in the last 2h; can you check the BGP alarms on dc2 and "
         "what changed yesterday between 14:00 and 15:00 PDT? Is dc1-host-03-1 healthy? ")
LOG = ("Nov  4 14:02:11 dc1-leaf-03 %LINK-3-UPDOWN: Interface Ethernet49, changed state to down\n"
       "Nov  4 14:02:13 dc1-leaf-03 %LINEPROTO-5-UPDOWN: Line protocol on Interface Ethernet49, "
       "changed state to down\n2025-11-04T14:02:15Z dc1-spine-02 Rib: %BGP-5-ADJCHANGE: peer "
       "10.0.1.3 (AS 65001) old state Established new state Idle\n")
TEXTS = {  # kind -> (unit repeated to the length, what it exercised)
    "prose": (PROSE, "realistic: an on-call's question, repeated"),
    "syslog": (LOG, "realistic: a pasted device log"),
    "can": ("can ", "`can .* reach` from every 'can'"),
    "is": ("is ", "`is .* healthy` / `is .* up` from every 'is'"),
    "ports": ("ports ", "`ports [^.?!]* down` from every 'ports'"),
    "hyphens": ("a-", "a name pattern rescanning a hyphen chain from each word"),
    "weekdays": ("Monday ", "dates: `\\s*,?\\s*` over blanked runs, a whole-prefix search per date"),
    "zone-words": ("in est ", "a whole-prefix search per lower-case zone word"),
    "utc-offsets": ("UTC+1 ", "every zone word checked against every offset"),
    "names": ("leaf-3 ", "every name hit checked against every one taken"),
    "unknown-names": ("foo-1 ", "a did-you-mean look-up per unknown name"),
}


NOTE = ("The door (Copilot) refuses a question over NETOPSAI_MAX_QUESTION (4,000 characters) "
        "before planning, so the 25,000 and 100,000 columns time the planner itself, to show how it "
        "grows: linear is a ratio of about 4 between the last two columns, quadratic about 16. Each "
        "cell is one run in a fresh interpreter after a warm-up question; on a shared, loaded "
        "2-core machine a ratio of 3 to 7 is linear with noise.\n\n")


def text_of(kind: str, n: int) -> str:
    unit = TEXTS[kind][0]
    return (unit * (n // len(unit) + 1))[:n]


def child(kind: str, n: int, vocab_file: str, tree: str | None) -> None:
    """In a fresh interpreter (the tree's netopsai first on its PYTHONPATH when a tree is
    given): warm up, then plan one question; prints its seconds."""
    from netopsai.planner.entities import Vocabulary
    from netopsai.planner.rules import plan

    vocab = Vocabulary(**json.loads(Path(vocab_file).read_text()))
    clock = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
    plan("dc1-leaf-03 errors since Monday 10:00 PDT", vocab, clock)  # regexes compiled, caches warm
    question = text_of(kind, n)
    t0 = time.perf_counter()
    plan(question, vocab, clock)
    print(json.dumps({"s": time.perf_counter() - t0}))


def vocabulary(path: Path) -> Path:
    from dataclasses import asdict

    from netopsai.backends.lab import lab_backends
    from netopsai.lab.manage import init_lab
    from netopsai.planner.entities import Vocabulary
    from netopsai.store.engine import engine_for

    engine = engine_for(f"sqlite:///{path / 'lab.db'}")
    init_lab(engine, "default", "small", 7, datetime(2025, 11, 4, 20, 0, tzinfo=UTC))
    out = path / "vocab.json"
    out.write_text(json.dumps(asdict(Vocabulary.from_inventory(lab_backends(engine).inventory))))
    return out


def one(kind: str, n: int, vocab: Path, tree: str | None, limit_s: float) -> float | None:
    # the child runs as a file (it imports no bench module): only the tree, if any, comes before
    # the installed netopsai on its path, where -m would put this checkout first
    cmd = [sys.executable, __file__, "--child", kind, str(n), str(vocab), tree or ""]
    env = {**os.environ, "PYTHONPATH": tree} if tree else None
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit_s + 30, check=True,
                              env=env)
    except subprocess.TimeoutExpired:
        return None
    return float(json.loads(done.stdout.strip().splitlines()[-1])["s"])


def door() -> dict[str, float]:
    """Microseconds to refuse a 300 KB question at Copilot's door, and a hostlist bomb."""
    from netopsai.common.errors import NetopsError
    from netopsai.common.hostlist import hosts
    from netopsai.copilot.service import AskLimits, Copilot

    cp = Copilot.__new__(Copilot)  # the door only: no graph is built
    cp.limits = AskLimits()
    out = {}
    for name, refuse in (("question_300kb_us", lambda: cp.check_question("x" * 300_000)),
                         ("hostlist_bomb_us", lambda: hosts("gpu-[0-999]x[0-999]y[0-99]"))):
        t0 = time.perf_counter()
        try:
            refuse()
        except NetopsError:
            out[name] = (time.perf_counter() - t0) * 1e6
    return out


def table(rows: dict[str, dict[int, float | None]], sizes: list[int], limit_s: float) -> str:
    def cell(s: float | None) -> str:
        return f"> {limit_s:.0f} s (stopped)" if s is None else f"{s:.3f} s"  # None: killed
    head = "| text | " + " | ".join(f"{n:,} chars" for n in sizes) + " | ratio last/previous |"
    lines = [head, "|---" * (len(sizes) + 2) + "|"]
    for kind, by_n in rows.items():
        a, b = by_n.get(sizes[-2]) if len(sizes) > 1 else None, by_n.get(sizes[-1])
        ratio = f"{b / a:.1f}" if a and b else "–"
        lines.append(f"| {kind} ({TEXTS[kind][1]}) | " + " | ".join(cell(by_n.get(n)) for n in sizes)
                     + f" | {ratio} |")
    return "\n".join(lines) + "\n"


def run(a: argparse.Namespace) -> str:
    from bench.bench_foundation import _machine

    load0 = os.getloadavg()
    rows: dict[str, dict[int, float | None]] = {}
    with tempfile.TemporaryDirectory(prefix="netopsai-bench-plan-") as tmp:
        vocab = vocabulary(Path(tmp))
        for kind in TEXTS:
            rows[kind] = {}
            for n in a.sizes:
                if n != a.sizes[0] and rows[kind].get(a.sizes[a.sizes.index(n) - 1]) is None:
                    rows[kind][n] = None  # the shorter one ran out of time already
                    continue
                rows[kind][n] = one(kind, n, vocab, a.tree, a.limit_s)
                print(f"{kind:14} {n:>7,}: {rows[kind][n]}", flush=True)
    m, load1 = _machine(), os.getloadavg()
    out = (f"Planning time against question length, {a.label} ({datetime.now(UTC):%Y-%m-%d %H:%M} "
           f"UTC; {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; rev {m['rev']}; "
           f"load average {load0[0]:.2f} before, {load1[0]:.2f} after; the machine is shared).\n\n"
           + table(rows, a.sizes, a.limit_s))
    if a.tree is None:  # the door is this checkout's
        gate = door()
        out += (f"\nThe door: a 300 KB question refused in {gate['question_300kb_us']:.0f} µs; "
                f"the hostlist `gpu-[0-999]x[0-999]y[0-99]` (10^8 names) refused in "
                f"{gate['hostlist_bomb_us']:.0f} µs.\n")
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] or None)
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=int, default=[4000, 25_000, 100_000])
    ap.add_argument("--limit-s", type=float, default=60)
    ap.add_argument("--tree", help="plan with this checkout's netopsai (numbers from before)")
    ap.add_argument("--label", default="this checkout")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    body = run(a)
    print(body)
    if not a.no_write:
        from bench.bench_foundation import write_section

        key = "planning-length" + ("" if a.tree is None else "-" + re.sub(r"\W+", "-", a.label))
        write_section(a.out, key, f"## Planning time against question length — {a.label}\n\n"
                                  f"{NOTE}{body}")


if __name__ == "__main__":
    main()
