"""The reliability report (issue 15 §3) on the medium lab with 30 days of simulated history: its
wall time by PoD, site and zone, through the same call the CLI and the web app make
(netopsai.reliability.run.reliability_report: read the store, correlate into cases, compute),
and the command itself (`netopsai report reliability --format json`, start to exit).

    .venv/bin/python -m bench.bench_reliability [--runs 5] [--days 30] [--out bench/RESULTS.md]

The history is the lab's own (lab init --scale medium, then netopsai.reliability.simulate: the
lab's noise spread over the days, lab faults across them, flap storms, acknowledgements and repair
changes, a periodic batch probe's history with unreachable streaks) in a temporary
NETOPSAI_HOME; fixed seeds and a fixed lab clock keep runs comparable.
Median of `--runs` per scope, each run a fresh read of the store (no cache is kept between runs).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
LIMIT_S = 3.0  # the target for the 30-day report on the medium lab


def build(home: Path, days: int, busy: float) -> tuple[Any, dict[str, float]]:
    from netopsai.lab.manage import init_lab
    from netopsai.reliability.simulate import Density, simulate
    from netopsai.store.engine import engine_for

    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    t0 = time.perf_counter()
    init_lab(engine, "default", "medium", 7, CLOCK)
    t1 = time.perf_counter()
    d = Density()
    simulate(engine, days, per_day=Density(alarms=d.alarms * busy, changes=d.changes * busy,
                                           flaps=d.flaps * busy, faults=d.faults * busy,
                                           storms=d.storms * busy,
                                           probe_streaks=d.probe_streaks * busy))
    return engine, {"init_s": t1 - t0, "history_s": time.perf_counter() - t1}


def probe_counts(engine: Any) -> tuple[int, int]:
    """(probe rows, unreachable ones) in the simulated history."""
    from sqlalchemy import func, select
    from sqlmodel import Session

    from netopsai.store.probes import ProbeResult

    with Session(engine) as s:
        rows = s.execute(select(func.count()).select_from(ProbeResult)).scalar_one()
        bad = s.execute(select(func.count()).select_from(ProbeResult)
                        .where(ProbeResult.status == "unreachable")).scalar_one()
    return int(rows), int(bad)


def measure(engine: Any, days: int, runs: int) -> dict[str, Any]:
    from netopsai.reliability.run import reliability_report

    out: dict[str, Any] = {}
    for by in ("pod", "site", "zone"):
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            rep = reliability_report(engine, f"{days}d", by)
            times.append(time.perf_counter() - t)
        out[by] = {"median_s": statistics.median(times), "max_s": max(times), "totals": rep.totals,
                   "scopes": len(rep.scopes), "offenders": len(rep.offenders),
                   "probe_minutes": sum(r["probe_minutes"] for r in rep.scopes)}
    return out


def measure_cli(home: Path, days: int, runs: int) -> dict[str, Any]:
    """The command an on-call types, start to exit (interpreter, imports, config, the report)."""
    exe = Path(sys.executable).with_name("netopsai")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    env["NETOPSAI_HOME"] = str(home)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([str(exe), "report", "reliability", "--window", f"{days}d", "--format", "json"],
                       env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return {"median_s": statistics.median(times), "max_s": max(times)}


def render(res: dict[str, Any], build_s: dict[str, float], a: argparse.Namespace,
           load: tuple[float, float]) -> str:
    days, runs = a.days, a.runs
    m = _machine()
    t = res["pod"]["totals"]  # the same history whatever the scope
    rows, bad = res["probes"]["rows"], res["probes"]["unreachable"]
    lines = [
        f"## Reliability report — medium lab, {days} days of history", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; `bench/bench_reliability.py --runs {runs} "
        f"--days {days} --busy {a.busy:g}`; rev {m['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} logical cores, {m['ram']} RAM; Python {m['python']}, "
        f"SQLite {m['sqlite']}, {m['os']}; 1-min load average {load[0]:.2f} before, {load[1]:.2f} after",
        f"- History: {t['alarms']} alarms in {t['cases']} cases ({t['compression']:g} alarms per "
        f"case), {t['bad_cases']} bad; {rows:,} recorded probes ({bad} unreachable, "
        f"{res['probes']['minutes']:,} probe minutes by PoD); built in "
        f"{build_s['init_s']:.1f} s (lab init) + "
        f"{build_s['history_s']:.1f} s (simulated history)", "",
        f"| report | median of {runs} | max | scopes | offenders | target |",
        "| --- | --- | --- | --- | --- | --- |"]
    for by, r in res.items():
        if by == "probes":
            continue
        if by == "cli":
            ok = "met" if r["median_s"] <= LIMIT_S else "MISSED"
            lines.append(f"| `netopsai report reliability --window {days}d --format json` (process) | "
                         f"{r['median_s']:.2f} s | {r['max_s']:.2f} s | — | — | ≤ {LIMIT_S:g} s: {ok} |")
            continue
        ok = "met" if r["median_s"] <= LIMIT_S else "MISSED"
        lines.append(f"| `--window {days}d --by {by}` | {r['median_s']:.2f} s | {r['max_s']:.2f} s | "
                     f"{r['scopes']} | {r['offenders']} | ≤ {LIMIT_S:g} s: {ok} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--busy", type=float, default=4.0, help=(
        "times the simulated history's default density (12 alarms, 4 flaps, 1.5 faults a day)"))
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="netopsai-bench-reliability-"))
    try:
        load0 = os.getloadavg()[0]
        engine, build_s = build(home, a.days, a.busy)
        res = measure(engine, a.days, a.runs)
        res["cli"] = measure_cli(home, a.days, a.runs)
        rows, bad = probe_counts(engine)
        res["probes"] = {"rows": rows, "unreachable": bad, "minutes": res["pod"]["probe_minutes"]}
        body = render(res, build_s, a, (load0, os.getloadavg()[0]))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    write_section(a.out, "reliability", body)
    print(body)


if __name__ == "__main__":
    main()
