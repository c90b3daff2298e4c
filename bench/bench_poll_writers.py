"""Poll writers benchmark (issue 28 §2): the single store writer against per-chunk writers, side
by side in one run, on SQLite and PostgreSQL, with 1, 2 and 4 snmpsim processes.

    .venv/bin/python -m bench.bench_poll_writers [--devices 120] [--agents 1 2 4]
        [--store-devices 1000] [--writers 1 2 4 8] [--out bench/RESULTS.md] [--json FILE]

Rounds: `--devices` generated 48-port agents spread over N snmpsim processes; for each store
and each path a fresh store gets two rounds (the second writes counter samples, as every
round after the first does) and the second is measured. The single writer is
`poll_and_store(writers=0)`: read the round, then store_readings in one transaction. The
per-chunk writers are `poll_and_store`'s default (backends/snmp/writers.py): chunks stored while
the round is read. "Writer after the read" is the time from the last reading to the end of the
round — what the store adds to the round; "writer busy" is the writers' own time.
Store only: the first round's readings, cloned to `--store-devices` devices, written twice
(round 2 with samples) by the single writer and by 1..N parallel writers fed the whole round at
once; rows/s of round 2, and the store's rows compared with the single writer's (ids aside).
Writes the `<!-- poll-writers:begin -->` section of the results file (appended the first time)."""

from __future__ import annotations

import argparse
import copy
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.bench_foundation import _machine, write_section
from netopsai_testkit.stores import content

HERE = Path(__file__).resolve().parent

CONCURRENCY, TIMEOUT = 32, 30.0


@contextmanager
def agents(devices: int, n: int) -> Iterator[list[Any]]:
    """`devices` generated 48-port agents over `n` snmpsim processes (round robin)."""
    from pydantic import SecretStr

    from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
    from netopsai_testkit.peers.snmpsim import Agent, ports, start_snmpsim

    shares = [{f"bench/dev{i:04d}": Agent(sys_name=f"bench-dev-{i:04d}", ports=ports(48))
               for i in range(k, devices, n)} for k in range(n)]
    gens = [start_snmpsim((), share) for share in shares]
    try:
        sims = [next(g) for g in gens]
        yield [SnmpTarget(host="127.0.0.1", port=sim.port, auth=SnmpAuth(community=SecretStr(c)))
               for sim, share in zip(sims, shares, strict=True) for c in share]
    finally:
        for g in gens:
            next(g, None)


@contextmanager
def stores() -> Iterator[Callable[[str], tuple[str, str]]]:
    """fresh(name) -> (database kind, URL): a new SQLite file or PostgreSQL database each time."""
    from netopsai_testkit.peers.postgres import fresh_database, postgres_server, skip_reason

    with tempfile.TemporaryDirectory(prefix="netopsai-bench-pw-") as tmp:
        pg = postgres_server() if skip_reason() is None else None
        url = pg.__enter__() if pg else None
        count = iter(range(10**6))
        try:
            def fresh(kind: str) -> tuple[str, str]:
                k = next(count)
                if kind == "sqlite":
                    return kind, f"sqlite:///{tmp}/s{k}.db"
                assert url is not None
                return kind, fresh_database(url, f"pw{k}")
            yield fresh
        finally:
            if pg:
                pg.__exit__(None, None, None)


def kinds() -> list[str]:
    from netopsai_testkit.peers.postgres import skip_reason

    return ["sqlite"] + (["postgresql"] if skip_reason() is None else [])


def _engine(url: str) -> Any:
    from netopsai.backends.snmp.poller import ensure_real_store
    from netopsai.store.engine import engine_for

    engine = engine_for(url)
    ensure_real_store(engine)
    return engine


# ---------------------------------------------------------------- rounds against snmpsim

def one_round(engine: Any, ts: list[Any], writers: int) -> dict[str, float]:
    """poll_and_store's two paths, timed inside: the read, and what the writing adds after it."""
    from netopsai.backends.snmp.poller import store_readings
    from netopsai.backends.snmp.walk import poll_targets
    from netopsai.backends.snmp.writers import PollWriters

    t0 = time.perf_counter()
    if writers == 0:
        readings = poll_targets(ts, CONCURRENCY, TIMEOUT, 1)
        t_read = time.perf_counter()
        rep, busy = store_readings(engine, readings, 0), None
    else:
        with PollWriters(engine, len(ts), writers, 0) as w:
            readings = poll_targets(ts, CONCURRENCY, TIMEOUT, 1, on_reading=w.feed)
            t_read = time.perf_counter()
            rep = w.close(readings)
            busy = sum(w.busy)
    end = time.perf_counter()
    assert not rep.failures, list(rep.failures.values())[:3]
    after = end - t_read
    return {"wall": end - t0, "read": t_read - t0, "after": after,
            "busy": after if busy is None else busy, "samples": rep.samples}


def bench_rounds(a: argparse.Namespace, n_agents: int, fresh: Callable[[str], tuple[str, str]],
                 keep: list[Any]) -> list[dict[str, Any]]:
    from netopsai.backends.snmp.walk import poll_targets
    from netopsai.backends.snmp.writers import PG_WRITERS

    out = []
    with agents(a.devices, n_agents) as ts:
        warm = poll_targets(ts, CONCURRENCY, TIMEOUT, 1)  # snmpsim indexes a recording when first asked
        keep[:] = keep or warm
        for kind in kinds():
            paths = {"single writer": 0, "per-chunk writers": 1 if kind == "sqlite" else PG_WRITERS}
            for label, writers in paths.items():  # one after the other, same agents, same load
                engine = _engine(fresh(kind)[1])
                one_round(engine, ts, writers)
                r = one_round(engine, ts, writers) | {"agents": n_agents, "store": kind,
                                                      "path": label, "writers": writers}
                engine.dispose()
                print(f"[round] {r}", flush=True)
                out.append(r)
    return out


# ---------------------------------------------------------------- store only

def clones(readings: list[Any], n: int) -> list[Any]:
    """`n` devices' readings from the ones read: the same answers under other device names."""
    out = []
    for k in range(n):
        r = copy.copy(readings[k % len(readings)])
        r.target = r.target.model_copy(update={"name": f"clone-{k:05d}"})
        out.append(r)
    return out


def later(readings: list[Any]) -> list[Any]:
    out = []
    for r in readings:
        r2 = copy.copy(r)
        r2.at = r.at + timedelta(minutes=5)
        r2.interfaces = {i: copy.copy(x) for i, x in r.interfaces.items()}
        for x in r2.interfaces.values():
            x.in_octets = (x.in_octets or 0) + 12_345
            x.out_octets = (x.out_octets or 0) + 6_789
        out.append(r2)
    return out


def store_only(a: argparse.Namespace, readings: list[Any],
               fresh: Callable[[str], tuple[str, str]]) -> list[dict[str, Any]]:
    from netopsai.backends.snmp.poller import store_readings
    from netopsai.backends.snmp.writers import PollWriters

    first = clones(readings, a.store_devices)
    second = later(first)
    out = []
    for kind in kinds():
        reference = None
        for writers in [0, *(w for w in a.writers if kind != "sqlite" or w == 1)]:
            engine = _engine(fresh(kind)[1])
            times = []
            for rnd in (first, second):
                t0 = time.perf_counter()
                if writers == 0:
                    rep = store_readings(engine, rnd, 0)
                else:
                    with PollWriters(engine, len(rnd), writers, 0) as w:
                        for i, r in enumerate(rnd):
                            w.feed(i, r)
                        rep = w.close(rnd)
                times.append(time.perf_counter() - t0)
            rows = rep.interfaces * 2 + rep.samples  # interface upserts, counter states, samples
            got = content(engine)
            engine.dispose()
            reference = reference or got
            r = {"store": kind, "writers": writers, "round1": times[0], "round2": times[1],
                 "rows": rows, "rows_per_s": rows / times[1], "same": got == reference}
            print(f"[store] {r}", flush=True)
            out.append(r)
    return out


# ---------------------------------------------------------------- report

def render(a: argparse.Namespace, rounds: list[dict[str, Any]], store: list[dict[str, Any]],
           load: tuple[float, float]) -> str:
    m = _machine()
    lines = [
        f"## Poll writers: the single writer against per-chunk writers ({a.devices} devices, "
        "48 ports)", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}; "
        f"`bench/bench_poll_writers.py --devices {a.devices} --agents {' '.join(map(str, a.agents))} "
        f"--store-devices {a.store_devices}`",
        f"- Machine: {m['cpu']}, nproc {len(os.sched_getaffinity(0))}, {m['ram']}; Python {m['python']}; "
        f"1-min load {load[0]:.2f} before, {load[1]:.2f} after (shared with other work)",
        f"- Second round of two into a fresh store (counter samples written), concurrency {CONCURRENCY}; "
        "both paths one after the other against the same agents. Per-chunk writers: one thread on "
        "SQLite (its one write lock), sharded by device on PostgreSQL; chunks of "
        f"{min(50, max(1, a.devices // 16))} devices (50 at most; a sixteenth of a small round). "
        "\"Writer busy\" is the writers' wall time in their transactions, which includes waiting "
        "for the GIL while the reader decodes.", "",
        "| snmpsim processes | store | path | round | read | writer after the read | writer busy | "
        "writer's share of the round |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rounds:
        lines.append(f"| {r['agents']} | {r['store']} | {r['path']} ({r['writers']}) | {r['wall']:.2f} s | "
                     f"{r['read']:.2f} s | {r['after']:.2f} s | {r['busy']:.2f} s | "
                     f"{r['after'] / r['wall']:.0%} |")
    lines += ["", f"Store only: {a.store_devices:,} devices (the read answers under other names), "
              "round 2 (interface upserts, counter states and samples: 144 rows a device); "
              "writers fed the whole round at once.", "",
              "| store | writers | round 2 | rows/s | vs single writer | rows equal the single writer's |",
              "| --- | ---: | ---: | ---: | ---: | --- |"]
    base = {r["store"]: r["rows_per_s"] for r in store if r["writers"] == 0}
    for r in store:
        who = "single writer" if r["writers"] == 0 else str(r["writers"])
        lines.append(f"| {r['store']} | {who} | {r['round2']:.2f} s | {r['rows_per_s']:,.0f} | "
                     f"{r['rows_per_s'] / base[r['store']]:.2f}× | {'yes' if r['same'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", type=int, default=120)
    ap.add_argument("--agents", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--store-devices", type=int, default=1000)
    ap.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--json", type=Path, help="also write the raw figures here")
    a = ap.parse_args()
    load0 = os.getloadavg()[0]
    rounds: list[dict[str, Any]] = []
    readings: list[Any] = []
    with stores() as fresh:
        for n in a.agents:
            rounds += bench_rounds(a, n, fresh, readings)
        store = store_only(a, readings, fresh)
    load = (load0, os.getloadavg()[0])
    if a.json:
        a.json.write_text(json.dumps({"rounds": rounds, "store": store, "load": load}, indent=2) + "\n")
    body = render(a, rounds, store, load)
    print(body)
    write_section(a.out, "poll-writers", body)


if __name__ == "__main__":
    main()
