"""What the terminal prints for a person on the network's clock (issue 25 item 5): `netopsai jobs
list`, `netopsai tokens list` and the horizons `netopsai db prune` (and ingest's and poll's
periodic prune) report, in config.yaml's `ingest.timezone` with the zone named (Los Angeles:
PST in November), UTC named in a UTC network. `--json` stays ISO UTC."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from netopsai.config.network import RetentionSettings
from netopsai.launch.app import main
from netopsai.store import migrate
from netopsai.store.engine import engine_for
from netopsai.store.jobs_import import import_jobs, list_jobs
from netopsai.store.retention import PeriodicPrune
from tests.lab.test_ai_fabric import DATA
from tests.store.test_retention import fill

LA = "America/Los_Angeles"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    return tmp_path


def _store(home: Path) -> Engine:
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    migrate.upgrade(engine)
    return engine


def _zone(home: Path, zone: str, extra: str = "") -> None:
    (home / "config.yaml").write_text(f"ingest:\n  timezone: {zone}\n{extra}")


def _pst(t: datetime) -> str:
    return f"{t.astimezone(ZoneInfo(LA)):%Y-%m-%d %H:%M} PST"


def test_jobs_list_is_on_the_network_clock(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    engine = _store(home)
    import_jobs(engine, DATA / "sacct.txt", "sacct", None)
    job = next(j for j in list_jobs(engine) if j.name == "llama-70b-pretrain")
    assert job.start is not None
    _zone(home, LA)
    capsys.readouterr()
    assert main(["jobs", "list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "llama-70b-pretrain" in x)
    assert f" {_pst(job.start)} .. running " in line, line  # tabs shown as spaces
    _zone(home, "UTC")
    assert main(["jobs", "list"]) == 0
    utc = job.start.astimezone(ZoneInfo("UTC"))
    assert f" {utc:%Y-%m-%d %H:%M} UTC .. running " in capsys.readouterr().out
    assert main(["jobs", "list", "--json"]) == 0  # parsed: as stored
    rows = json.loads(capsys.readouterr().out)
    assert "PST" not in json.dumps(rows) and any(r["name"] == job.name for r in rows)


def test_tokens_list_is_on_the_network_clock(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from netopsai.api import tokens

    engine = _store(home)
    tokens.create(engine, "reader", ["read"])
    tokens.create(engine, "gone", ["read"])
    tokens.revoke(engine, "gone")
    made = {t.name: t for t in tokens.listing(engine)}
    _zone(home, LA)
    capsys.readouterr()
    assert main(["tokens", "list"]) == 0
    out = capsys.readouterr().out
    assert f"reader\tread\tactive\tcreated {_pst(made['reader'].created_at)}" in out, out
    revoked = made["gone"].revoked_at
    assert revoked is not None and f"revoked {_pst(revoked)}" in out, out


def test_db_prune_says_its_horizons_on_the_network_clock(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill(_store(home))
    keep = "retention:\n  raw_events_days: 20\n  samples_days: 1000\n"
    _zone(home, LA, keep)
    capsys.readouterr()
    assert main(["db", "prune", "--dry-run"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("raw events"))
    # 20 days before the clock, on the hour: 'before 2026-11-… PST (… UTC)'
    assert line.startswith("raw events: would remove 1 before 20") and " PST (" in line, line
    assert line.endswith(" UTC)")  # UTC beside the local time
    _zone(home, "UTC", keep)
    assert main(["db", "prune", "--dry-run"]) == 0
    utc = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("raw events"))
    assert utc.endswith(" UTC") and "PST" not in utc and "(" not in utc, utc


def test_the_periodic_prune_says_its_horizons_on_the_network_clock(home: Path) -> None:
    fill(_store(home))
    said: list[str] = []
    PeriodicPrune(_store(home), RetentionSettings(raw_events_days=20), zone=LA).tick(said.append)
    raw = next(x for x in said if x.startswith("prune: raw events"))
    assert " PST (" in raw and raw.endswith(" UTC)"), said


def test_alarms_silence_says_its_end_on_the_network_clock(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.store.test_alarm_acks import alarm_ids

    assert main(["lab", "init", "--now", "2025-11-04T20:00:00Z"]) == 0
    b = alarm_ids(engine_for(f"sqlite:///{home / 'netopsai.db'}"))[1]
    _zone(home, LA)
    capsys.readouterr()
    assert main(["alarms", "silence", str(b), "--for", "2h", "--by", "bob"]) == 0
    assert f"alarm {b} silenced until 2025-11-04 14:00 PST (22:00 UTC) by bob" in \
        capsys.readouterr().out
