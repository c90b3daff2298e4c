"""The syslog parse's CPU per line by stage (issue 28 item 1): an earlier commit and this checkout
side by side, in one run, the same lines, taking turns.

    .venv/bin/python -m bench.bench_ingest_parse [--base c2ad13d] [--rounds 5] [--out bench/RESULTS.md]

Parsing is what `netopsai ingest`'s worker processes do to each spooled datagram (the receiver's
`parser`: frame, vendor rules, device clock, the Event). Each measurement is a process of its
own with the tree first on PYTHONPATH (the earlier commit unpacked with `git archive`), over two
line sets: the storm bench's lines (bench_ingest._syslog: half a Cisco link-down, half an EOS
note that no rule knows) and every datagram of the real-line corpus (bench/real_logs/); and the
storm bench's SNMPv2c traps through the trap receiver's parser (one pass). Per stage
the thread's CPU time per line (time.thread_time, which a crowded machine inflates less than
wall time), the minimum and median over the rounds; the 1-minute load is given. A stage is timed
over the inputs the previous one made, so the stages add up to about the whole.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import child_cmd, child_env

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REPEAT = 3  # passes over a line set per stage in one process; its fastest counts


def child(lines_file: str) -> None:
    """In the tree under test: CPU µs per line of each stage, per line set; one JSON line."""
    from netopsai.backends.syslog.clock import device_time
    from netopsai.backends.syslog.parse import classify, mnemonic, parse_frame
    from netopsai.backends.syslog.receiver import SyslogContext, parser

    given = json.loads(Path(lines_file).read_text())
    traps = [bytes.fromhex(x) for x in given.pop("traps")]
    sets: dict[str, list[bytes]] = {k: [x.encode() for x in v] for k, v in given.items()}
    from netopsai.backends.syslog import clock

    ctx, now, out = SyslogContext(), datetime.now(UTC), {}
    whole = parser(ctx)

    def stages(lines: list[bytes], frames: list[Any]) -> dict[str, Any]:
        return {
            "frame (header, relays, RFC 5424)": lambda: [parse_frame(x) for x in lines],
            "vendor rules (classify)": lambda: [classify(f.text) for f in frames],
            "mnemonic": lambda: [mnemonic(f) for f in frames],
            "device clock": lambda: [device_time(f.timestamp, now, ctx.zones.of(f.hostname, "127.0.0.1"))
                                     for f in frames],
            "whole parse (the receiver's parser)": lambda: [whole(x, "127.0.0.1", now) for x in lines],
        }

    for name, lines in sets.items():
        for stage, run in stages(lines, [parse_frame(x) for x in lines]).items():
            best = float("inf")
            for _ in range(REPEAT):
                if hasattr(clock, "_read"):  # each pass reads its stamps afresh: a cache
                    clock._read.cache_clear()  # helps within a pass, where lines share them
                t = time.thread_time()
                run()
                best = min(best, time.thread_time() - t)
            out[f"{name}|{stage}"] = best / len(lines) * 1e6
    out["traps|whole decode (the trap receiver's parser)"] = _traps(traps, now)
    print(json.dumps(out))


def _traps(traps: list[bytes], now: datetime) -> float:
    """CPU µs per SNMPv2c linkDown trap through the trap receiver's parser (as spooled: the
    community already checked and left out); a fresh process per measurement, so caches start
    empty as in an ingest."""
    from netopsai.backends.traps import ber
    from netopsai.backends.traps.receiver import parser as trap_parser

    parse, kept = trap_parser(), [ber.without_community(t, ber.peek(t)) for t in traps]
    t = time.thread_time()
    for k in kept:
        parse(k, "127.0.0.1", now)
    return (time.thread_time() - t) / len(kept) * 1e6


def lines() -> dict[str, list[str]]:
    from bench.bench_ingest import _syslog, _trap
    from bench.real_logs_score import load

    return {"storm": [_syslog(i).decode() for i in range(10_000)],
            "corpus": [r["line"] for r in load() if r["line"].startswith("<")],
            "traps": [_trap(i).hex() for i in range(10_000)]}


def run_child(tree: Path, lines_file: Path) -> dict[str, float]:
    load0 = os.getloadavg()[0]
    # the tree first on the child's path, the checkout last (bench.child_env): the tree's netopsai,
    # this bench's own module
    got = subprocess.run(child_cmd("bench.bench_ingest_parse", "--child", str(lines_file)),
                         env=child_env({**os.environ, "PYTHONPATH": str(tree)}),
                         cwd=str(ROOT), capture_output=True, text=True, check=True)
    return {**json.loads(got.stdout.strip().splitlines()[-1]), "load0": load0,
            "load1": os.getloadavg()[0]}


def unpack(rev: str) -> Path:
    dest = Path(tempfile.mkdtemp(prefix=f"bench-parse-{rev}-"))
    # netopsai/ only: bench/ comes from the checkout (an older tree may not have this script)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "netopsai"], capture_output=True,
                             check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def render(res: dict[str, list[dict[str, float]]], a: argparse.Namespace, head: str) -> str:
    trees = list(res)
    loads = [r[k] for rounds in res.values() for r in rounds for k in ("load0", "load1")]
    keys = [k for k in res[trees[0]][0] if "|" in k]
    out = [f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; this checkout {head}, before = {a.base}; "
           f"`.venv/bin/python -m bench.bench_ingest_parse --base {a.base} --rounds {a.rounds}`",
           f"- 1-minute load during the rounds: {min(loads):.1f}–{max(loads):.1f} (2 cores, shared)",
           "", "| lines | stage | " + " | ".join(f"{t}: CPU µs/line (min / median)" for t in trees)
           + " | one core, this checkout |",
           "| --- | --- | " + " | ".join("---:" for _ in trees) + " | ---: |"]
    for k in keys:
        name, stage = k.split("|")
        cells = []
        for t in trees:
            vals = [r[k] for r in res[t]]
            cells.append(f"{min(vals):.1f} / {statistics.median(vals):.1f}")
        best = min(r[k] for r in res[trees[-1]])
        out.append(f"| {name} | {stage} | " + " | ".join(cells) + f" | {1e6 / best:,.0f}/s |")
    return "\n".join(out)


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="c2ad13d", help="the commit to compare with")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    base = unpack(a.base)
    res: dict[str, list[dict[str, float]]] = {f"before ({a.base})": [], "this checkout": []}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(lines(), f)
    try:
        for i in range(a.rounds):
            for label, tree in ((f"before ({a.base})", base), ("this checkout", ROOT)):
                res[label].append(run_child(tree, Path(f.name)))
            print(f"round {i + 1}/{a.rounds}", flush=True)
    finally:
        os.unlink(f.name)
        subprocess.run(["rm", "-rf", str(base)], check=False)
    print(render(res, a, head))


if __name__ == "__main__":
    main()
