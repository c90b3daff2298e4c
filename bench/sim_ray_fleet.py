"""Simulation of the Ray engines at fleet scale (issue 14 §3): 100 workers, 1 M pairs and 10,000
devices per 5-minute round, and 100,000 devices; where the driver's store writer and the SNMP
agents become the bottleneck. A discrete-event simulation whose per-item costs were measured on
this machine.

    .venv/bin/python -m bench.sim_ray_fleet [--costs FILE] [--writers FILE] [--workers 1 2 10 100]

The model is the code as built. Batch: actors start (import + open the store + first routes),
then take chunks of CHUNK pairs from the driver, two in flight each; every pair costs trace CPU
on its actor; the one driver takes finished chunks in arrival order and, serially, unpickles
and writes each row and diagnoses the failing pairs. Poll: one task per worker with its
contiguous share of the devices and `concurrency / workers` requests in flight; a device's read
is the agent's answer time (agents answer in parallel, each device its own agent; or a pool of
snmpsim-like single-threaded agents) then pysnmp decoding on the worker's one core; the driver
gets each task's readings when the task ends and unpickles them. Storing (issue 28 §2), three
ways: the single writer (the round in one store_readings transaction after the read, at the
measured rows per second); per-chunk writer threads on the driver (backends/snmp/writers.py:
each task's chunk stored as it arrives, sharded by device, at the rows per second
bench_poll_writers.py measured for that many threads); or every worker writing its own chunk
on its own connection (PostgreSQL; modelled at one writer's measured rate each, with no
server ceiling — that is not measurable here). `--costs` is bench_ray.py's JSON
(else the defaults below, measured by it on 2026-11-25)."""

from __future__ import annotations

import argparse
import heapq
import json
import math
import random
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

ROUND_S = 300.0


@dataclass
class Costs:
    """Seconds unless named otherwise; the defaults are this machine's (bench/bench_ray.py)."""

    trace_cpu: float = 0.000204  # per pair, an actor's CPU (medium lab, 10,000 pairs, routes memoised)
    diagnosis_cpu: float = 0.0063  # per failing pair, on the driver
    failing: float = 0.017  # share of pairs that fail and are diagnosed (bench_batch's faults)
    row_cpu: float = 0.000008  # per result on the driver: unpickle + CSV row (one-off micro-measure)
    actor_start: float = 2.5  # import, open the store, first routes (Ray 1 worker minus local)
    chunk: int = 250  # pairs per chunk (runner.CHUNK's upper bound)
    decode_cpu: float = 0.068  # per 48-port device, pysnmp decoding on the reader's core
    agent_s: float = 0.6  # a real agent's answer time for a device's walk (median; 0.3-1.0 s)
    slow_share: float = 0.01  # devices whose agent is slow (big chassis, busy control plane)
    slow_s: float = 30.0  # their walk time
    sim_agent_cpu: float = 0.089  # an snmpsim agent's CPU per 48-port device (bench_snmp)
    device_unpickle: float = 0.000084  # per DeviceReading on the driver
    rows_per_device: int = 144  # 48 interface upserts + 48 counter states + 48 samples
    store_rows_s: dict[str, float] | None = None  # the driver's store_readings rows/s per database
    # per-chunk writers (bench/bench_poll_writers.py): rows/s of W writer threads in one process,
    # as a fraction of the single writer's rows/s, per database (W not measured: the largest below)
    thread_scaling: dict[str, dict[int, float]] | None = None

    def stores(self) -> dict[str, float]:
        return self.store_rows_s or {"sqlite": 26_000.0, "postgresql": 20_400.0}

    def threads(self, db: str, writers: int) -> float:
        """Rows/s of `writers` writer threads on the driver (SQLite: one writer, whatever asked)."""
        scale = (self.thread_scaling or THREAD_SCALING).get(db, {1: 1.0})
        known = max((w for w in scale if w <= writers), default=1)
        return self.stores()[db] * scale.get(known, 1.0)


# bench_poll_writers.py, 2026-11-27 (store only, 400 devices): writer threads over the single writer
THREAD_SCALING = {"sqlite": {1: 0.81}, "postgresql": {1: 1.11, 2: 1.13, 4: 1.19}}


def thread_scaling(path: Path) -> dict[str, dict[int, float]]:
    """bench_poll_writers.py's --json: rows/s of W writer threads over the single writer's."""
    store = json.loads(path.read_text())["store"]
    base = {r["store"]: r["rows_per_s"] for r in store if r["writers"] == 0}
    return {db: {r["writers"]: r["rows_per_s"] / base[db] for r in store
                 if r["store"] == db and r["writers"]} for db in base}


def load_costs(path: Path | None, writers: Path | None = None) -> Costs:
    if writers is not None:
        c = load_costs(path)
        c.thread_scaling = thread_scaling(writers)
        return c
    if path is None:
        return Costs()
    raw: dict[str, Any] = json.loads(path.read_text())
    b, p = raw["batch"]["costs"], raw["poll"]
    over: dict[str, Any] = {
        "trace_cpu": b["trace_cpu_ms"] / 1000, "diagnosis_cpu": b["diagnosis_cpu_ms"] / 1000,
        "failing": b["failing"] / b["pairs"], "decode_cpu": p["read_cpu_s"],
        "store_rows_s": {k: v["rows_per_s"] for k, v in p["store"].items()}}
    known = {f.name for f in fields(Costs)}
    return Costs(**{k: v for k, v in over.items() if k in known})


# ---------------------------------------------------------------- batch

def sim_batch(c: Costs, workers: int, pairs: int, rng: random.Random) -> dict[str, float]:
    """Finish time of a batch: actors trace chunks (two queued each), the driver takes results."""
    chunks = math.ceil(pairs / c.chunk)
    free = [(c.actor_start * rng.uniform(0.8, 1.2), w) for w in range(workers)]
    heapq.heapify(free)
    done: list[float] = []
    for i in range(chunks):
        at, w = heapq.heappop(free)
        n = min(c.chunk, pairs - i * c.chunk)
        at += n * c.trace_cpu * rng.lognormvariate(0, 0.25)  # chunks differ: some routes dearer
        done.append(at)
        heapq.heappush(free, (at, w))
    driver = busy = 0.0
    for at in sorted(done):  # the driver: one core, results in the order they finish
        n = c.chunk
        failing = sum(rng.random() < c.failing for _ in range(n))
        cost = n * c.row_cpu + failing * c.diagnosis_cpu
        driver = max(driver, at) + cost
        busy += cost
    workers_end = max(done)
    return {"round_s": driver, "workers_s": workers_end, "driver_busy_s": busy,
            "driver_share": busy / driver, "worker_cpu_s": pairs * c.trace_cpu}


# ---------------------------------------------------------------- poll

def _agent_time(c: Costs, rng: random.Random) -> float:
    if rng.random() < c.slow_share:
        return c.slow_s * rng.uniform(0.5, 1.5)
    return c.agent_s * rng.lognormvariate(0, 0.4)


def _reads(c: Costs, share: list[int], slots: int, rng: random.Random,
           agents: list[float] | None) -> list[float]:
    """Every worker's chunk at once, in time order: `slots` reads in flight per worker; answers
    are decoded on their worker's one core in the order they arrive, and a slot is free again
    once its reading is decoded. Returns when each worker is done."""
    def answer(at: float) -> float:
        if agents is None:  # each device its own agent, answering in parallel with the others
            return at + _agent_time(c, rng)
        k = min(range(len(agents)), key=agents.__getitem__)  # single-threaded simulated agents
        agents[k] = max(agents[k], at) + c.sim_agent_cpu
        return agents[k]

    events: list[tuple[float, int]] = []
    pending, core = list(share), [0.0] * len(share)
    for w, n in enumerate(share):
        for _ in range(min(slots, n)):
            heapq.heappush(events, (answer(0.0), w))
            pending[w] -= 1
    while events:
        at, w = heapq.heappop(events)
        core[w] = max(core[w], at) + c.decode_cpu
        if pending[w]:
            heapq.heappush(events, (answer(core[w]), w))
            pending[w] -= 1
    return core


def sim_poll(c: Costs, workers: int, devices: int, concurrency: int, rng: random.Random,
             sim_agents: int = 0, writers: str = "single") -> dict[str, Any]:
    """One round. `writers`: "single" (the whole round stored after the read, one transaction),
    "threads:W" (per-chunk writers: W threads on the driver store each task's chunk as it
    arrives, sharded by device) or "workers" (each worker stores its own chunk on its own
    connection once read — PostgreSQL only: an SQLite file is one machine's)."""
    share = [devices // workers + (w < devices % workers) for w in range(workers)]
    slots = max(1, math.ceil(concurrency / workers))
    agents = [0.0] * sim_agents if sim_agents else None
    ends = _reads(c, share, slots, rng, agents)
    read_s = max(ends) + devices * c.device_unpickle  # all back on the driver
    out: dict[str, Any] = {"read_s": read_s, "decode_cpu_s": devices * c.decode_cpu}
    for db, rate in c.stores().items():
        rows = devices * c.rows_per_device
        if writers == "single":
            end = read_s + rows / rate
        elif writers == "workers":
            if db == "sqlite":
                continue
            end = max(e + n * c.rows_per_device / rate for e, n in zip(ends, share, strict=True))
        else:
            end = _driver_writers(c, db, int(writers.split(":")[1]), ends, share)
        out[f"store_{db}_s"] = end - read_s if writers != "workers" else rows / rate / workers
        out[f"round_{db}_s"] = max(end, read_s)
    return out


def _driver_writers(c: Costs, db: str, n: int, ends: list[float], share: list[int]) -> float:
    """Chunks arrive as tasks end; each of the n writers takes its shard of every chunk in
    arrival order at its share of the pool's measured rows/s."""
    per_writer = c.threads(db, n) / (1 if db == "sqlite" else n)
    n = 1 if db == "sqlite" else n
    free = [0.0] * n
    for at, count in sorted(zip(ends, share, strict=True)):
        at += count * c.device_unpickle
        for k in range(n):
            free[k] = max(free[k], at) + count * c.rows_per_device / n / per_writer
    return max(free)


# ---------------------------------------------------------------- report

def report(c: Costs, workers: list[int], seed: int) -> str:
    rng = random.Random(seed)
    lines = [f"Costs: {c}", "", "Batch of 1,000,000 pairs (5-minute round: 300 s)", "",
             "| workers | round | actors done | driver busy | driver share | fits 300 s |",
             "| ---: | ---: | ---: | ---: | ---: | --- |"]
    for w in workers:
        r = sim_batch(c, w, 1_000_000, rng)
        lines.append(f"| {w} | {r['round_s']:.0f} s | {r['workers_s']:.0f} s | {r['driver_busy_s']:.0f} s "
                     f"| {r['driver_share']:.0%} | {'yes' if r['round_s'] <= ROUND_S else 'no'} |")
    dbs = list(c.stores())
    lines += ["", "Poll of 10,000 devices (48 ports each; real agents, each device its own), "
              "the single writer", "",
              "| workers | concurrency | read | " + " | ".join(f"store {d} | round {d}" for d in dbs) + " |",
              "| ---: | ---: | ---: | " + " | ".join("---: | ---:" for _ in dbs) + " |"]
    for w in workers:
        for conc in (32, 1024):
            r = sim_poll(c, w, 10_000, conc, rng)
            cells = " | ".join(f"{r[f'store_{d}_s']:.0f} s | {r[f'round_{d}_s']:.0f} s" for d in dbs)
            lines.append(f"| {w} | {conc} | {r['read_s']:.0f} s | {cells} |")
    lines += ["", *fleet(c, rng)]
    lines += ["", "Poll of 10,000 simulated devices against snmpsim-like agents (100 workers, "
              "concurrency 1024)", "", "| agent processes | read |", "| ---: | ---: |"]
    for n in (1, 4, 16, 64):
        lines.append(f"| {n} | {sim_poll(c, 100, 10_000, 1024, rng, sim_agents=n)['read_s']:.0f} s |")
    return "\n".join(lines + ["", *crossovers(c)]) + "\n"


WRITERS = ("single", "threads:2", "threads:4", "workers")
FLEET_WORKERS = (10, 25, 50, 100, 200, 400, 1000)


def fleet(c: Costs, rng: random.Random) -> list[str]:
    """10,000 and 100,000 devices per 5-minute round: the round per writer mode and worker
    count (10 requests in flight per worker), and the fewest workers that fit the round."""
    lines = []
    for devices in (10_000, 100_000):
        lines += [f"Poll of {devices:,} devices per 5-minute round, 10 requests in flight per worker "
                  "(round time, SQLite / PostgreSQL; `workers`: each worker writes its own chunk, "
                  "PostgreSQL only)", "",
                  "| workers | read | " + " | ".join(WRITERS) + " |",
                  "| ---: | ---: | " + " | ".join("---:" for _ in WRITERS) + " |"]
        rows = devices * c.rows_per_device
        need: dict[str, dict[str, int | None]] = {m: {"sqlite": None, "postgresql": None} for m in WRITERS}
        for w in FLEET_WORKERS:
            if devices / w > 2000 or devices / w < 10:
                continue  # a worker's share beyond what one core decodes in a round, or trivial
            cells, read = [], 0.0
            for mode in WRITERS:
                r = sim_poll(c, w, devices, 10 * w, rng, writers=mode)
                read = r["read_s"]
                got = [f"{r[f'round_{d}_s']:.0f}" if f"round_{d}_s" in r else "–"
                       for d in ("sqlite", "postgresql")]
                cells.append(" / ".join(got) + " s")
                for d in ("sqlite", "postgresql"):
                    if need[mode][d] is None and r.get(f"round_{d}_s", 1e9) <= ROUND_S:
                        need[mode][d] = w
            lines.append(f"| {w} | {read:.0f} s | " + " | ".join(cells) + " |")
        lines += ["", f"Fewest workers for {devices:,} devices in 300 s: " + "; ".join(
            f"{mode}: " + ", ".join(f"{d} {v if v else 'none of these'}" for d, v in need[mode].items()
                                    if not (mode == "workers" and d == "sqlite"))
            for mode in WRITERS) + ".",
                  f"- With every worker writing, the PostgreSQL server must take {rows:,.0f} rows a "
                  f"round: at least {rows / ROUND_S:,.0f} rows/s sustained, "
                  f"{rows / ROUND_S / c.stores()['postgresql']:.1f}× what one writer gets here; "
                  "the server's own ceiling is not measured on this 2-core machine (it is shared "
                  "with the readers and the agents), so it is not modelled.", ""]
    return lines


def crossovers(c: Costs) -> list[str]:
    """Where adding workers stops helping: the one driver, and the one store writer."""
    driver = c.row_cpu + c.failing * c.diagnosis_cpu  # the driver's seconds per pair
    out = [f"- Batch: the driver spends {driver * 1e3:.3f} ms per pair against {c.trace_cpu * 1e3:.3f} ms "
           f"on an actor: beyond {c.trace_cpu / driver:.0f} workers the driver is the bottleneck; "
           f"1 M pairs then take >= {1e6 * driver:.0f} s however many workers."]
    for db, rate in c.stores().items():
        store = 10_000 * c.rows_per_device / rate
        out.append(f"- Poll, {db}: the store writer needs {store:.0f} s per 10,000-device round "
                   f"({rate:,.0f} rows/s); decoding ({10_000 * c.decode_cpu:.0f} CPU-s) is shorter than "
                   f"that beyond {10_000 * c.decode_cpu / store:.0f} workers; the writer alone fills "
                   f"the 300 s round at {ROUND_S * rate / c.rows_per_device:,.0f} devices.")
    out.append(f"- Simulated agents: one snmpsim process serves {1 / c.sim_agent_cpu:.0f} devices/s: "
               f"10,000 per round need >= {math.ceil(10_000 * c.sim_agent_cpu / ROUND_S)} of them "
               "busy all the time, more for a short round.")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--costs", type=Path, help="bench_ray.py's --costs JSON (default: built-in figures)")
    ap.add_argument("--writers", type=Path, help="bench_poll_writers.py's --json (writer threads' scaling)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 10, 25, 100])
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print(report(load_costs(a.costs, a.writers), a.workers, a.seed))


if __name__ == "__main__":
    main()
