"""The sandbox's own cost per analysis run: an empty run and a small pandas run, warm (forked from
the worker) and cold (a fresh interpreter in its prison), median and p90 of N runs.

Run it on two trees in one sitting to compare, e.g. before/after a change to netopsai/sandbox:
    .venv/bin/python bench/bench_sandbox.py                      # this tree
    PYTHONPATH=/path/to/old/tree .venv/bin/python bench/bench_sandbox.py   # another
Prints one markdown table row per case; nothing is written."""

from __future__ import annotations

import argparse
import os
import statistics
import time

from netopsai.sandbox import SandboxSettings, prestart, run_code

CASES = {
    "empty": ("result = 1", None),
    "groupby": ("result = E1.groupby('device')['flaps'].sum()",
                {"E1": {"columns": ["device", "flaps"],
                        "rows": [{"device": f"d{i % 20}", "flaps": i} for i in range(2000)]}}),
}


def timed(code: str, inputs: dict | None, s: SandboxSettings, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        res = run_code(code, inputs, settings=s)
        out.append((time.perf_counter() - t) * 1000)
        assert res.ok and res.warm == s.warm, (res.error, res.warm)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warm-runs", type=int, default=30)
    ap.add_argument("--cold-runs", type=int, default=8)
    args = ap.parse_args()
    import netopsai.sandbox as sb

    print(f"tree: {os.path.dirname(os.path.dirname(os.path.abspath(sb.__file__)))}; "
          f"load {os.getloadavg()[0]:.2f}")
    print("| case | path | n | median ms | p90 ms |\n| --- | --- | --- | --- | --- |")
    for warm, n in ((True, args.warm_runs), (False, args.cold_runs)):
        s = SandboxSettings(warm=warm)
        if warm:
            assert prestart(s, wait=True)
        for name, (code, inputs) in CASES.items():
            ms = timed(code, inputs, s, n)
            p90 = statistics.quantiles(ms, n=10)[-1]
            print(f"| {name} | {'warm' if warm else 'cold'} | {n} | "
                  f"{statistics.median(ms):.1f} | {p90:.1f} |")


if __name__ == "__main__":
    main()
