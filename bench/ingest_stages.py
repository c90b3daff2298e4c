"""The ingest's CPU per event by stage, measured inside one process by thread CPU time (not
wall: the machine is shared): the receiving thread draining a socket, the syslog and trap parse,
the writer's unpickling and its transaction work per store (and on PostgreSQL the server's
share). bench_ingest_storm prints these beside its whole-pipeline runs."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.bench_ingest import _syslog, _trap


def _thread_cpu(native_id: int) -> float:
    """CPU seconds a thread of this process has used (utime + stime)."""
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def receive_cost(n: int) -> float:
    """CPU µs per datagram of the receiving thread (drain the socket; spooling excluded)."""
    from netopsai.backends.udp import UdpIntake

    intake = UdpIntake("bench", "127.0.0.1", 0, len)
    intake.start()
    assert intake._thread is not None and intake._thread.native_id is not None
    cpu0 = _thread_cpu(intake._thread.native_id)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for i in range(n):
            sock.sendto(_syslog(i), ("127.0.0.1", intake.port))
    while intake.received < n:
        time.sleep(0.05)
    cost = (_thread_cpu(intake._thread.native_id) - cpu0) / n * 1e6
    intake.stop()
    return cost


def kind_costs(kind: str, parse: Callable[[bytes, str, datetime], Any], raw: list[bytes],
               makers: dict[str, Any]) -> dict[str, float]:
    """CPU µs per event: parsing, the writer's unpickling, its transaction work per store."""
    import pickle

    from bench.bench_ingest_writer import _server_cpu
    from netopsai.store.writer import QueuedWriter

    n, now, out = len(raw), datetime.now(UTC), {}
    t = time.thread_time()
    events = [parse(r, "127.0.0.1", now) for r in raw]
    out[f"parse, {kind}"] = (time.thread_time() - t) / n * 1e6
    blob = pickle.dumps(events)
    t = time.thread_time()
    events = pickle.loads(blob)
    out[f"unpickle in the writer, {kind}"] = (time.thread_time() - t) / n * 1e6
    for store, make in makers.items():
        w = QueuedWriter(make())
        w.feed.close()
        w._thread.join()
        t, server = time.thread_time(), _server_cpu(w.engine)
        for i in range(0, n, 1000):
            w._write([(e, None) for e in events[i:i + 1000]], None)
        out[f"write, {kind}, {store} (the writer's thread)"] = (time.thread_time() - t) / n * 1e6
        if store == "postgresql":  # the server's share: COPY, look-ups, indexes
            out[f"write, {kind}, {store} (the server)"] = (_server_cpu(w.engine) - server) / n * 1e6
        w.stop()
    return out


def stage_costs(makers: dict[str, Any], n: int = 20_000) -> dict[str, float]:
    """CPU µs per event of each stage, this checkout, measured in this process by thread CPU
    time (not wall: the machine is shared)."""
    from netopsai.backends.syslog.receiver import SyslogContext, parser
    from netopsai.backends.traps import ber
    from netopsai.backends.traps.receiver import parser as trap_parser

    traps = [_trap(i) for i in range(n)]
    return {"receive (drain a socket; spool encoding excluded)": receive_cost(n),
            **kind_costs("syslog", parser(SyslogContext()), [_syslog(i) for i in range(n)], makers),
            **kind_costs("trap", trap_parser(), [ber.without_community(t, ber.peek(t)) for t in traps],
                         makers)}


def render_stages(costs: dict[str, float], load: tuple[float, float]) -> str:
    lines = ["", f"CPU per event by stage, this checkout (thread CPU time, {20_000:,} events each; "
             f"load {load[0]:.1f}→{load[1]:.1f}; CPU time is inflated too on a crowded machine, "
             "less than wall time), and the rate one core given to that stage alone would reach:", "",
             "| stage | CPU µs / event | one core |", "| --- | ---: | ---: |"]
    lines += [f"| {k} | {v:.1f} | {1e6 / v:,.0f}/s |" for k, v in costs.items()]
    return "\n".join(lines + [""])
