"""Store growth and retention (issue 14 §2), on SQLite and on PostgreSQL (Debian's, started here):

1. Rows and bytes per simulated day at 1,000 and 10,000 devices of 48 ports: one hour of 5-minute
   counter samples for every port (12 polls, written as the poller writes them: Core executemany),
   and an hour of raw events at an assumed 100 syslog lines per device per day, measured in the
   store (table plus indexes), times 24. Then that hour is rolled up by `prune`: roll-up rows and
   bytes, and how long the hourly roll-up takes. A steady state for the default retention (14 days
   of samples, a year of hourly roll-ups) follows from those figures.
2. The telemetry tool's time over 1 day and 30 days at 10,000 devices: the store holds the 10,000
   devices' inventory (480,000 ports) and the hour above; one PoD of 10 devices (480 ports) and one
   device get 30 days of 5-minute samples. Each question is timed with all 30 days raw, then again
   after `prune` rolled everything past 14 days into hourly figures. Median of `--runs`.

    .venv/bin/python -m bench.bench_retention [--scales 1000 10000] [--runs 5] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
from bench.bench_foundation import _machine, write_section  # noqa: E402
from netopsai.config.network import RetentionSettings  # noqa: E402
from netopsai.store import migrate  # noqa: E402
from netopsai.store import tables as m  # noqa: E402
from netopsai.store.engine import bulk_insert, engine_for  # noqa: E402
from netopsai.store.retention import prune  # noqa: E402

PORTS = 48
BATCH = 50_000
SYSLOG_PER_DEVICE_DAY = 100
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
RND = random.Random(5)


def device(i: int) -> str:
    return f"sw{i:05d}"


def inventory(engine: Any, devices: int) -> None:
    from sqlmodel import Session

    with Session(engine) as s:
        bulk_insert(s, m.Site, ({"name": f"dc{k}"} for k in range((devices - 1) // 2000 + 1)))
        bulk_insert(s, m.Pod, ({"name": f"pod{k}", "site": f"dc{k // 200}", "index": k}
                               for k in range((devices - 1) // 10 + 1)))
        bulk_insert(s, m.Device, ({"name": device(i), "role": "leaf", "site": f"dc{i // 2000}",
                                   "pod": f"pod{i // 10}", "status": "up"} for i in range(devices)))
        for start in range(0, devices, 1000):
            bulk_insert(s, m.Interface, ({"device": device(i), "name": f"Ethernet{p}",
                                          "speed_mbps": 100_000, "mtu": 9214, "admin_status": "up",
                                          "oper_status": "up", "description": ""}
                                         for i in range(start, min(devices, start + 1000))
                                         for p in range(1, PORTS + 1)))
        s.commit()


def sample(dev: str, port: int, at: datetime) -> dict[str, Any]:
    burst = RND.random() < 0.01
    return {"device": dev, "interface": f"Ethernet{port}", "at": at, "source": "snmp",
            "in_octets": RND.randrange(10**9, 10**12), "out_octets": RND.randrange(10**9, 10**12),
            "in_errors": RND.randrange(1, 900) if burst else 0, "crc_errors": 0,
            "in_discards": RND.randrange(0, 20), "out_discards": RND.randrange(0, 20),
            "rx_power_dbm": round(RND.uniform(-6, -1), 2)}


def write(engine: Any, table: Any, rows: Iterator[dict[str, Any]]) -> tuple[int, float]:
    """Rows written and seconds, in transactions of BATCH rows as a busy poller would."""
    from sqlmodel import Session

    n, t0, batch = 0, time.perf_counter(), []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            with Session(engine) as s:
                n += bulk_insert(s, table, batch)
                s.commit()
            batch = []
    with Session(engine) as s:
        n += bulk_insert(s, table, batch)
        s.commit()
    return n, time.perf_counter() - t0


def samples(devices: list[str], start: datetime, end: datetime) -> Iterator[dict[str, Any]]:
    """Every port of `devices` every 5 minutes in (start, end], one poll round after another."""
    t = start + timedelta(minutes=5)
    while t <= end:
        for dev in devices:
            for p in range(1, PORTS + 1):
                yield sample(dev, p, t)
        t += timedelta(minutes=5)


def raw_events(devices: int, end: datetime) -> Iterator[dict[str, Any]]:
    for k in range(devices * SYSLOG_PER_DEVICE_DAY // 24):
        dev = device(k % devices)
        yield {"received_at": end - timedelta(seconds=k % 3600), "at": end, "source": "syslog",
               "host": "198.18.0.1", "device": dev, "interface": f"Ethernet{k % PORTS + 1}",
               "program": "ifmgr", "mnemonic": "LINK-3-UPDOWN", "severity": "error",
               "message": f"<187>{k}: %LINK-3-UPDOWN: Interface Ethernet{k % PORTS + 1}, changed "
                          "state to down", "kind": "link_down", "key": f"{dev}:Ethernet{k % PORTS}"}


def table_bytes(engine: Any) -> dict[str, int]:
    """Bytes per table, its indexes included."""
    from sqlalchemy import text

    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            owner = dict(c.execute(text("SELECT name, tbl_name FROM sqlite_master")).all())
            out: dict[str, int] = {}
            for name, size in c.execute(text("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")):
                out[owner.get(name, name)] = out.get(owner.get(name, name), 0) + int(size)
            return out
        rows = c.execute(text("SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables"))
        return {name: int(size) for name, size in rows}


def analyse(engine: Any) -> None:
    from sqlalchemy import text

    with engine.begin() as c:
        c.execute(text("ANALYZE"))


def growth(kind: str, url: str, devices: int) -> dict[str, Any]:
    engine = engine_for(url)
    migrate.upgrade(engine)
    inventory(engine, devices)
    names = [device(i) for i in range(devices)]
    hour = NOW - timedelta(days=20)  # old enough for prune to roll it up
    n, secs = write(engine, m.CounterSample, samples(names, hour - timedelta(hours=1), hour))
    ev, _ = write(engine, m.RawEvent, raw_events(devices, hour))
    analyse(engine)
    size = table_bytes(engine)
    t0 = time.perf_counter()
    rep = prune(engine, RetentionSettings(raw_events_days=None, interface_events_days=None,
                                          closed_alarms_days=None), now=NOW)
    roll_s = time.perf_counter() - t0
    analyse(engine)
    rolled = table_bytes(engine)
    engine.dispose()
    return {"db": kind, "devices": devices, "sample_rows_h": n, "write_s": secs,
            "sample_bytes_h": size["countersample"], "raw_rows_h": ev, "raw_bytes_h": size["rawevent"],
            "rollup_rows_h": rep.rollups_written, "rollup_bytes_h": rolled["counterrollup"],
            "rollup_s": roll_s, "rolled": rep.samples}


def query_times(kind: str, url: str, runs: int) -> list[dict[str, Any]]:
    """The 10,000-device store of `growth` plus 30 days for pod0 (10 devices)."""
    engine = engine_for(url)
    _forget_rollups(engine)  # a store never pruned: the first stage reads samples only
    pod = [device(i) for i in range(10)]
    n, write_s = write(engine, m.CounterSample, samples(pod, NOW - timedelta(days=30), NOW))
    analyse(engine)
    out: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], Any] = {}
    for stage in ("30 days of samples, no roll-ups", "after prune: roll-ups + 14 days of samples"):
        if stage.startswith("after"):
            prune(engine, RetentionSettings(), now=NOW)
            analyse(engine)
        for scope in ({"devices": [pod[0]]}, {"pod": "pod0"}):
            for window in ("1d", "30d"):
                secs, rows = _time_tool(engine, scope, window, runs)
                # the same figures from roll-ups as from samples, or the timing means nothing
                # (30 days start inside a pruned hour, read whole: hourly detail at that edge)
                if window == "1d":
                    assert seen.setdefault((str(scope), window), rows) == rows, (stage, scope)
                out.append({"db": kind, "stage": stage, "scope": "1 device" if "devices" in scope
                            else "PoD (10 devices)", "window": window, "s": secs})
    engine.dispose()
    print(f"  {kind}: 30 days of pod0 written ({n:,} rows, {n / write_s:,.0f} rows/s)", flush=True)
    return out


def _forget_rollups(engine: Any) -> None:
    from sqlalchemy import delete

    with engine.begin() as c:
        c.execute(delete(m.Meta.__table__).where(m.Meta.__table__.c.key.like("samples_%")))
        c.execute(delete(m.CounterRollup.__table__))


def _time_tool(engine: Any, scope: dict[str, Any], window: str, runs: int) -> tuple[float, Any]:
    from netopsai.backends.registry import configured_backends
    from netopsai.config.network import NetConfig
    from netopsai.tools.telemetry import TelemetryArgs, telemetry

    backends = configured_backends(engine, NetConfig())
    end = NOW - timedelta(minutes=7)  # fixed, so both stages read the same window; mid-hour edges
    start = end - timedelta(days=int(window[:-1]))
    args = TelemetryArgs(metric="utilization", **scope,
                         window={"start": start.isoformat(), "end": end.isoformat()})
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        ev = telemetry(args, backends)
        times.append(time.perf_counter() - t0)
        assert not ev.errors and ev.rows, ev.summary
    return statistics.median(times), ev.rows


def report(grow: list[dict[str, Any]], queries: list[dict[str, Any]], runs: int) -> str:
    mach = _machine()
    lines = [f"## Store growth and retention (issue 14 §2) — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
             "", f"Machine: {mach['cpu']}, {mach['cores']} cores, {mach['ram']}; rev {mach['rev']}; "
             f"SQLite {mach['sqlite']}; PostgreSQL (Debian, fsync off, defaults otherwise). "
             "`bench/bench_retention.py`.", "",
             "Per simulated day (an hour measured, ×24; 48 ports per device, 5-minute samples; "
             f"{SYSLOG_PER_DEVICE_DAY} syslog lines per device per day; bytes are table + indexes):", "",
             "| db | devices | sample rows/day | sample GB/day | bytes/row | write rows/s | raw-event "
             "MB/day | roll-up rows/day | roll-up MB/day | hourly roll-up takes | steady state "
             "(14 d samples + 365 d roll-ups) |", "|---" * 11 + "|"]
    for g in grow:
        day = 24
        steady = (14 * g["sample_bytes_h"] + 365 * g["rollup_bytes_h"]) * day / 1e9
        lines.append(
            f"| {g['db']} | {g['devices']:,} | {g['sample_rows_h'] * day:,} | "
            f"{g['sample_bytes_h'] * day / 1e9:.2f} | {g['sample_bytes_h'] / g['sample_rows_h']:.0f} | "
            f"{g['sample_rows_h'] / g['write_s']:,.0f} | {g['raw_bytes_h'] * day / 1e6:.0f} | "
            f"{g['rollup_rows_h'] * day:,} | {g['rollup_bytes_h'] * day / 1e6:.0f} | "
            f"{g['rollup_s']:.1f} s | {steady:,.0f} GB |")
    lines += ["", f"Telemetry tool (utilisation, worst ports first), store of 10,000 devices; "
              f"median of {runs}:", "", "| db | history | scope | 1 day | 30 days |", "|---" * 5 + "|"]
    keyed: dict[tuple[str, str, str], dict[str, float]] = {}
    for q in queries:
        keyed.setdefault((q["db"], q["stage"], q["scope"]), {})[q["window"]] = q["s"]
    for (db, stage, scope), t in keyed.items():
        lines.append(f"| {db} | {stage} | {scope} | {t['1d'] * 1000:.0f} ms | {t['30d'] * 1000:.0f} ms |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", nargs="+", type=int, default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    from netopsai_testkit.peers.postgres import fresh_database, postgres_server

    grow: list[dict[str, Any]] = []
    queries: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, postgres_server() as pg:
        for devices in a.scales:
            for kind in ("sqlite", "postgresql"):
                url = (f"sqlite:///{tmp}/store{devices}.db" if kind == "sqlite"
                       else fresh_database(pg, f"bench{devices}"))
                grow.append(growth(kind, url, devices))
                print(grow[-1], flush=True)
                if devices == max(a.scales):
                    queries += query_times(kind, url, a.runs)
    body = report(grow, queries, a.runs)
    print(body)
    write_section(a.out, "retention", body)


if __name__ == "__main__":
    main()
