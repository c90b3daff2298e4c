"""Probe history (store/probes.py, `netopsai batch --record`) as a source of the reliability
report's bad minutes: figures worked out by hand on a known day of the small lab, the command
recording a faulty lab's pairs, retention pruning old probes, and a bad store said in one line.
Lab addresses are data: nothing here sends a packet."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete, func, select, text
from sqlmodel import Session

from netopsai.common.errors import NetopsError
from netopsai.config.network import ReliabilitySettings, RetentionSettings
from netopsai.copilot.batch.check import PairResult
from netopsai.lab.events import alarm
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab
from netopsai.lab.scenario import Scenario
from netopsai.reliability.run import reliability_report
from netopsai.store import migrate, probes
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.store.inventory import StoreInventory
from netopsai.store.probes import ProbeResult
from netopsai.store.retention import describe, prune
from tests.cli_helpers import run_cli
from tests.paths import REPO

T = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)  # the lab's clock; reports end here
T0 = T - timedelta(hours=2)  # the unreachable streak's first probe
POD1 = ("10.1.1.20", "10.1.1.30")  # both ends in dc1-pod1 (site dc1, zone us-east)
POD3 = ("10.2.1.20", "10.2.1.30")  # both ends in dc2-pod1
POD4_OUT = ("10.2.17.20", "192.0.2.9")  # dc2-pod2 to an address outside the inventory
FIVE = timedelta(minutes=5)


def result(src: str, dst: str, status: str) -> PairResult:
    """A batch result of the status (PairResult derives it from these fields)."""
    return PairResult(1, src, dst, status != "unreachable", 3, None, None,
                      "link.errors" if status == "degraded" else None, status,
                      error="no path" if status == "error" else None)


def probe_runs(engine: Engine, runs: Iterable[tuple[datetime, list[PairResult]]]) -> None:
    owner = StoreInventory(engine).ip_owner  # places resolved as `batch --record` does
    for at, results in runs:
        probes.record(engine, results, at, owner)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The small lab at T with no history of its own: the tests put in every row they count."""
    engine = engine_for(f"sqlite:///{tmp_path_factory.mktemp('probes') / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, T)
    return engine


@pytest.fixture
def day(lab: Engine) -> Engine:
    with Session(lab) as s:
        for table in (m.Alarm, m.InterfaceEvent, m.CounterSample, m.Change, m.AlarmAck, ProbeResult):
            s.execute(delete(table))
        s.commit()
    # pair 1 (dc1-pod1): reachable, then unreachable in 3 probes 5 minutes apart, reachable again
    # pair 2 (dc2-pod1): degraded twice, then an error: neither is a bad minute
    # pair 3 (dc2-pod2 -> outside): one unreachable probe, its pair's last: capped, 5 minutes
    statuses = {POD1: ["reachable", "unreachable", "unreachable", "unreachable", "reachable"],
                POD3: ["degraded", "degraded", "error", "reachable", "reachable"]}
    probe_runs(lab, [(T0 + (k - 1) * FIVE, [result(*pair, st[k]) for pair, st in statuses.items()])
                     for k in range(5)])
    probe_runs(lab, [(T - timedelta(hours=1), [result(*POD4_OUT, "unreachable")])])
    return lab


def scopes(engine: Engine, by: str, cfg: ReliabilitySettings | None = None) -> dict[str, Any]:
    return {r["scope"]: r for r in reliability_report(engine, "1d", by, cfg).scopes}


def test_three_unreachable_probes_are_15_bad_minutes_of_their_pod(day: Engine) -> None:
    pods = scopes(day, "pod")
    # [T0, T0+5) + [T0+5, T0+10) + [T0+10, T0+15): each until the pair's next probe
    assert (pods["dc1-pod1"]["probe_minutes"], pods["dc1-pod1"]["bad_minutes"]) == (15, 15)
    assert (pods["dc2-pod2"]["probe_minutes"], pods["dc2-pod2"]["bad_minutes"]) == (5, 5)
    assert pods["dc2-pod1"]["bad_minutes"] == 0  # degraded and error probes count nothing
    assert pods["dc1-pod2"]["bad_minutes"] == 0
    assert {s: r["bad_minutes"] for s, r in scopes(day, "site").items()} == {"dc1": 15, "dc2": 5}
    assert {s: r["bad_minutes"] for s, r in scopes(day, "zone").items()} == {
        "us-east": 15, "us-central": 5}


def test_a_shorter_probe_interval_caps_each_probe(day: Engine) -> None:
    pods = scopes(day, "pod", ReliabilitySettings(probe_interval_minutes=3))
    assert pods["dc1-pod1"]["probe_minutes"] == 9  # 3 probes, 3 minutes each
    assert pods["dc2-pod2"]["probe_minutes"] == 3


def test_a_case_overlapping_the_probes_is_not_counted_twice(day: Engine) -> None:
    with Session(day) as s:  # dc1-leaf-05 (dc1-pod1) unreachable, critical, T0+10 .. T0+30
        s.add(m.Alarm(**alarm("DEVICE_UNREACHABLE", "device", "dc1-leaf-05", "dc1",
                              T0 + 2 * FIVE, "unreachable", cleared=T0 + 6 * FIVE,
                              severity="critical")))
        s.commit()
    row = scopes(day, "pod")["dc1-pod1"]
    assert (row["case_minutes"], row["probe_minutes"]) == (20, 15)
    assert row["bad_minutes"] == 30  # [T0, T0+30): the 5 minutes both count once, not 35


def test_the_definitions_say_what_probes_count(day: Engine) -> None:
    rep = reliability_report(day, "1d", "pod", ReliabilitySettings(probe_interval_minutes=7))
    [text_] = [d for d in rep.definitions if d.startswith("Probe minutes")]
    assert "at most 7 minutes" in text_ and "Degraded probes" in text_ and "not counted" in text_
    assert not any(d.startswith("Not counted: periodic batch probes") for d in rep.definitions)


def test_record_writes_one_transaction_per_chunk(lab: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    with Session(lab) as s:
        s.execute(delete(ProbeResult))
        s.commit()
    commits: list[int] = []
    real = probes.Session

    class Counting(real):  # type: ignore[misc,valid-type]
        def commit(self) -> None:
            commits.append(1)
            super().commit()
    monkeypatch.setattr(probes, "Session", Counting)
    monkeypatch.setattr(probes, "CHUNK", 4)
    many = [result(POD1[0], f"10.1.1.{h}", "reachable") for h in range(20, 30)]
    assert probes.record(lab, many, T, StoreInventory(lab).ip_owner) == 10
    assert len(commits) == 3  # 4 + 4 + 2 rows
    with Session(lab) as s:
        assert s.execute(select(func.count()).select_from(ProbeResult)).scalar_one() == 10


# ---------------------------------------------------------------- the command, as a process

FAULTS = Scenario.model_validate({"id": "probe-faults", "faults": [
    {"kind": "device_down", "target": {"device": "dc2-leaf-05"}},
    {"kind": "link_down", "target": {"link": "dc1-leaf-05:Ethernet1"}}]})
PAIRS = "10.1.1.20,10.2.1.20\n10.1.1.20,10.2.5.20\n10.1.1.20,10.1.5.20\n10.1.1.20,8.8.8.8\n"


def faulty_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, T)
    inject(engine, FAULTS)
    (tmp_path / "pairs.csv").write_text(PAIRS)
    return home


def stored(home: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / "netopsai.db") as db:
        return db.execute("SELECT at, src, dst, status, src_pod, dst_device, dst_pod, "
                          "failing_device FROM proberesult ORDER BY id").fetchall()


def test_batch_record_stores_each_pair_with_the_run_time(tmp_path: Path) -> None:
    home = faulty_home(tmp_path)
    r = run_cli(home, "batch", str(tmp_path / "pairs.csv"), "--record")
    assert r.returncode == 1, r.stderr  # some pairs unreachable, as without --record
    assert "Traceback" not in r.stderr
    assert r.stderr.splitlines()[-1] == "recorded 4 probe results at 2026-03-10T12:00:00Z"
    at = "2026-03-10 12:00:00.000000"
    assert stored(home) == [
        (at, "10.1.1.20", "10.2.1.20", "reachable", "dc1-pod1", "dc2-host-01-1", "dc2-pod1", None),
        (at, "10.1.1.20", "10.2.5.20", "unreachable", "dc1-pod1", "dc2-host-05-1", "dc2-pod1",
         "dc2-leaf-05"),
        (at, "10.1.1.20", "10.1.5.20", "unreachable", "dc1-pod1", "dc1-host-05-1", "dc1-pod1",
         "dc1-leaf-05"),
        (at, "10.1.1.20", "8.8.8.8", "error", "dc1-pod1", None, None, None)]
    plain = run_cli(home, "batch", str(tmp_path / "pairs.csv"))
    assert plain.returncode == 1 and len(stored(home)) == 4  # without --record: nothing stored


def test_batch_record_on_a_bad_store_is_one_line(tmp_path: Path) -> None:
    home = faulty_home(tmp_path)
    with sqlite3.connect(home / "netopsai.db") as db:  # a store that refuses probe rows
        db.execute("CREATE TRIGGER no_probes BEFORE INSERT ON proberesult "
                   "BEGIN SELECT RAISE(ABORT, 'probe rows refused'); END")
    r = run_cli(home, "batch", str(tmp_path / "pairs.csv"), "--record")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "error: cannot record probe results in the store: probe rows refused"]
    assert r.stdout == ""  # said before any pair was traced


def test_record_into_a_store_without_the_table_is_a_netops_error(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    migrate.upgrade(engine)
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE proberesult"))
    with pytest.raises(NetopsError, match=r"^cannot record probe results in the store: no such "
                                          r"table: proberesult$"):
        probes.record(engine, [result(*POD1, "reachable")], T, lambda ip: {})


# ---------------------------------------------------------------- retention

def test_prune_removes_probes_past_their_days(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")  # a real network's store
    migrate.upgrade(engine)
    probe_runs(engine, [(T - timedelta(days=d), [result(*POD1, "unreachable")])
                        for d in (40, 36, 34, 1)])
    dry = prune(engine, RetentionSettings(), now=T, dry=True)
    assert dry.probes == 2 and len(probe_times(engine)) == 4  # dry: counted, kept
    assert "probe results: would remove 2 before 2026-02-03 12:00 UTC" in describe(dry)
    rep = prune(engine, RetentionSettings(), now=T)
    assert rep.probes == 2 and probe_times(engine) == [T - timedelta(days=34), T - timedelta(days=1)]
    assert prune(engine, RetentionSettings(probes_days=None), now=T + timedelta(days=100)).probes == 0


def probe_times(engine: Engine) -> list[datetime]:
    with Session(engine) as s:
        q = select(ProbeResult.at).order_by(ProbeResult.at)
        return [t.replace(tzinfo=UTC) for t in s.execute(q).scalars()]


def test_db_prune_dry_run_lists_probes(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'netopsai.db'}")
    migrate.upgrade(engine)
    now = datetime.now(UTC)
    probe_runs(engine, [(now - timedelta(days=d), [result(*POD1, "reachable")]) for d in (50, 2)])
    (tmp_path / "config.yaml").write_text("retention:\n  probes_days: 10\n")
    r = run_cli(tmp_path, "db", "prune", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert any(line.startswith("probe results: would remove 1 before") for line in r.stdout.splitlines())
    assert len(probe_times(engine)) == 2


def test_probe_timer_runs_batch_record_every_interval() -> None:
    """deploy/systemd: the timer's interval is the report's default probe interval; an
    unreachable pair (exit 1) is a recorded probe, not a failed unit."""
    import shlex

    systemd = REPO / "deploy" / "systemd"
    service = (systemd / "netopsai-probe.service").read_text()
    [cmd] = [ln.split("=", 1)[1] for ln in service.splitlines() if ln.startswith("ExecStart=")]
    argv = shlex.split(cmd)
    assert argv[0] == "/opt/netopsai/bin/netopsai" and argv[1] == "batch" and "--record" in argv
    assert "Type=oneshot" in service and "SuccessExitStatus=1" in service.splitlines()
    minutes = ReliabilitySettings().probe_interval_minutes
    assert f"OnCalendar=*:0/{minutes}" in (systemd / "netopsai-probe.timer").read_text().splitlines()
