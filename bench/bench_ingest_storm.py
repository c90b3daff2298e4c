"""Ingest at storm rate (issue 28 item 1): syslog and traps into the spool and into the store,
this checkout side by side with an earlier commit, in one run, on loopback.

    .venv/bin/python -m bench.bench_ingest_storm [--base e47b4d3] [--burst-rate 50000]
        [--burst-seconds 10] [--sustained 30000] [--traps 10000] [--no-pg] [--out bench/RESULTS.md]

Each ingest runs in a process of its own (bench/ingest_harness.py; the earlier commit's tree is
unpacked with `git archive` and put first on PYTHONPATH), its spool in a temporary folder, with
an empty store; this process is the sender, so the two do not share an interpreter.

- Burst: datagrams sent at `--burst-rate` per second for `--burst-seconds` (paced per
  millisecond; the rate the sender reached is shown), then: taken into the spool (the
  receiver's own count), dropped by the kernel (the socket's `drops` in /proc/net/udp), and
  how long the store took to catch up with what was taken in.
- Sustained: `--sustained` syslog datagrams (half raising alarms, as bench_ingest.py's) or
  `--traps` SNMPv2c linkDown traps, sent in bursts of 2,000 each waiting until the receiver took
  the last one in (no kernel drops), timed from the first sent to the last one written: the
  rate the whole pipeline sustains into SQLite and PostgreSQL, and the CPU per event of each
  part of it (the writer thread, the ingest's other threads, the parse workers, the PostgreSQL
  server's processes for its database): what bounds the rate on this machine's cores.

The trees take turns, measurement by measurement.

The 1-minute load average is recorded before and after every measurement: the machine is shared.
The `<!-- ingest-storm:begin -->` section of the results file is replaced on re-run."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
from bench import empty_stores  # noqa: E402
from bench.bench_foundation import _machine, write_section  # noqa: E402
from bench.bench_ingest import _syslog, _trap  # noqa: E402
from bench.ingest_stages import render_stages, stage_costs  # noqa: E402


class Harness:
    """One ingest process: `stats()` asks for its counters, `stop()` ends it."""

    def __init__(self, tree: Path, url: str, spool: Path, workers: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.proc = subprocess.Popen([sys.executable, str(HERE / "ingest_harness.py"), url,
                                      str(spool), str(workers)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=str(tree))
        assert self.proc.stdout is not None
        self.ports: dict[str, int] = json.loads(self.proc.stdout.readline())
        self.writer_tid = self.ports.pop("writer_tid", None)

    def stats(self) -> dict[str, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def stop(self) -> dict[str, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("stop\n")
        self.proc.stdin.flush()
        last = dict(json.loads(self.proc.stdout.readline()))
        self.proc.wait(600)
        return last


def kernel_drops(port: int) -> int:
    """The kernel's drop count for the UDP socket bound to `port` (loopback, IPv4)."""
    for line in Path("/proc/net/udp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port:
            return int(fields[12])
    return 0


@contextmanager
def running(tree: Path, url: str, workers: int) -> Iterator[Harness]:
    with tempfile.TemporaryDirectory(prefix="bench-storm-spool-") as spool:
        h = Harness(tree, url, Path(spool), workers)
        try:
            yield h
        finally:
            if h.proc.poll() is None:
                h.stop()


def _wait(h: Harness, key: str, target: int, timeout: float, still: float | None = None,
          poll: float = 0.1) -> dict[str, float]:
    """Poll until counter `key` reaches `target` (or, with `still`, stops growing for that
    long); the last counters."""
    end, last, since = time.monotonic() + timeout, -1.0, time.monotonic()
    while True:
        st = h.stats()
        if st[key] >= target or time.monotonic() > end:
            return st
        if still is not None:
            if st[key] != last:
                last, since = st[key], time.monotonic()
            elif time.monotonic() - since > still:
                return st
        time.sleep(poll)


def paced_send(port: int, datagrams: list[bytes], rate: float) -> tuple[int, float]:
    """Send at `rate` per second (per millisecond tick); (sent, seconds)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dest, sent, n = ("127.0.0.1", port), 0, len(datagrams)
    t0 = time.perf_counter()
    while sent < n:
        due = min(n, int((time.perf_counter() - t0) * rate) + 1)
        while sent < due:
            sock.sendto(datagrams[sent], dest)
            sent += 1
        time.sleep(0.0005)
    sock.close()
    return sent, time.perf_counter() - t0


def burst(tree: Path, url: str, workers: int, rate: float, seconds: float,
          catch_up: float) -> dict[str, Any]:
    data = [_syslog(i) for i in range(int(rate * seconds))]
    load0 = os.getloadavg()[0]
    with running(tree, url, workers) as h:
        port = h.ports["syslog"]
        drops0 = kernel_drops(port)
        sent, took = paced_send(port, data, rate)
        st = _wait(h, "syslog", sent, 60, still=2.0)
        drops = kernel_drops(port) - drops0
        taken = int(st["syslog"])
        t_first = st["t"] - 2.0 - took  # the burst's first datagram
        done = _wait(h, "written", taken, catch_up, still=30.0)
    return {"sent": sent, "send_rate": sent / took, "taken": taken, "drops": drops,
            "written": int(done["written"]), "store_rate": done["written"] / (done["t"] - t_first),
            "load": (load0, os.getloadavg()[0])}


POLL_S = 0.01  # the sustained runs' polling of the ingest's counters


def sustained(tree: Path, url: str, workers: int, kind: str, n: int) -> dict[str, Any]:
    data = [_syslog(i) for i in range(n)] if kind == "syslog" else [_trap(i) for i in range(n)]
    key = "syslog" if kind == "syslog" else "traps"
    load0 = os.getloadavg()[0]
    with running(tree, url, workers) as h:
        port = h.ports["syslog" if kind == "syslog" else "trap"]
        drops0 = kernel_drops(port)
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        cpu0 = pipeline_cpu(h, url)
        t0 = time.time()
        for start in range(0, n, 2000):
            for d in data[start:start + 2000]:
                sock.sendto(d, ("127.0.0.1", port))
            # polled finely: a run of 10,000 takes ~1 s, and at 0.1 s a poll the sender idled
            # up to 0.1 s a chunk and the last write was seen up to 0.1 s late (~10 % of the rate)
            _wait(h, key, min(n, start + 2000), 300, poll=POLL_S)
        sock.close()
        done = _wait(h, "written", n, 1800, still=60.0, poll=POLL_S)
        cpu1 = pipeline_cpu(h, url)
        drops = kernel_drops(port) - drops0
    cpu = {part: (cpu1[part] - cpu0.get(part, 0.0)) / n * 1e6 for part in cpu1}
    return {"n": n, "written": int(done["written"]), "rate": done["written"] / (done["t"] - t0),
            "drops": drops, "load": (load0, os.getloadavg()[0]), "cpu_us": cpu}


def _proc_cpu(path: str) -> float:
    """utime + stime of a /proc stat file, in seconds (0 once the process is gone)."""
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pipeline_cpu(h: Harness, url: str) -> dict[str, float]:
    """CPU seconds so far of each part of the pipeline on this machine: the ingest's writer
    thread, its other threads (receiving, spooling, reading the spool back, handing batches to
    the workers), its parse workers, and the PostgreSQL server processes serving its database
    (the COPY, the look-ups, the indexes: work the writer waits for, unseen in its own time)."""
    pid = h.proc.pid
    whole = _proc_cpu(f"/proc/{pid}/stat")
    writer = _proc_cpu(f"/proc/{pid}/task/{h.writer_tid}/stat") if h.writer_tid else 0.0
    kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    out = {"writer thread": writer, "other ingest threads": whole - writer,
           "parse workers": sum(_proc_cpu(f"/proc/{k}/stat") for k in kids)}
    if url.startswith("postgresql"):
        db = url.rsplit("/", 1)[1]
        servers = [p for p in Path("/proc").glob("[0-9]*")
                   if _cmdline(p).startswith(f"postgres: netopsai {db} ")]
        out["PostgreSQL server"] = sum(_proc_cpu(f"{p}/stat") for p in servers)
    return out


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def unpack(rev: str) -> Path:
    """The tree at `rev`, unpacked into a temporary folder."""
    dest = Path(tempfile.mkdtemp(prefix=f"bench-storm-{rev}-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def stores(with_pg: bool) -> Any:
    """Makers of empty stores: SQLite files, PostgreSQL databases on one server."""
    return empty_stores(with_pg, "storm", lambda path: f"sqlite:///{path}")


def measure(trees: dict[str, tuple[Path, int]], a: argparse.Namespace,
            makers: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every measurement for each tree (its path, its parsing workers), the trees taking turns
    measurement by measurement, so a change in the machine's load falls on both alike."""
    res: dict[str, dict[str, Any]] = {name: {} for name in trees}
    steps: list[tuple[str, Any]] = [("burst", lambda tree, workers: burst(
        tree, makers["sqlite"](), workers, a.burst_rate, a.burst_seconds, a.catch_up))]
    for store, make in makers.items():
        steps.append((f"syslog {store}", lambda tree, workers, make=make: sustained(
            tree, make(), workers, "syslog", a.sustained)))
        steps.append((f"traps {store}", lambda tree, workers, make=make: sustained(
            tree, make(), workers, "trap", a.traps)))
    for key, run in steps:
        for name, (tree, workers) in trees.items():
            res[name][key] = run(tree, workers)
            print(name, key, res[name][key], flush=True)
    return res


def _load(r: dict[str, Any]) -> str:
    return f"load {r['load'][0]:.1f}→{r['load'][1]:.1f}"


def render(res: dict[str, dict[str, Any]], a: argparse.Namespace) -> str:
    m = _machine()
    names = list(res)
    lines = [
        "## Ingest at storm rate (issue 28 item 1): before and after, side by side", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; this checkout {m['rev']}, before = "
        f"{a.base}; `.venv/bin/python -m bench.bench_ingest_storm` "
        f"--burst-rate {a.burst_rate:.0f} --burst-seconds {a.burst_seconds:.0f} "
        f"--sustained {a.sustained} --traps {a.traps}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; SQLite "
        f"{m['sqlite']}; shared with other engineers' test runs: the 1-minute load average is "
        "given with each figure (before→after the measurement).",
        "- Each ingest in its own process (spool on, as `netopsai ingest` runs; this checkout "
        f"with {a.workers} parsing worker(s)), the sender in another. Burst: paced sends, then "
        "what the receiver took into its spool, what the kernel dropped (/proc/net/udp), and the "
        "rate the store caught up at (first datagram to last written, "
        f"waiting at most {a.catch_up:.0f} s). Sustained: bursts of 2,000 each taken in before the "
        "next (no kernel drops), first sent to last written.", "",
        "| measurement | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    b = {n: r["burst"] for n, r in res.items()}
    lines.append(f"| burst: sent ({a.burst_rate:,.0f}/s × {a.burst_seconds:.0f} s asked) | " + " | ".join(
        f"{r['sent']:,} at {r['send_rate']:,.0f}/s" for r in b.values()) + " |")
    lines.append("| burst: taken into the spool / kernel drops | " + " | ".join(
        f"{r['taken']:,} / {r['drops']:,} ({_load(r)})" for r in b.values()) + " |")
    lines.append("| burst: stored, at | " + " | ".join(
        f"{r['written']:,} at {r['store_rate']:,.0f}/s" for r in b.values()) + " |")
    for key in [k for k in res[names[0]] if k != "burst"]:
        lines.append(f"| {key}: sustained ({res[names[0]][key]['n']:,}) | " + " | ".join(
            f"{r[key]['rate']:,.0f}/s ({r[key]['written']:,} written, {r[key]['drops']} drops; "
            f"{_load(r[key])})" for r in res.values()) + " |")
    parts = ["writer thread", "other ingest threads", "parse workers", "PostgreSQL server"]
    lines += ["", "CPU per event of each part of the pipeline in the sustained runs above (µs; "
              "/proc, every process and thread on this machine; the sum bounds the rate on "
              f"{os.cpu_count()} cores at {os.cpu_count()} × 10⁶ ÷ it):", "",
              "| measurement | tree | " + " | ".join(parts) + " | sum | bound on all cores |",
              "| --- | --- |" + " ---: |" * (len(parts) + 2)]
    for key in [k for k in res[names[0]] if k != "burst"]:
        for name, r in res.items():
            cpu = r[key].get("cpu_us", {})
            total = sum(cpu.values())
            bound = f"{(os.cpu_count() or 1) * 1e6 / total:,.0f}/s" if total else "–"
            lines.append(f"| {key} | {name} | " + " | ".join(
                f"{cpu[p]:.1f}" if p in cpu else "–" for p in parts) + f" | {total:.1f} | {bound} |")
    return "\n".join(lines + [""])


def main() -> None:
    from netopsai.store.parsing import default_workers

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="e47b4d3", help="the commit to compare with")
    ap.add_argument("--burst-rate", type=float, default=50_000)
    ap.add_argument("--burst-seconds", type=float, default=10)
    ap.add_argument("--catch-up", type=float, default=60, help="seconds to wait for the store")
    ap.add_argument("--sustained", type=int, default=30_000)
    ap.add_argument("--traps", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=default_workers())
    ap.add_argument("--base-workers", type=int, default=0,
                    help="parsing workers of the earlier commit (0: it parses in the writer's thread; "
                         "commits before 7a75236 have no workers)")
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--no-base", action="store_true")
    ap.add_argument("--stages-only", action="store_true", help="only the CPU per stage")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    res: dict[str, dict[str, Any]] = {}
    with stores(not a.no_pg) as makers:
        load0 = os.getloadavg()[0]
        stages = render_stages(stage_costs(makers), (load0, os.getloadavg()[0]))
        print(stages, flush=True)
        if a.stages_only:
            return
        trees = {} if a.no_base else {f"before ({a.base})": (unpack(a.base), a.base_workers)}
        trees["this checkout"] = (ROOT, a.workers)
        try:
            res = measure(trees, a, makers)
        finally:
            for tree, _ in trees.values():
                if tree != ROOT:
                    shutil.rmtree(tree, ignore_errors=True)  # the unpacked earlier commit
    body = render(res, a) + stages
    print(body)
    write_section(a.out, "ingest-storm", body)


if __name__ == "__main__":
    main()
