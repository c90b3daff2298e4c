"""Replay benchmark (real networks): a day of device logs in the vendors' formats, loaded with
`netopsai ingest --file`'s loader into a small lab's store, then the day's alarms grouped into
cases. Reported: lines, load time and rate, alarms, cases, alarms per case, and how many cases
each labelled event became.

    .venv/bin/python -m bench.bench_replay [--noise 12000] [--out bench/RESULTS.md]

The log is built here from the lab's own links and BGP sessions (so names meet the inventory),
in Arista EOS format: background lines no rule takes (logins, NTP, config reads) spread over 24 h,
and four labelled events — a flap storm (257 bounces in two minutes on one port), a BGP clear (a
spine's sessions down and back within a minute), an optic pull (transceiver out, RX LOS, link and
its BGP session down, back after two minutes) and an admin shut (a port shut, its session down).
The `<!-- replay:begin -->` section of the results file is replaced on re-run.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402

DAY = datetime(2026, 11, 20, tzinfo=UTC)


@dataclass
class Labelled:
    name: str
    devices: set[str]
    start: datetime
    end: datetime
    lines: list[tuple[datetime, str, str]] = field(default_factory=list)  # (at, host, text)


def _eos(at: datetime, host: str, text: str) -> str:
    return f"{at:%b %d %H:%M:%S}.{at.microsecond // 1000:03d} {host} {text}"


def _port(host: str, port: str, state: str) -> str:
    return f"Ebra: %LINEPROTO-5-UPDOWN: Line protocol on Interface {port}, changed state to {state}"


def _bgp(peer: str, up: bool) -> str:
    return (f"Bgp: %BGP-5-ADJCHANGE: peer {peer} (VRF default AS 65000) old state "
            + ("OpenConfirm event RecvKeepAlive new state Established" if up
               else "Established event HoldTimerExpired new state Idle"))


def events(engine: object) -> list[Labelled]:
    """Four labelled events on the lab's own links and sessions."""
    from sqlmodel import Session, select

    from netopsai.store import tables as m

    with Session(engine) as s:  # type: ignore[arg-type]
        sessions = list(s.exec(select(m.BgpSession)))
        links = {lk.id: lk for lk in s.exec(select(m.Link).where(m.Link.kind == "fabric"))}
    fabric = [b for b in sessions if b.link_id in links]
    storm_b, pull_b, shut_b = fabric[0], fabric[5], fabric[11]
    spine = fabric[20].b_device

    def end(b: m.BgpSession) -> tuple[str, str, str]:
        lk = links[b.link_id]
        return b.a_device, (lk.a_interface if lk.a_device == b.a_device else lk.b_interface), b.b_ip

    out = []
    host, port, _ = end(storm_b)
    t0 = DAY + timedelta(hours=10, minutes=15)
    storm = Labelled("flap storm (257 bounces)", {host}, t0, t0 + timedelta(minutes=3))
    for i in range(257):
        at = t0 + timedelta(milliseconds=470 * i)
        storm.lines += [(at, host, _port(host, port, "down")),
                        (at + timedelta(milliseconds=200), host, _port(host, port, "up"))]
    out.append(storm)
    t1 = DAY + timedelta(hours=13, minutes=2)
    clear = Labelled("BGP clear", {spine}, t1, t1 + timedelta(minutes=2))
    for b in (b for b in sessions if b.b_device == spine):
        clear.lines += [(t1, spine, _bgp(b.a_ip, False)),
                        (t1 + timedelta(seconds=40), spine, _bgp(b.a_ip, True))]
    out.append(clear)
    host, port, peer = end(pull_b)
    t2 = DAY + timedelta(hours=15, minutes=30)
    pull = Labelled("optic pull", {host}, t2, t2 + timedelta(minutes=4))
    xcvr = f"Xcvr: %TRANSCEIVER-6-{{}}: The transceiver for interface {port} has been {{}}"
    los = f"Xcvr: %TRANSCEIVER-{{}}: Interface {port}, receiver loss of signal {{}}"
    pull.lines += [
        (t2, host, xcvr.format("REMOVED", "removed")),
        (t2 + timedelta(milliseconds=50), host, los.format("3-RX_LOS", "detected")),
        (t2 + timedelta(milliseconds=90), host, _port(host, port, "down")),
        (t2 + timedelta(seconds=3), host, _bgp(peer, False)),
        (t2 + timedelta(minutes=2), host, xcvr.format("INSERTED", "inserted")),
        (t2 + timedelta(minutes=2, seconds=1), host, los.format("5-RX_LOS_CLEARED", "cleared")),
        (t2 + timedelta(minutes=2, seconds=2), host, _port(host, port, "up")),
        (t2 + timedelta(minutes=2, seconds=40), host, _bgp(peer, True))]
    out.append(pull)
    host, port, peer = end(shut_b)
    t3 = DAY + timedelta(hours=18, minutes=5)
    shut = Labelled("admin shut", {host}, t3, t3 + timedelta(minutes=1))
    shut.lines += [
        (t3, host, "ConfigAgent: %SYS-5-CONFIG_I: Configured from console by ops on vty3 (10.0.0.5)"),
        (t3 + timedelta(seconds=1), host,
         f"Ebra: %LINK-5-CHANGED: Interface {port}, changed state to administratively down"),
        (t3 + timedelta(seconds=4), host, _bgp(peer, False))]
    out.append(shut)
    return out


def noise(n: int, hosts: list[str], rng: random.Random) -> list[tuple[datetime, str, str]]:
    texts = ["Aaa: %AAA-6-EXEC_START: User ops started exec session on vty3 from 10.0.0.5",
             "Ntp: %NTP-6-SYNCHRONIZED: synchronized to NTP server 10.0.0.9",
             "ConfigAgent: %SYS-6-CONFIG_READ: config read by ops",
             "sshd[4242]: Accepted publickey for ops from 10.0.0.5 port 51234 ssh2",
             "Lldp: %LLDP-5-NEIGHBOR_NEW: LLDP neighbor with chassisId 001c.7300.0001 added"]
    return [(DAY + timedelta(seconds=rng.uniform(0, 86_400)), rng.choice(hosts), rng.choice(texts))
            for _ in range(n)]


def run(n_noise: int) -> dict[str, object]:
    from netopsai.backends.lab import lab_backends
    from netopsai.backends.syslog.files import load_files
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import engine_for
    from netopsai.tools.registry import run_tool

    home = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, DAY + timedelta(days=1, hours=1))
    labelled = events(engine)
    hosts = sorted({h for e in labelled for h in e.devices})
    lines = [*noise(n_noise, hosts, random.Random(7)), *(x for e in labelled for x in e.lines)]
    lines.sort(key=lambda x: x[0])
    log = home / "messages"
    log.write_text("".join(_eos(at, h, t) + "\n" for at, h, t in lines))
    stamp = (DAY + timedelta(days=1)).timestamp()
    os.utime(log, (stamp, stamp))
    t0 = time.perf_counter()
    stats = load_files(str(engine.url), [log])
    load_s = time.perf_counter() - t0
    window = f"{DAY.isoformat()}..{(DAY + timedelta(days=1)).isoformat()}"
    ev = run_tool("alarms", {"window": window, "correlate": True, "state": "any"}, lab_backends(engine))
    mine = _syslog_alarm_ids(engine)  # the lab's own background alarms are not the replay's
    rows = [r for r in ev.rows if r["id"] in mine]
    per_event = {}
    for e in labelled:
        hit = [r for r in rows if r["device"] in e.devices
               and e.start <= datetime.fromisoformat(r["raised_at"].replace("Z", "+00:00")) <= e.end]
        per_event[e.name] = (len(e.lines), len(hit), len({r["group"] for r in hit}))
    return {"lines": stats.lines, "stored": stats.stored, "load_s": load_s, "alarms": len(rows),
            "cases": len({r["group"] for r in rows}), "per_event": per_event}


def _syslog_alarm_ids(engine: object) -> set[int]:
    from sqlmodel import Session, select

    from netopsai.store import tables as m

    with Session(engine) as s:  # type: ignore[arg-type]
        return {a.id for a in s.exec(select(m.Alarm).where(m.Alarm.source == "syslog")) if a.id}


def render(r: dict[str, object], a: argparse.Namespace) -> str:
    m = _machine()
    per = r["per_event"]
    assert isinstance(per, dict)
    rows = [f"| {name} | {lines} | {alarms} | {cases} |" for name, (lines, alarms, cases) in per.items()]
    cases = max(1, int(r["cases"]))  # type: ignore[call-overload]
    return "\n".join([
        "## Replay — a day of device logs through `ingest --file`, alarms into cases", "",
        f"- Date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; code {m['rev']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']}; Python {m['python']}; "
        f"1-min load {os.getloadavg()[0]:.2f}",
        f"- One 24-hour log in Arista EOS format on the small lab's own devices: {a.noise} "
        "background lines no rule takes, and four labelled events (bench/bench_replay.py). Load: "
        "parse, device clock, rules, dedupe and the store's writer (alarms, history, raw events), "
        "one process. Cases: the alarms tool's correlation over the day. Target (issue): "
        "≥ 5,000 lines/s; ≥ 5 alarms per case overall; ≤ 2 cases per real event.", "",
        "| measurement | result |", "| --- | ---: |",
        f"| lines loaded / stored | {r['lines']:,} / {r['stored']:,} |",
        f"| load time (a day of logs) | {r['load_s']:.2f} s |",
        f"| rate | {int(r['lines']) / float(r['load_s']):,.0f} lines/s |",  # type: ignore[call-overload, arg-type]
        f"| syslog alarms / cases | {r['alarms']} / {r['cases']} "
        f"({int(r['alarms']) / cases:.1f} alarms per case) |",  # type: ignore[call-overload]
        "", "| labelled event | log lines | alarms | cases |", "| --- | ---: | ---: | ---: |",
        *rows, ""])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--noise", type=int, default=12_000)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    body = render(run(a.noise), a)
    print(body)
    write_section(a.out, "replay", body)


if __name__ == "__main__":
    main()
