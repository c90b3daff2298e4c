"""Retention (netopsai.store.retention, `netopsai db prune`) on SQLite and on PostgreSQL: what
goes, what stays, and that the telemetry tool answers a window reaching past the horizon with
the same figures from the hourly roll-ups as it did from the 5-minute samples."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

import pytest
from sqlalchemy import Engine, func, select
from sqlmodel import Session

from netopsai.common.timewin import Window
from netopsai.config.network import RetentionSettings
from netopsai.store import migrate
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert, engine_for
from netopsai.store.retention import PeriodicPrune, describe, horizons, prune
from netopsai.store.telemetry import StoreTelemetry, read_plan
from netopsai_testkit.peers.postgres import fresh_database, pg_url
from netopsai_testkit.peers.process import free_port
from netopsai_testkit.peers.snmpsim import GENERATED, SnmpSim, snmpsim
from tests.cli_helpers import CLI, run_cli

__all__ = ["pg_url", "snmpsim"]

NOW = datetime(2026, 11, 20, 12, 2, tzinfo=UTC)  # not on the hour: horizons are whole hours
PORTS = [("r1", "Ethernet1", 10_000), ("r1", "Ethernet2", 10_000), ("r2", "xe-0/0/0", 100_000),
         ("r2", "xe-0/0/1", 0)]  # the last has no known line rate
DAYS = 20
METRICS = ("errors", "discards", "utilization", "rx_power")


def fill(engine: Engine) -> None:
    """20 days of 5-minute samples on four ports, with errors in bursts and optics on two of
    them; a few late-arriving duplicates; port transitions, raw events, alarms and acks."""
    rnd = random.Random(11)
    start = NOW.replace(minute=0) - timedelta(days=DAYS)
    samples = []
    for dev, ifn, _ in PORTS:
        t = start
        while t <= NOW:
            t += timedelta(minutes=5)
            burst = rnd.random() < 0.05
            samples.append({
                "device": dev, "interface": ifn, "at": t, "source": "snmp",
                "in_octets": rnd.randrange(10**6, 10**11), "out_octets": rnd.randrange(10**6, 10**11),
                "in_errors": rnd.randrange(1, 500) if burst else 0, "crc_errors": rnd.randrange(0, 9),
                "in_discards": rnd.randrange(0, 50), "out_discards": rnd.randrange(0, 50),
                "rx_power_dbm": round(rnd.uniform(-12, -1), 2) if ifn.startswith("xe") else None})
    with Session(engine) as s:
        for dev in ("r1", "r2"):
            s.add(m.Device(name=dev, role="leaf", site="s1"))
        for dev, ifn, speed in PORTS:
            s.add(m.Interface(device=dev, name=ifn, speed_mbps=speed))
        bulk_insert(s, m.CounterSample, samples)
        _events(s)
        s.commit()


def _events(s: Session) -> None:
    old, recent = NOW - timedelta(days=200), NOW - timedelta(days=2)
    transitions = [("Ethernet1", old, "down"), ("Ethernet1", old + timedelta(hours=1), "up"),
                   ("Ethernet1", old + timedelta(hours=2), "down"),  # still down 200 days on
                   ("Ethernet2", old, "down"), ("Ethernet2", old + timedelta(minutes=3), "up"),
                   ("Ethernet2", recent, "down"), ("Ethernet2", recent + timedelta(minutes=9), "up")]
    for ifn, at, state in transitions:
        s.add(m.InterfaceEvent(device="r1", interface=ifn, at=at, state=state))
    for days in (40, 10):
        s.add(m.RawEvent(received_at=NOW - timedelta(days=days), source="syslog", message=f"{days}d"))
    for i, (state, cleared) in enumerate((("closed", 400), ("closed", 30), ("open", None))):
        raised = NOW - timedelta(days=500)
        s.add(m.Alarm(id=i + 1, kind="link_down", category="link", device="r1", raised_at=raised,
                      state=state, cleared_at=None if cleared is None else NOW - timedelta(days=cleared)))
        s.add(m.AlarmAck(alarm_id=i + 1, action="ack", by="oncall", at=raised))


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    else:
        url = request.getfixturevalue("pg_url")
        engine = engine_for(fresh_database(url, f"retention_{tmp_path.name.lower()}"))
    migrate.upgrade(engine)
    fill(engine)
    yield engine
    engine.dispose()


def answers(engine: Engine, window: Window) -> dict[str, Any]:
    tel = StoreTelemetry(engine)
    out: dict[str, Any] = {metric: tel.counters({"devices": ["r1", "r2"]}, window, metric, top=10)
                           for metric in METRICS}
    out["status"] = tel.oper_status({"devices": ["r1"]}, window)
    return out


def count(engine: Engine, table: type[Any]) -> int:
    with Session(engine) as s:
        return int(s.execute(select(func.count()).select_from(table)).scalar_one())


def test_a_long_window_answers_the_same_from_hourly_rollups(store: Engine) -> None:
    # windows on whole hours: roll-ups cover whole hours (the reader's documented detail)
    month = Window(start=NOW.replace(minute=0) - timedelta(days=30), end=NOW)
    day = Window(start=NOW - timedelta(days=1), end=NOW)
    before = {"month": answers(store, month), "day": answers(store, day)}
    samples = count(store, m.CounterSample)
    assert before["month"]["errors"][0][0]["total"] > 0  # the data has something to keep

    rep = prune(store, RetentionSettings(), now=NOW)

    rolled, pruned = horizons(store)
    assert rolled == NOW.replace(minute=0) - timedelta(hours=1)  # 11:00 ended before 12:02 - grace
    assert pruned == NOW.replace(minute=0) - timedelta(days=14)
    kept = count(store, m.CounterSample)
    assert rep.samples == samples - kept > 0
    # every hour that ended is rolled up (13:00 twenty days ago to 11:00 today), one per port
    assert rep.rollups_written == count(store, m.CounterRollup) == len(PORTS) * (DAYS * 24 - 1)
    with Session(store) as s:
        oldest = s.execute(select(func.min(m.CounterSample.at))).scalar_one()
    assert oldest.replace(tzinfo=UTC) > pruned
    # the day is read as samples 12:02-13:00, roll-ups 13:00-11:00, samples 11:00-12:02
    assert [hourly for *_, hourly in read_plan(day, rolled, pruned)] == [False, True, False]
    assert read_plan(month, rolled, pruned)[0] == (month.start, rolled, True)
    assert answers(store, month) == before["month"]
    assert answers(store, day) == before["day"]


def test_prune_keeps_what_is_current_and_removes_only_the_old(store: Engine) -> None:
    week = Window(start=NOW - timedelta(days=7), end=NOW)
    status_before = answers(store, week)["status"]
    dry = prune(store, RetentionSettings(), now=NOW, dry=True)
    assert count(store, m.CounterRollup) == 0 and count(store, m.RawEvent) == 2  # dry: untouched

    rep = prune(store, RetentionSettings(), now=NOW)
    assert (dry.samples, dry.raw_events, dry.interface_events, dry.alarms, dry.acks) == (
        rep.samples, rep.raw_events, rep.interface_events, rep.alarms, rep.acks)
    with Session(store) as s:
        events = s.execute(select(m.InterfaceEvent.interface, m.InterfaceEvent.state)
                           .order_by(m.InterfaceEvent.interface, m.InterfaceEvent.at)).all()
        alarms = s.execute(select(m.Alarm.id).order_by(m.Alarm.id)).scalars().all()
        acks = s.execute(select(m.AlarmAck.alarm_id).order_by(m.AlarmAck.alarm_id)).scalars().all()
        raw = s.execute(select(m.RawEvent.message)).scalars().all()
    # each port keeps its last transition before the horizon: Ethernet1 is still down
    assert [tuple(e) for e in events] == [("Ethernet1", "down"), ("Ethernet2", "up"),
                                          ("Ethernet2", "down"), ("Ethernet2", "up")]
    assert rep.interface_events == 3
    assert alarms == [2, 3] and acks == [2, 3]  # cleared 400 days ago: gone; the open one stays
    assert raw == ["10d"]
    assert answers(store, week)["status"] == status_before
    assert status_before[0][0]["interface"] == "Ethernet1"  # down the whole week, first
    assert prune(store, RetentionSettings(), now=NOW).total == 0  # a second prune: nothing left


def test_rollups_expire_and_none_keeps_forever(store: Engine) -> None:
    keep_all = RetentionSettings(samples_days=None, rollups_days=None, raw_events_days=None,
                                 interface_events_days=None, closed_alarms_days=None)
    assert prune(store, keep_all, now=NOW).total == 0
    assert describe(prune(store, keep_all, now=NOW)) == [
        "nothing to prune: every row is within its retention"]
    prune(store, RetentionSettings(samples_days=3), now=NOW)
    rolled = count(store, m.CounterRollup)
    rep = prune(store, RetentionSettings(samples_days=3, rollups_days=10), now=NOW)
    assert rep.rollups == rolled - count(store, m.CounterRollup) > 0
    with Session(store) as s:
        oldest = s.execute(select(func.min(m.CounterRollup.at))).scalar_one()
    assert oldest.replace(tzinfo=UTC) >= NOW - timedelta(days=10)


def test_periodic_prune_runs_at_start_then_on_its_interval(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    migrate.upgrade(engine)
    fill(engine)
    clock = [1000.0]
    pruner = PeriodicPrune(engine, RetentionSettings(prune_every_minutes=60), lambda: clock[0])
    first = pruner.run_if_due()
    assert first is not None and first.raw_events == 1
    clock[0] += 59 * 60
    assert pruner.run_if_due() is None
    clock[0] += 60
    assert pruner.run_if_due() is not None
    never = PeriodicPrune(engine, RetentionSettings(prune_every_minutes=0), lambda: clock[0])
    assert never.run_if_due() is None


def test_db_prune_command(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    migrate.upgrade(engine)
    fill(engine)  # samples up to NOW (a date in the past): all of them are past 14 days now
    (tmp_path / "config.yaml").write_text("retention:\n  raw_events_days: 20\n  samples_days: 1000\n")
    dry = run_cli(tmp_path, "db", "prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "raw events: would remove 1 before" in dry.stdout
    assert count(engine, m.RawEvent) == 2
    done = run_cli(tmp_path, "db", "prune")
    assert done.returncode == 0, done.stderr
    assert "raw events: removed 1 before" in done.stdout
    assert "5-minute counter samples" not in done.stdout  # kept 1,000 days
    assert f"hourly roll-ups: wrote {count(engine, m.CounterRollup):,}" in done.stdout
    assert count(engine, m.RawEvent) == 1
    (tmp_path / "config.yaml").write_text("retention:\n  raw_events_days: 0\n")
    bad = run_cli(tmp_path, "db", "prune")
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "retention.raw_events_days" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def read_until(stream: IO[str] | None, marker: str, what: str) -> str:
    """A service's output up to the line holding `marker` (the service ending first fails)."""
    assert stream is not None
    seen = ""
    while marker not in seen:
        line = stream.readline()
        assert line, f"{what} ended before saying {marker!r}: {seen}"
        seen += line
    return seen


def test_ingest_prunes_while_it_runs(tmp_path: Path) -> None:
    """The long-running service prunes at start (then hourly): the 40-day-old raw event goes,
    and the service says so and keeps receiving."""
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    migrate.upgrade(engine)
    fill(engine)
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | {
        "NETOPSAI_HOME": str(tmp_path), "NETOPSAI_RETENTION_SAMPLES_DAYS": "1000"}
    proc = subprocess.Popen([*CLI, "ingest", "--trap-port", "-1", "--syslog-port", "-1",
                             "--webhook-port", str(free_port())], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        seen = read_until(proc.stdout, "prune: raw events: removed 1 before", "ingest")
        assert count(engine, m.RawEvent) == 1
        assert "5-minute counter samples" not in seen  # NETOPSAI_RETENTION_SAMPLES_DAYS won over the default
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
        watchdog.cancel()
    assert proc.stdout is not None and proc.stderr is not None
    with proc.stdout, proc.stderr:  # the pipes closed here, not left to the GC
        assert proc.returncode == 0, proc.stderr.read()


def test_the_lab_is_never_pruned(make_lab: Any) -> None:
    engine = make_lab()
    with Session(engine) as s:
        events = s.execute(select(func.count()).select_from(m.InterfaceEvent)).scalar_one()
    rep = prune(engine, RetentionSettings(interface_events_days=1), now=NOW + timedelta(days=3650))
    assert rep.lab and rep.total == 0
    assert count(engine, m.InterfaceEvent) == events > 0
    assert "embedded lab" in describe(rep)[0]


def test_figures_match_a_plain_reading_of_the_samples(store: Engine) -> None:
    """The SQL aggregates against the definition, computed here from the rows themselves."""
    week = Window(start=NOW - timedelta(days=7, minutes=7), end=NOW)
    with Session(store) as s:
        rows = s.execute(select(m.CounterSample).where(m.CounterSample.at > week.start,
                                                       m.CounterSample.at <= week.end)
                         .order_by(m.CounterSample.at)).scalars().all()
    got = answers(store, week)
    for dev, ifn, speed in PORTS:
        mine = [r for r in rows if (r.device, r.interface) == (dev, ifn)]
        errs = [r.in_errors for r in mine]
        row = next(x for x in got["errors"][0] if (x["device"], x["interface"]) == (dev, ifn))
        assert (row["total"], row["max_per_5min"], row["last_5min"], row["crc_total"]) == (
            sum(errs), max(errs), errs[-1], sum(r.crc_errors for r in mine))
        util = [x for x in got["utilization"][0] if (x["device"], x["interface"]) == (dev, ifn)]
        if speed:
            pct = [max(r.in_octets, r.out_octets) * 8 / 300 / (speed * 1e6) * 100 for r in mine]
            assert (util[0]["max_pct"], util[0]["avg_pct"], util[0]["last_pct"]) == (
                round(max(pct), 2), round(sum(pct) / len(pct), 2), round(pct[-1], 2))
        else:
            assert not util  # no line rate: no percentage
        rx = [r.rx_power_dbm for r in mine if r.rx_power_dbm is not None]
        optics = [x for x in got["rx_power"][0] if (x["device"], x["interface"]) == (dev, ifn)]
        assert (optics[0]["min_dbm"], optics[0]["last_dbm"]) == (min(rx), rx[-1]) if rx else not optics


def test_poll_prunes_after_its_first_round(snmpsim: SnmpSim, tmp_path: Path) -> None:
    """`netopsai poll` (running, not --once) prunes after its first round; what it did goes to
    stderr, polling goes on."""
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    migrate.upgrade(engine)
    fill(engine)
    name = "netopsai/cli"
    snmpsim.write(name, GENERATED[name])
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | {"NETOPSAI_HOME": str(tmp_path)}
    proc = subprocess.Popen([*CLI, "poll", "--interval", "1", "--target", f"127.0.0.1:{snmpsim.port}",
                             "--community", name, "--timeout", "5"],
                            env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        said = read_until(proc.stderr, "prune: raw events: removed 1 before", "poll")
        assert "5-minute counter samples: removed" in said  # fill()'s are 5 days past 14 days
        with Session(engine) as s:
            polled = s.execute(select(m.Device.name).where(m.Device.name == "gen-cli")).scalar_one()
        assert polled == "gen-cli" and count(engine, m.RawEvent) == 1
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        watchdog.cancel()
    assert "stored:" in out
