"""The ingest writer's CPU per event (issue 28 item 1): an earlier commit and this checkout side
by side, in one run, the same events, taking turns.

    .venv/bin/python -m bench.bench_ingest_writer [--base 7a75236] [--events 20000] [--rounds 3]
        [--no-pg] [--out bench/RESULTS.md]

The writer thread is the one stage of `netopsai ingest` that cannot run on more cores (parsing
has worker processes), so its cost per event bounds the rate into the store. Each measurement is
a process of its own with the tree first on PYTHONPATH (the earlier commit unpacked with `git
archive`): the events are parsed first (not timed), the cyclic collector tuned as the ingest
tunes it, then written to an empty SQLite store in batches of 1,000 through the writer's own
transaction (`QueuedWriter._write`), after 2,000 untimed to warm its caches; on PostgreSQL
too (a fresh database each, on the tests' throwaway server) unless `--no-pg`. CPU time is the
thread's (time.thread_time), which a crowded machine inflates less than wall time; on
PostgreSQL the server's processes' CPU for the database is measured beside it (the COPY, the
look-ups, the indexes: work the writer thread waits for, unseen in its own time); the 1-minute
load is given with each round. Both trees write the same events with the same receive time, and
the rows they stored are compared (netopsai_testkit.stores.content), round by round. The
`<!-- ingest-writer:begin -->` section is replaced on re-run."""

from __future__ import annotations

import argparse
import json
import os
import pickle
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
ROOT = HERE.parent
WARM = 2000
NOW = datetime(2026, 11, 23, 3, 0, 30, tzinfo=UTC)
STORED = ("rawevent", "alarm", "interfaceevent")  # what the writer writes, compared across trees


def _server_cpu(engine: Any) -> float:
    """CPU seconds used so far by the PostgreSQL server processes of this database (on this
    machine): the COPY, the look-ups and the indexes are the server's work, not the writer
    thread's. 0 for SQLite (its work is on the writer's thread)."""
    if engine.dialect.name != "postgresql":
        return 0.0
    from sqlalchemy import text

    with engine.connect() as conn:
        pids = [r[0] for r in conn.execute(text(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"))]
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def child(kind: str, data_file: str, url: str) -> None:
    """In the tree under test: parse, then time the writes; one JSON line. `url` "sqlite:PATH"
    writes a SQLite file at PATH (kept, for the store comparison)."""
    import gc

    from netopsai.store.writer import QueuedWriter

    raw: list[bytes] = pickle.loads(Path(data_file).read_bytes())
    now = NOW  # the same receive time in both trees: the same rows
    if kind == "syslog":
        from netopsai.backends.syslog.receiver import SyslogContext, parser

        parse: Any = parser(SyslogContext())
    else:
        from netopsai.backends.traps import ber
        from netopsai.backends.traps.receiver import parser as trap_parser

        parse, raw = trap_parser(), [ber.without_community(t, ber.peek(t)) for t in raw]
    events: list[Any] = [(parse(r, "127.0.0.1", now), None) for r in raw]
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)  # as `netopsai ingest` runs (receivers.tune_gc)
    w = QueuedWriter(f"sqlite:///{url[7:]}" if url.startswith("sqlite:") else url)
    w.feed.close()
    w._thread.join()  # the batches are written here, on this thread
    for i in range(0, WARM, 1000):
        w._write(events[i:i + 1000], None)
    cpu, wall, server = time.thread_time(), time.perf_counter(), _server_cpu(w.engine)
    for i in range(WARM, len(events), 1000):
        w._write(events[i:i + 1000], None)
    n = len(events) - WARM
    out = {"cpu_us": (time.thread_time() - cpu) / n * 1e6,
           "wall_us": (time.perf_counter() - wall) / n * 1e6,
           "server_us": (_server_cpu(w.engine) - server) / n * 1e6, "written": w.stats.written}
    w.stop()
    print(json.dumps(out))


def run_child(tree: Path, kind: str, data_file: Path, url: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    load0 = os.getloadavg()[0]
    got = subprocess.run([sys.executable, str(HERE / "bench_ingest_writer.py"), "--child", kind,
                          str(data_file), url], env=env, cwd=str(tree), capture_output=True,
                         text=True, check=True)
    return {**json.loads(got.stdout.strip().splitlines()[-1]), "load0": load0,
            "load1": os.getloadavg()[0]}


def unpack(rev: str) -> Path:
    dest = Path(tempfile.mkdtemp(prefix=f"bench-writer-{rev}-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


Results = dict[tuple[str, str, str], list[dict[str, float]]]  # (kind, store, tree) -> rounds


def stores(with_pg: bool) -> Any:
    """Makers of an empty store's URL per measurement ("sqlite": the child makes its own)."""
    from bench import empty_stores  # here: the child runs this file as a script, without bench

    return empty_stores(with_pg, "writer", lambda path: f"sqlite:{path}")


def stored(url: str) -> dict[str, list[tuple[str, ...]]]:
    """What a child wrote: the writer's tables' rows, without their ids (netopsai_testkit)."""
    from sqlalchemy import create_engine

    from netopsai_testkit.stores import content

    engine = create_engine(f"sqlite:///{url[7:]}" if url.startswith("sqlite:") else url)
    try:
        return content(engine, STORED)
    finally:
        engine.dispose()


def render(res: Results, a: argparse.Namespace) -> str:
    from bench.bench_foundation import _machine

    m = _machine()
    lines = ["## The ingest writer's CPU per event (issue 28 item 1): before and after, side by side",
             "", f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; this checkout {m['rev']}, before = "
             f"{a.base}; `.venv/bin/python -m bench.bench_ingest_writer --base {a.base} --events "
             f"{a.events} --rounds {a.rounds}`",
             f"- Machine: {m['cpu']}, {m['cores']} cores; Python {m['python']}; SQLite {m['sqlite']};"
             " shared with other engineers' runs (1-minute load below). The same events for both "
             f"trees, {a.events - WARM:,} timed per round after {WARM:,} untimed, batches of 1,000, "
             "an empty store each (a SQLite file, a PostgreSQL database); the trees take turns, round "
             "by round.", "",
             "| events | store | tree | writer CPU µs/event (min / median) | one core "
             "| server CPU µs/event (median) | wall µs/event (min) | load (1-min, min–max) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for (kind, store, tree), runs in res.items():
        cpu = [r["cpu_us"] for r in runs]
        loads = [r["load0"] for r in runs] + [r["load1"] for r in runs]
        lines.append(f"| {kind} | {store} | {tree} | {min(cpu):.1f} / {statistics.median(cpu):.1f} | "
                     f"{1e6 / min(cpu):,.0f}/s | "
                     f"{statistics.median(r.get('server_us', 0.0) for r in runs):.1f} | "
                     f"{min(r['wall_us'] for r in runs):.1f} | "
                     f"{min(loads):.1f}–{max(loads):.1f} |")
    return "\n".join(lines + [""])


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    from bench.bench_foundation import write_section
    from bench.bench_ingest import _syslog, _trap

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="7a75236", help="the commit to compare with")
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kinds", nargs="+", default=["syslog", "trap"])
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    trees = {f"before ({a.base})": unpack(a.base), "this checkout": ROOT}
    res: Results = {}
    same: dict[tuple[str, str], list[bool]] = {}  # (kind, store) -> each round's rows equal
    with tempfile.TemporaryDirectory(prefix="bench-writer-data-") as tmp, \
            stores(not a.no_pg) as makers:
        for kind in a.kinds:
            make = _syslog if kind == "syslog" else _trap
            data = Path(tmp) / f"{kind}.pickle"
            data.write_bytes(pickle.dumps([make(i) for i in range(a.events)]))
            for store, new_url in makers.items():
                for _ in range(a.rounds):
                    rows = []
                    for name, tree in trees.items():
                        url = new_url()
                        got = run_child(tree, kind, data, url)
                        rows.append(stored(url))
                        print(kind, store, name, got, flush=True)
                        res.setdefault((kind, store, name), []).append(got)
                    same.setdefault((kind, store), []).append(rows[0] == rows[-1])
    shutil.rmtree(trees[f"before ({a.base})"], ignore_errors=True)
    body = render(res, a) + "".join(
        f"\n- {kind} into {store}: the stored rows ({', '.join(STORED)}; without ids) of both trees "
        f"{'equal' if all(ok) else 'DIFFERENT'} in {sum(ok)} of {len(ok)} rounds"
        for (kind, store), ok in same.items()) + "\n"
    print(body)
    write_section(a.out, "ingest-writer", body)


if __name__ == "__main__":
    main()
