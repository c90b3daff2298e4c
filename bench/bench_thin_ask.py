"""A cold `netopsai ask` standalone (this process loads the copilot) against the thin one (issue
14 §5; the process only sends the question) over HTTP (NETOPSAI_URL names a running `netopsai
api`) and over the home's Unix socket (the same server, no URL, no token), side by side,
alternating, each run a fresh process. Small lab with an ACL fault; three questions (an
inventory lookup, alarms, a diagnosis); median and spread of the wall times. Standalone runs in
a copy of the home (no socket there, so the CLI really works alone).

    .venv/bin/python -m bench.bench_thin_ask [--runs 7] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402

QUESTIONS = ["who owns 10.1.3.20?", "any alarms on dc1-leaf-03 in the last 2h?",
             "10.1.3.20 to 10.2.1.40 not communicating"]
CLI = [sys.executable, "-m", "netopsai.cli"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("NETOPSAI_", "DATABASE_URL"))}
    return {**base, "NETOPSAI_HOME": str(home), **extra}


def _lab(home: Path) -> None:
    from netopsai.lab.inject import inject
    from netopsai.lab.manage import init_lab, lab_info
    from netopsai.lab.scenario import Scenario
    from netopsai.store.engine import engine_for

    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    inject(engine, Scenario.model_validate({
        "id": "bench-thin", "now": lab_info(engine).clock, "question": QUESTIONS[2],
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _port()
    proc = subprocess.Popen([*CLI, "api", "--port", str(port)], env=_env(home),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0 and (home / "api.sock").is_socket():
                return proc, f"http://127.0.0.1:{port}"
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("netopsai api did not start")


def _timed(env: dict[str, str], question: str) -> float:
    t0 = time.perf_counter()
    r = subprocess.run([*CLI, "ask", question], env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"ask failed: {r.stderr}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        _lab(home)
        token = subprocess.run([*CLI, "tokens", "create", "bench"], env=_env(home),
                               capture_output=True, text=True, check=True).stdout.strip()
        shutil.copytree(home, Path(tmp) / "alone")
        proc, url = _serve(home)
        load0 = os.getloadavg()[0]
        envs = {"alone": _env(Path(tmp) / "alone"),
                "thin": _env(home, NETOPSAI_URL=url, NETOPSAI_TOKEN=token), "socket": _env(home)}
        try:
            times: dict[str, dict[str, list[float]]] = {q: {k: [] for k in envs} for q in QUESTIONS}
            for _ in range(opts.runs):
                for q in QUESTIONS:  # alternate, so load drifts hit all alike
                    for kind, env in envs.items():
                        times[q][kind].append(_timed(env, q))
        finally:
            proc.terminate()
            proc.wait()
        load1 = os.getloadavg()[0]
    m = _machine()
    out = ["## Thin `ask` — a cold `netopsai ask` standalone vs through `netopsai api` over HTTP "
           "and over the home's Unix socket (issue 14 §5)",
           "", f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
           f"- Machine: {m['cpu']}, {m['cores']} logical cores, {m['ram']} RAM; Python {m['python']}; "
           f"1-min load {load0:.1f} before, {load1:.1f} after",
           f"- Each run a fresh `python -m netopsai.cli ask` process, standalone, thin over HTTP "
           f"(NETOPSAI_URL + token) and thin over `$NETOPSAI_HOME/api.sock` alternating, "
           f"{opts.runs} runs per question; small lab with an ACL fault; the API server warm "
           "(one `netopsai api` serves both); standalone in a copy of the home without the socket.",
           "", "| question | standalone p50 | HTTP p50 | socket p50 | standalone min–max | "
           "HTTP min–max | socket min–max |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for q, t in times.items():
        cols = [t["alone"], t["thin"], t["socket"]]
        out.append(f"| {q} | " + " | ".join(f"{statistics.median(c):.2f} s" for c in cols) + " | "
                   + " | ".join(f"{min(c):.2f}–{max(c):.2f} s" for c in cols) + " |")
    body = "\n".join(out) + "\n"
    print(body)
    write_section(opts.out, "thin-ask", body)


if __name__ == "__main__":
    main()
