"""Ray benchmark (issue 14 §3): the local engine against Ray with 1 and 2 workers, for a batch and
for an SNMP poll round, plus the per-item costs bench/sim_ray_fleet.py scales up to 100 workers.

    .venv/bin/python -m bench.bench_ray [--pairs 10000] [--devices 100] [--runs 3] [--out bench/RESULTS.md]

Batch: bench_batch's medium lab with its faults and its 10,000 pairs; every run is the real
command in a fresh process (wall = process start to exit), the modes alternating run by run:
the local engine as shipped (2 worker processes), Ray with 1 and 2 workers on a private local
cluster the command starts (cluster start included), and on a running `ray start --head`
cluster on 127.0.0.1 (start excluded). Every CSV must equal the local engine's byte for byte.
Poll: `--devices` generated 48-port agents served by two snmpsim processes; one read round
(poll_targets, concurrency 32) locally and through ray_poll's reader with 1 and 2 workers on the
running cluster, then on a fresh local cluster (start and shutdown included). Costs: per-pair
trace CPU, per-failing-pair diagnosis, per-device read CPU, and store_readings' rows per second
into SQLite and PostgreSQL, also written to --costs (JSON) for the simulation.
Writes the `<!-- ray:begin -->` section of the results file (appended the first time)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
from bench.bench_batch import _child, make_pairs  # noqa: E402
from bench.bench_foundation import _machine  # noqa: E402

# as the command sets them, before Ray is imported; token mode to join `ray start`'s cluster
RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token"}
os.environ.update(RAY_ENV)


@contextmanager
def ray_head(cpus: int = 2) -> Iterator[str]:
    """`ray start --head --block` on 127.0.0.1; SIGTERM to it stops its own processes only."""
    from netopsai_testkit.peers.process import free_port

    port, temp = free_port(), tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    log = Path(temp) / "start.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block",
             "--node-ip-address=127.0.0.1", f"--port={port}", f"--num-cpus={cpus}",
             "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"],
            stdout=out, stderr=subprocess.STDOUT)
    try:
        while b"Ray runtime started" not in log.read_bytes():
            if proc.poll() is not None:
                raise SystemExit(f"ray start failed:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(90)
        shutil.rmtree(temp, ignore_errors=True)


# ---------------------------------------------------------------- batch

def cli_batch(home: Path, file: Path, out: Path, args: list[str], workers: int | None) -> float:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NETOPSAI_PROBE_SOURCE")}
    env["NETOPSAI_HOME"] = str(home)
    if workers:
        env["NETOPSAI_RAY_WORKERS"] = str(workers)  # config.yaml's ray: workers
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "netopsai.cli", "batch", str(file), "-o", str(out), *args],
                       env=env, capture_output=True, text=True, check=False)
    if r.returncode not in (0, 1):
        raise SystemExit(f"batch {args} failed:\n{r.stderr[-2000:]}")
    return time.perf_counter() - t0


def bench_batch(a: argparse.Namespace, address: str) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="netopsai-bench-ray-"))
    try:
        _child("init", home)
        file = home / "pairs.csv"
        pairs = make_pairs(home / "netopsai.db", a.pairs)
        file.write_text("src,dst\n" + "".join(f"{s},{d}\n" for s, d in pairs))
        walls, same = _batch_runs(a, home, file, address)
        return {"walls": walls, "identical": same, "costs": pair_costs(home, file)}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _batch_runs(a: argparse.Namespace, home: Path, file: Path,
                address: str) -> tuple[dict[str, list[float]], bool]:
    modes: dict[str, tuple[list[str], int | None]] = {
        "local engine (2 worker processes)": ([], None),
        "Ray, 1 worker, local cluster started by the command": (["--engine", "ray"], 1),
        "Ray, 2 workers, local cluster started by the command": (["--engine", "ray"], 2),
        "Ray, 1 worker, running cluster (--address)": (["--engine", "ray", "--address", address], 1),
        "Ray, 2 workers, running cluster (--address)": (["--engine", "ray", "--address", address], 2)}
    walls: dict[str, list[float]] = {m: [] for m in modes}
    reference, same = None, True
    for run in range(a.runs):
        for i, (mode, (args, workers)) in enumerate(modes.items()):
            out = home / f"out-{i}-{run}.csv"
            walls[mode].append(cli_batch(home, file, out, args, workers))
            reference = reference or out.read_bytes()
            same = same and out.read_bytes() == reference
            print(f"[batch] {mode}: {walls[mode][-1]:.2f} s", file=sys.stderr)
    return walls, same


def pair_costs(home: Path, file: Path) -> dict[str, float]:
    """CPU per pair traced (one process, sorted as the engines chunk them) and per diagnosis."""
    from ipaddress import IPv4Address

    from netopsai.backends.lab import lab_backends
    from netopsai.copilot.batch.check import PairResult, SharedEvidence, diagnosed_result
    from netopsai.copilot.batch.parse import parse_pairs
    from netopsai.copilot.batch.runner import open_backends, store_url, trace_chunk
    from netopsai.copilot.batch.snapshot import pin_of
    from netopsai.store.engine import engine_for

    backends = lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}"))
    pairs, _ = parse_pairs(file.read_text(), None)
    pairs.sort(key=lambda p: (IPv4Address(p.dst), IPv4Address(p.src)))
    url = store_url(backends)
    assert url is not None
    t0 = time.process_time()
    items = trace_chunk(open_backends(url, pin_of(backends)), pairs)
    trace_s = time.process_time() - t0
    failing = [(p, ev) for p, ev in items if not isinstance(ev, PairResult)]
    shared, t1 = SharedEvidence(backends), time.process_time()
    for p, ev in failing:
        diagnosed_result(p, ev, shared)
    diag_s = time.process_time() - t1
    return {"pairs": len(pairs), "trace_cpu_ms": 1000 * trace_s / len(pairs),
            "failing": len(failing), "diagnosis_cpu_ms": 1000 * diag_s / max(1, len(failing))}


# ---------------------------------------------------------------- poll

@contextmanager
def agents(n: int, n_ports: int) -> Iterator[list[Any]]:
    """`n` generated agents over two snmpsim processes (one would be the bottleneck at once)."""
    from pydantic import SecretStr

    from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
    from netopsai_testkit.peers.snmpsim import Agent, ports, start_snmpsim

    halves = [{f"bench/dev{i:03d}": Agent(sys_name=f"bench-dev-{i:03d}", ports=ports(n_ports))
               for i in range(k, n, 2)} for k in (0, 1)]
    gens = [start_snmpsim((), half) for half in halves]
    sims = [next(g) for g in gens]
    try:
        yield [SnmpTarget(host="127.0.0.1", port=sim.port, auth=SnmpAuth(community=SecretStr(c)))
               for sim, half in zip(sims, halves, strict=True) for c in half]
    finally:
        for g in gens:
            next(g, None)


Reads = Callable[[list[Any]], dict[str, float]]  # one mode's round(s): label -> wall seconds


def bench_poll(a: argparse.Namespace, address: str) -> dict[str, Any]:
    from netopsai.backends.snmp.walk import poll_targets

    with agents(a.devices, 48) as ts:
        t0 = time.process_time()
        warm = poll_targets(ts, 32, 30.0, 1)  # snmpsim indexes each recording on its first request
        read_cpu = (time.process_time() - t0) / len(ts)
        modes: list[Reads] = [_local, *(_joined(address, w) for w in (1, 2)), *(_fresh(w) for w in (1, 2))]
        walls: dict[str, list[float]] = {}
        for _ in range(a.runs):
            for mode in modes:
                for label, wall in mode(ts).items():
                    walls.setdefault(label, []).append(wall)
                    print(f"[poll] {label}: {wall:.2f} s", file=sys.stderr)
        rates = store_rates(warm)
    return {"walls": walls, "read_cpu_s": read_cpu, "devices": len(ts), "store": rates,
            "failed": sum(not r.ok for r in warm)}


def _timed(read: Callable[[], list[Any]]) -> float:
    t0 = time.perf_counter()
    readings = read()
    wall = time.perf_counter() - t0
    assert all(r.ok for r in readings), [r.error for r in readings if not r.ok][:3]
    return wall


def _local(ts: list[Any]) -> dict[str, float]:
    from netopsai.backends.snmp.walk import poll_targets

    return {"local engine (one process, asyncio)": _timed(lambda: poll_targets(ts, 32, 30.0, 1))}


def _joined(address: str, workers: int) -> Reads:
    """Two rounds in one connection to the running cluster: the first pays the job's worker
    processes and their imports (each `poll --once`), the second is `poll`'s next round."""
    from netopsai.backends.snmp.ray_poll import RayReader
    from netopsai.common.ray_cluster import RayOptions, ray_cluster

    def run(ts: list[Any]) -> dict[str, float]:
        opts = RayOptions(address, workers)
        with ray_cluster(opts) as cpus:
            read = RayReader(opts, cpus)
            first = _timed(lambda: read(ts, 32, 30.0, 1))
            second = _timed(lambda: read(ts, 32, 30.0, 1))
        return {f"Ray, {workers} worker(s), running cluster, first round of a job": first,
                f"Ray, {workers} worker(s), running cluster, next round": second}
    return run


def _fresh(workers: int) -> Reads:
    """A local cluster started and shut down around one round, as `poll --once --engine ray`."""
    from netopsai.backends.snmp.ray_poll import RayReader
    from netopsai.common.ray_cluster import RayOptions, ray_cluster

    def run(ts: list[Any]) -> dict[str, float]:
        def once() -> list[Any]:
            with ray_cluster(RayOptions(workers=workers), local_cpus=2) as cpus:
                return RayReader(RayOptions(workers=workers), cpus)(ts, 32, 30.0, 1)
        return {f"Ray, {workers} worker(s), local cluster started and stopped": _timed(once)}
    return run


def store_rates(readings: list[Any]) -> dict[str, dict[str, float]]:
    """store_readings of one round twice (the second writes counter samples) into an empty
    SQLite store and an empty PostgreSQL database: rows written per second by the one writer."""
    from netopsai_testkit.peers.postgres import postgres_server, skip_reason

    with tempfile.TemporaryDirectory(prefix="netopsai-bench-store-") as tmp:
        out = {"sqlite": _store(f"sqlite:///{tmp}/netopsai.db", readings)}
    if skip_reason() is None:
        with postgres_server() as url:
            out["postgresql"] = _store(url, readings)
    return out


def _store(url: str, readings: list[Any]) -> dict[str, float]:
    import copy
    from datetime import timedelta

    from netopsai.backends.snmp.poller import ensure_real_store, store_readings
    from netopsai.store.engine import engine_for

    engine = engine_for(url)
    ensure_real_store(engine)
    later = copy.deepcopy(readings)
    for r in later:
        r.at += timedelta(minutes=5)
    t0 = time.perf_counter()
    store_readings(engine, readings)
    first = time.perf_counter() - t0
    t1 = time.perf_counter()
    rep = store_readings(engine, later)
    second = time.perf_counter() - t1
    rows = rep.interfaces * 2 + rep.samples  # interface upserts, counter states, samples
    return {"round1_s": first, "round2_s": second, "rows_round2": rows, "rows_per_s": rows / second,
            "devices_per_s": len(readings) / second}


# ---------------------------------------------------------------- report

def _table(walls: dict[str, list[float]], base: str) -> list[str]:
    ref = statistics.median(walls[base])
    rows = ["| mode | runs | wall p50 | min–max | vs local |", "| --- | ---: | ---: | ---: | ---: |"]
    for mode, xs in walls.items():
        p50 = statistics.median(xs)
        rows.append(f"| {mode} | {len(xs)} | {p50:.2f} s | {min(xs):.2f}–{max(xs):.2f} s "
                    f"| {ref / p50:.2f}× |")
    return rows


def render(a: argparse.Namespace, b: dict[str, Any], p: dict[str, Any], load: tuple[float, float]) -> str:
    m, c = _machine(), b["costs"]
    stores = "; ".join(f"{k}: {v['rows_per_s']:,.0f} rows/s ({v['devices_per_s']:.0f} devices/s, "
                       f"round 2 {v['round2_s']:.2f} s)" for k, v in p["store"].items())
    lines = [
        "## ray (issue 14 §3)", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}; "
        f"`bench/bench_ray.py --runs {a.runs}`",
        f"- Machine: {m['cpu']}, nproc {len(os.sched_getaffinity(0))}, {m['ram']}; Python {m['python']}; "
        f"Ray 2.60.0; 1-min load {load[0]:.2f} before, {load[1]:.2f} after (shared machine)",
        "- Modes alternate run by run; medians. A running cluster is `ray start --head` on 127.0.0.1 with "
        "2 CPUs; the local cluster is the one the command starts and stops (its start included).", "",
        f"### Batch: {a.pairs:,} pairs on the medium lab with faults "
        "(the real command, process start to exit)", "",
        *_table(b["walls"], next(iter(b["walls"]))), "",
        f"Every run's CSV byte-identical to the local engine's: **{'yes' if b['identical'] else 'NO'}**.", "",
        f"### Poll: one read round of {p['devices']} generated 48-port devices (two snmpsim processes)", "",
        *_table(p["walls"], next(iter(p["walls"]))), "",
        "### Per-item costs (inputs of bench/sim_ray_fleet.py)", "",
        f"- Trace, one process, pairs sorted by destination: {c['trace_cpu_ms']:.2f} ms CPU per pair "
        f"({c['pairs']:,} pairs); diagnosis on the driver: {c['diagnosis_cpu_ms']:.1f} ms CPU per failing "
        f"pair ({c['failing']} failing)",
        f"- SNMP read (pysnmp decode, 48 ports, the local engine): {p['read_cpu_s']:.3f} s CPU per device",
        f"- The driver's store writer (store_readings, second round with counter samples): {stores}", ""]
    return "\n".join(lines)


def append_section(path: Path, body: str) -> None:
    """Replace this benchmark's section, or append it at the end: the other sections untouched."""
    import re

    begin, end = "<!-- ray:begin -->", "<!-- ray:end -->"
    block = f"{begin}\n{body}{end}"
    text = path.read_text()
    pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pat.sub(lambda _: block, text) if pat.search(text) else text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10000)
    ap.add_argument("--devices", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--skip", choices=["batch", "poll"], help="run only the other part (a quick check)")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--costs", type=Path, help="also write the raw figures here (sim_ray_fleet.py --costs)")
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    with ray_head() as address:
        b = bench_batch(a, address) if a.skip != "batch" else {"walls": {"-": [1.0]}, "identical": True,
                                                               "costs": {}}
        p = bench_poll(a, address) if a.skip != "poll" else {}
    result = {"batch": b, "poll": p, "load": (load0, os.getloadavg()[0])}
    if a.costs:
        a.costs.write_text(json.dumps(result, indent=2, default=str) + "\n")
    if not a.skip:
        append_section(a.out, render(a, b, p, result["load"]))
    print(json.dumps(result, default=str)[:2000])


if __name__ == "__main__":
    main()
