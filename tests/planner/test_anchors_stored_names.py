""""How long since it last logged" reads every name a device is stored under (issue 24 item 2;
planner/anchors.py): a question asked without a window about a device whose logs were loaded
after the fact ends its window at the device's latest line, and that line may be stored under
its other spelling (NAME and NAME.domain are one device under `ingest.domains`).

The lines are real (bench/real_logs cisco_ios-0202..0215, a Catalyst's GigabitEthernet0/2
bouncing on 2023-08-22 in a syslog server's file). The first six are loaded with the host column
written bare (`es-tf-sw-224`, the only change made to a line), the rest as published under the
full name, before any domain was configured; then the domain is configured. So the switch's
latest lines are under its full name."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import Session

from netopsai.planner.anchors import resolve_window
from netopsai.planner.entities import Entities
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from tests.cli_helpers import run_cli
from tests.planner.test_hostnames_real_logs import corpus_lines, labelled
from tests.planner.test_logs_questions import ask, rows

FQDN = "es-tf-sw-224.vceaa.votorantim.grupo"
BARE = "es-tf-sw-224"
IDS = [f"cisco_ios-{i:04d}" for i in range(202, 216)]
LINES = corpus_lines(IDS)
BEFORE = "ingest:\n  timezone: UTC\n  timezones:\n    'es-tf-sw-224*': UTC\n"
AFTER = BEFORE + "  domains: [vceaa.votorantim.grupo]\n"
DAYS_LATER = datetime(2023, 8, 25, 9, 0, tzinfo=UTC)  # nothing logged in the last 24 h


def _load(home: Path, name: str, lines: list[str]) -> None:
    path = home / name
    path.write_text("\n".join(lines) + "\n")
    stamp = datetime(2023, 8, 23, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))  # the year of the year-less stamps
    done = run_cli(home, "ingest", "--file", str(path))
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six lines under the bare name, eight under the full one; then the domain configured and
    the switch imported under its bare name."""
    home = tmp_path_factory.mktemp("anchors") / "home"
    home.mkdir()
    (home / "config.yaml").write_text(BEFORE)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Meta(key="network", value="real"))
        s.commit()
    _load(home, "bare.log", [line.replace(f" {FQDN} ", f" {BARE} ", 1) for line in LINES[:6]])
    _load(home, "full.log", LINES[6:])
    (home / "config.yaml").write_text(AFTER)
    with Session(engine) as s:
        s.add(m.Device(name=BARE, role="access", site="br1", mgmt_ip="192.0.2.224", vendor="cisco"))
        s.add(m.Interface(device=BARE, name="GigabitEthernet0/2"))
        s.commit()
    return home


def test_the_window_ends_at_the_latest_line_under_either_name(home: Path) -> None:
    r = ask(home, f"what happened to {BARE} Gi0/2?", DAYS_LATER)
    last = labelled(IDS[-1])  # 07:22:33.647 on the device, stored under the full name
    said = rows(r, "events")
    assert {e["device"] for e in said} == {BARE, FQDN}
    assert len(said) == len(IDS)  # every line up to the latest, not only the bare name's six
    assert f"up to its latest event ({last:%Y-%m-%dT%H:%M:%SZ})" in r["answer"]


def test_a_provisional_device_is_asked_about_under_every_name() -> None:
    """resolve_window hands last_seen the device under each name it is stored under."""
    asked: list[list[str]] = []
    latest = {BARE: datetime(2023, 8, 22, 6, 38, tzinfo=UTC),
              FQDN: datetime(2023, 8, 22, 7, 22, 33, tzinfo=UTC)}

    def last_seen(ent: Entities) -> datetime | None:
        asked.append(list(ent.devices))
        return max((latest[d] for d in ent.devices if d in latest), default=None)

    ent = Entities(devices=[BARE], provisional=[BARE])
    notes = resolve_window(ent, "alarms", DAYS_LATER, None, last_seen,
                           lambda d: [BARE, FQDN] if d == BARE else [])
    assert asked == [[BARE, FQDN]] and ent.devices == [BARE]
    assert ent.window == {"start": "2023-08-21T07:22:33Z", "end": "2023-08-22T07:22:34Z"}
    assert notes and BARE in notes[0] and FQDN not in notes[0]


def test_a_window_before_the_other_names_lines_is_no_error(home: Path) -> None:
    """Asked about a window in which only the bare name logged, the events read over both
    names answers with those lines: the full name, which logged only later, is a quiet name
    of a known device, not an unknown one that fails the read."""
    r = ask(home, f"what happened to {BARE} Gi0/2 between 06:00 and 07:00 on 22 August 2023?",
            DAYS_LATER)
    [events] = [e for e in r["evidence"] if e["tool"] == "events"]
    assert sorted(events["args"]["devices"]) == [BARE, FQDN] and not events.get("errors")
    assert [e["at"] for e in events["rows"]] == [f"{labelled(i):%Y-%m-%dT%H:%M:%S.%f}"[:-3] + "Z"
                                                 for i in IDS[:6]]
