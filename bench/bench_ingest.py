"""Ingest benchmark (issue 5 §3): how fast `netopsai ingest`'s receivers get events into the
store, and how long a backlog takes to drain after the store was locked.

    .venv/bin/python -m bench.bench_ingest [--syslog 20000] [--traps 2000] [--alerts 2000]

An empty SQLite store in a temporary directory; the receivers on free loopback ports in this
process (BackgroundIngest); senders in this process too. Syslog: distinct datagrams (half vendor
link messages that raise alarms, half lines we do not parse) sent in bursts of 500, each burst
waiting until the receiver took it in, so the kernel buffer never overflows and the figure is
the pipeline's, not the sender's. Traps: BER-encoded SNMPv2c linkDown traps, same bursts.
Alertmanager: POSTs of 20 firing alerts each, one connection at a time. Lock: the store's
write lock is held by another connection while 2,000 syslog lines arrive; then released, and the
time to drain the backlog is measured. Each is run three ways in one go: events queued in memory
only, through the write-ahead spool (on disk before acknowledged; what `netopsai ingest` does),
and the spool with a disk flush per event (`--fsync`). The `<!-- ingest:begin -->` section of the results file
is replaced on re-run.
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
from pydantic import SecretStr

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402
from netopsai.backends.receivers import BackgroundIngest, Ingest, IngestSettings  # noqa: E402

BURST = 500


def _syslog(i: int) -> bytes:
    if i % 2:
        return f"<190>Nov 23 03:00:00 leaf{i % 50} Sysdb: %SYS-6-LOGMSG_INFO: note {i}".encode()
    return (f"<187>{i}: Nov 23 03:00:00.000 UTC: %LINK-3-UPDOWN: Interface Ethernet{i}/1, "
            "changed state to down").encode()


def _trap(i: int) -> bytes:
    from pyasn1.codec.ber import encoder
    from pysnmp.proto import api
    from pysnmp.proto.rfc1902 import ObjectName, OctetString, TimeTicks

    proto = api.PROTOCOL_MODULES[api.SNMP_VERSION_2C]
    pdu = proto.SNMPv2TrapPDU()
    proto.apiTrapPDU.set_defaults(pdu)
    proto.apiPDU.set_request_id(pdu, i)
    proto.apiPDU.set_varbinds(pdu, [
        (ObjectName("1.3.6.1.2.1.1.3.0"), TimeTicks(i)),
        (ObjectName("1.3.6.1.6.3.1.1.4.1.0"), ObjectName("1.3.6.1.6.3.1.1.5.3")),
        (ObjectName(f"1.3.6.1.2.1.2.2.1.2.{i}"), OctetString(f"Ethernet{i}")),
        (ObjectName("1.3.6.1.2.1.1.5.0"), OctetString(f"edge-{i % 20}"))])
    msg = proto.Message()
    proto.apiMessage.set_defaults(msg)
    proto.apiMessage.set_community(msg, "bench")
    proto.apiMessage.set_pdu(msg, pdu)
    return bytes(encoder.encode(msg))


def _udp_run(ing: Ingest, port: int, datagrams: list[bytes], received: Callable[[], int]) -> float:
    """Seconds from the first datagram to the last one stored."""
    assert ing.writer is not None
    base = ing.writer.stats.received
    t0 = time.perf_counter()
    _send_bursts(port, datagrams, received)
    _wait(lambda: ing.writer is not None and ing.writer.stats.received >= base + len(datagrams), 120)
    ing.writer.wait_idle(600)
    return time.perf_counter() - t0


def _wait(pred: Callable[[], bool], timeout: float) -> None:
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise SystemExit("benchmark stalled: events went missing")
        time.sleep(0.002)


def _alerts(ing: Ingest, n: int) -> float:
    assert ing.webhook is not None and ing.writer is not None
    base = ing.writer.stats.received
    url = f"http://127.0.0.1:{ing.webhook.port}/"
    t0 = time.perf_counter()
    with httpx.Client() as client:
        for start in range(0, n, 20):
            alerts = [{"status": "firing", "labels": {"alertname": "PortDown", "device": f"d{i % 40}",
                                                      "ifName": f"Ethernet{i}"},
                       "startsAt": "2026-11-23T03:00:00Z", "fingerprint": f"fp{i}"}
                      for i in range(start, min(start + 20, n))]
            client.post(url, json={"version": "4", "status": "firing", "alerts": alerts})
    _wait(lambda: ing.writer is not None and ing.writer.stats.received >= base + n, 120)
    ing.writer.wait_idle(600)
    return time.perf_counter() - t0


def _locked(ing: Ingest, path: str, n: int) -> tuple[float, float]:
    """(seconds the lock was held, seconds from release to the backlog stored)."""
    assert ing.syslog is not None and ing.writer is not None
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    t0 = time.perf_counter()
    base = ing.writer.stats.received
    lines = [_syslog(10_000_000 + i) for i in range(n)]
    syslog = ing.syslog
    _send_bursts(syslog.port, lines, lambda: syslog.received)
    _wait(lambda: ing.writer is not None and ing.writer.stats.received >= base + n, 120)
    held = time.perf_counter() - t0
    holder.execute("COMMIT")
    holder.close()
    t1 = time.perf_counter()
    ing.writer.wait_idle(600)
    return held, time.perf_counter() - t1


def _send_bursts(port: int, datagrams: list[bytes], received: Callable[[], int]) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for start in range(0, len(datagrams), BURST):
            before = received()
            chunk = datagrams[start:start + BURST]
            for d in chunk:
                sock.sendto(d, ("127.0.0.1", port))
            _wait(lambda n=before + len(chunk): received() >= n, 120)  # type: ignore[misc]


MODES = {"memory": (False, False), "spool": (True, False), "spool + fsync": (True, True)}


def run(n_syslog: int, n_traps: int, n_alerts: int, mode: str) -> dict[str, float]:
    tmp = tempfile.TemporaryDirectory(prefix="bench-ingest-")
    path = str(Path(tmp.name) / "ingest.db")
    spooled, fsync = MODES[mode]
    cfg = IngestSettings(trap_port=0, syslog_port=0, webhook_port=0, community=SecretStr("bench"),
                         spool=Path(tmp.name) / "spool" if spooled else None, fsync=fsync)
    with tmp, BackgroundIngest(f"sqlite:///{path}", cfg) as ing:
        assert ing.syslog and ing.traps and ing.writer
        syslog, traps = ing.syslog, ing.traps
        t_sys = _udp_run(ing, syslog.port, [_syslog(i) for i in range(n_syslog)],
                         lambda: syslog.received)
        t_trap = _udp_run(ing, traps.port, [_trap(i) for i in range(n_traps)],
                          lambda: traps.received)
        t_am = _alerts(ing, n_alerts)
        held, drain = _locked(ing, path, 2000)
        stats = ing.writer.stats
    return {"syslog": n_syslog / t_sys, "traps": n_traps / t_trap, "alerts": n_alerts / t_am,
            "held": held, "drain": drain, "lost": stats.lost, "failed": stats.failed,
            "retries": stats.retries, "received": stats.received, "written": stats.written}


def render(res: dict[str, dict[str, float]], a: argparse.Namespace) -> str:
    m = _machine()

    def row(label: str, fmt: Callable[[dict[str, float]], str]) -> str:
        return f"| {label} | " + " | ".join(fmt(r) for r in res.values()) + " |"

    return "\n".join([
        "## `netopsai ingest` — receivers into the store", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; "
        f"SQLite {m['sqlite']}; 1-min load {os.getloadavg()[0]:.2f}",
        "- Sender and receivers in one process on loopback, empty SQLite store (WAL); a rate is "
        "events from first sent to last committed. Columns: events queued in memory only; "
        "through the write-ahead spool (the default of `netopsai ingest`: a kill loses nothing "
        "taken in); the spool flushed to the disk per event (`--fsync`: survives a power cut). "
        "No target is set by the issue.", "",
        "| measurement | " + " | ".join(res) + " |", "| --- |" + " ---: |" * len(res),
        row(f"syslog datagrams ({a.syslog}, half raising alarms)", lambda r: f"{r['syslog']:,.0f} /s"),
        row(f"SNMPv2c linkDown traps ({a.traps})", lambda r: f"{r['traps']:,.0f} /s"),
        row(f"Alertmanager alerts ({a.alerts}, 20 per POST)", lambda r: f"{r['alerts']:,.0f} /s"),
        row("2,000 syslog lines while the store is locked: lock held", lambda r: f"{r['held']:.2f} s"),
        row("... backlog stored after release", lambda r: f"{r['drain']:.2f} s"),
        row("events received / written / lost / failed", lambda r: f"{r['received']:.0f} / "
            f"{r['written']:.0f} / {r['lost']:.0f} / {r['failed']:.0f}"),
        row("writer retries against the lock", lambda r: f"{r['retries']:.0f}"), ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--syslog", type=int, default=20000)
    ap.add_argument("--traps", type=int, default=2000)
    ap.add_argument("--alerts", type=int, default=2000)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    body = render({mode: run(a.syslog, a.traps, a.alerts, mode) for mode in MODES}, a)
    print(body)
    write_section(a.out, "ingest", body)


if __name__ == "__main__":
    main()
