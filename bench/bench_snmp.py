"""SNMP poll benchmark (issue 5 §9): wall time to poll 100 simulated devices, per concurrency.

    .venv/bin/python -m bench.bench_snmp [--devices 100] [--ports 48] [--runs 1]
                                         [--concurrency 1 4 16 64] [--out bench/RESULTS.md]

One snmpsim command responder on a free loopback port serves `--devices` generated recordings
(one community each, `--ports` interfaces with IF-MIB counters). Each run reads every device
(system scalars + the multi-column GETBULK walk of the interface table) with
netopsai.backends.snmp.walk.poll_targets at the given concurrency; the figure is the wall time of
the whole round, with each device's own read time (p50/p95). Then two rounds of
netopsai.backends.snmp.poller.poll_and_store into an empty SQLite store measure the full poll: read plus store
(the second round writes counter samples). snmpsim is one single-threaded Python process on the
same 2-core machine, so the agent side is the bottleneck here; real agents answer in parallel.
The `<!-- snmp:begin -->` section of the results file is replaced on re-run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import SecretStr

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget  # noqa: E402
from netopsai.backends.snmp.walk import poll_targets  # noqa: E402
from netopsai_testkit.peers.snmpsim import Agent, ports, start_snmpsim  # noqa: E402


def agents(n: int, n_ports: int) -> dict[str, Agent]:
    return {f"bench/dev{i:03d}": Agent(sys_name=f"bench-dev-{i:03d}", ports=ports(n_ports))
            for i in range(n)}


def targets(port: int, communities: list[str]) -> list[SnmpTarget]:
    return [SnmpTarget(host="127.0.0.1", port=port, auth=SnmpAuth(community=SecretStr(c)))
            for c in communities]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc, so it works for the agent too)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def read_rounds(ts: list[SnmpTarget], concurrency: int, runs: int, timeout: float,
                agent_pid: int) -> dict[str, Any]:
    walls, per_dev, failed, ifaces, cpu, agent_cpu = [], [], 0, 0, 0.0, 0.0
    for _ in range(runs):
        t0, c0, a0 = time.perf_counter(), time.process_time(), _cpu_s(agent_pid)
        readings = poll_targets(ts, concurrency=concurrency, timeout=timeout, retries=1)
        walls.append(time.perf_counter() - t0)
        cpu += time.process_time() - c0
        agent_cpu += _cpu_s(agent_pid) - a0
        per_dev += [r.elapsed_s for r in readings]
        failed += sum(not r.ok for r in readings)
        ifaces = sum(len(r.interfaces) for r in readings)
    return {"concurrency": concurrency, "wall_p50": statistics.median(walls), "wall_min": min(walls),
            "dev_p50": pct(per_dev, 0.5), "dev_p95": pct(per_dev, 0.95), "failed": failed,
            "interfaces": ifaces, "cpu": cpu / runs, "agent_cpu": agent_cpu / runs}


def store_rounds(ts: list[SnmpTarget], concurrency: int, timeout: float) -> list[dict[str, float]]:
    from netopsai.backends.snmp.poller import poll_and_store
    from netopsai.store.engine import engine_for

    out = []
    with tempfile.TemporaryDirectory(prefix="netopsai-bench-snmp-") as home:
        engine = engine_for(f"sqlite:///{Path(home) / 'netopsai.db'}")
        for _ in range(2):
            t0 = time.perf_counter()
            rep = poll_and_store(engine, ts, concurrency=concurrency, timeout=timeout, retries=1,
                                 sample_every=0)  # back to back: the 2nd round writes samples
            out.append({"wall": time.perf_counter() - t0, "samples": rep.samples,
                        "interfaces": rep.interfaces, "failed": len(rep.failures)})
    return out


def render(a: argparse.Namespace, start_s: float, reads: list[dict[str, Any]],
           stored: list[dict[str, float]], load: tuple[float, float]) -> str:
    m = _machine()
    lines = [
        f"## SNMP poll of {a.devices} simulated devices", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; "
        f"1-min load {load[0]:.2f} before, {load[1]:.2f} after",
        f"- Agent: one snmpsim process on 127.0.0.1 serving {a.devices} generated recordings of "
        f"{a.ports} interfaces each (one community per device), started in {start_s:.1f} s; "
        f"request timeout {a.timeout:g} s, 1 retry; {a.runs} runs per concurrency. No target is "
        "set by the issue.", "",
        "| concurrency | round wall time p50 (min) | per device p50 / p95 | interfaces read | "
        "failed reads | poller CPU | agent CPU |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in reads:
        lines.append(f"| {r['concurrency']} | {r['wall_p50']:.2f} s ({r['wall_min']:.2f} s) | "
                     f"{r['dev_p50']:.2f} / {r['dev_p95']:.2f} s | {r['interfaces']:,} | {r['failed']} | "
                     f"{r['cpu']:.1f} s | {r['agent_cpu']:.1f} s |")
    lines += ["", "CPU is per round (user + system). The wall time is bounded by the one simulator "
              "process (single-threaded Python) and by the machine's load: in-flight requests beyond "
              "a few only queue at the agent, and a request queued longer than the timeout fails."]
    lines += ["", f"Poll into an empty SQLite store (`poll_and_store`, concurrency "
              f"{a.store_concurrency}):", "",
              "| round | wall time | interfaces stored | counter samples | failed |",
              "| ---: | ---: | ---: | ---: | ---: |"]
    for i, s in enumerate(stored, 1):
        lines.append(f"| {i} | {s['wall']:.2f} s | {s['interfaces']:,.0f} | {s['samples']:,.0f} | "
                     f"{s['failed']:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=100)
    ap.add_argument("--ports", type=int, default=48)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 64])
    ap.add_argument("--store-concurrency", type=int, default=32)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    gen = agents(a.devices, a.ports)
    t0 = time.perf_counter()
    sim_iter = start_snmpsim(real=(), generated=gen)
    sim = next(sim_iter)
    start_s = time.perf_counter() - t0
    try:
        ts = targets(sim.port, list(gen))
        reads = []
        for c in a.concurrency:
            assert sim.proc is not None
            reads.append(read_rounds(ts, c, a.runs, a.timeout, sim.proc.pid))
            print(reads[-1], flush=True)
        stored = store_rounds(ts, a.store_concurrency, a.timeout)
        print(stored, flush=True)
    finally:
        next(sim_iter, None)
    body = render(a, start_s, reads, stored, (load0, os.getloadavg()[0]))
    print(body)
    write_section(a.out, "snmp", body)


if __name__ == "__main__":
    main()
