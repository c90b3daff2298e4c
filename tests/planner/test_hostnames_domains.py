"""One device under two stored names (issue 24 item 2): lines loaded while a device logged its
fully qualified name (`es-tf-sw-224.vceaa.votorantim.grupo`, before `ingest.domains` named the
domain or the inventory named the box) and lines it logs under its bare name afterwards are one
device. Questions, the Device page and the device's alarms read both; nothing stored is renamed.

The lines are real (bench/real_logs cisco_ios-0202..0215: a Catalyst's GigabitEthernet0/2
bouncing on 2023-08-22, as a syslog server's file holds them). The first six are loaded as
published; the rest with the host column written bare (`es-tf-sw-224`), as the same switch
writes it once its domain name is gone — the only change made to a line."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import Session, select

from netopsai.backends.base import Backends
from netopsai.backends.registry import configured_backends
from netopsai.config.load import load_netconfig
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.ui.gradio.device import device_page
from tests.cli_helpers import run_cli
from tests.planner.test_hostnames_real_logs import corpus_lines
from tests.planner.test_logs_questions import _At, ask, rows

FQDN = "es-tf-sw-224.vceaa.votorantim.grupo"
BARE = "es-tf-sw-224"
BEFORE = "ingest:\n  timezone: Europe/Berlin\n  timezones:\n    'es-tf-sw-224*': UTC\n"
AFTER = BEFORE + "  domains: [vceaa.votorantim.grupo]\n"
LINES = corpus_lines([f"cisco_ios-{i:04d}" for i in range(202, 216)])
MORNING_AFTER = datetime(2023, 8, 23, 7, 30, tzinfo=UTC)  # 09:30 in Berlin


def _load(home: Path, name: str, lines: list[str]) -> None:
    path = home / name
    path.write_text("\n".join(lines) + "\n")
    stamp = datetime(2023, 8, 23, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))  # the year of the year-less stamps
    done = run_cli(home, "ingest", "--file", str(path))
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first six lines under the full name (no domain configured yet); then the domain set
    and the rest loaded under the bare name. No inventory entry for the switch."""
    home = tmp_path_factory.mktemp("domains") / "home"
    home.mkdir()
    (home / "config.yaml").write_text(BEFORE)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Meta(key="network", value="real"))
        s.commit()
    _load(home, "server-old.log", LINES[:6])
    (home / "config.yaml").write_text(AFTER)
    _load(home, "server-new.log", [line.replace(f" {FQDN} ", f" {BARE} ", 1) for line in LINES[6:]])
    return home


def stored(home: Path) -> dict[str, int]:
    """Lines per stored device name, as the store holds them."""
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    with Session(engine) as s:
        return {str(d): n for d, n in s.exec(select(m.RawEvent.device, func.count())
                                             .group_by(m.RawEvent.device))}


def test_a_question_about_the_bare_name_reads_the_lines_stored_under_the_full_name(
        home: Path) -> None:
    before = stored(home)
    assert before == {FQDN: 6, BARE: 8}  # as loaded: two names, one switch
    r = ask(home, "which ports flapped on es-tf-sw-224 yesterday?", MORNING_AFTER)
    [events] = [e for e in r["evidence"] if e["tool"] == "events"]
    assert sorted(events["args"]["devices"]) == [BARE, FQDN]
    assert len(events["rows"]) == 14  # both files' lines, on the device's time
    assert events["rows"][0]["at"] == "2023-08-22T06:37:59.591Z"  # the first, under FQDN
    assert events["rows"][-1]["at"] == "2023-08-22T07:22:33.647Z"  # the last, under BARE
    assert f"(also stored as {FQDN})" in r["answer"]
    assert f"its lines stored as {FQDN} read too" in r["answer"]
    assert stored(home) == before  # read, not rewritten


def test_the_device_page_shows_both_names_lines(home: Path) -> None:
    os.environ["NETOPSAI_HOME"] = str(home)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    backends: Backends = replace(configured_backends(engine, load_netconfig(home)),
                                 inventory=_At(engine, MORNING_AFTER))
    page = device_page(backends, BARE, "2d")
    assert page.name == BARE and "not in the inventory" in page.facts
    assert len(page.events) == 14
    assert f"also stored as {FQDN}" in page.facts


@pytest.fixture
def imported(home: Path, tmp_path: Path) -> Path:
    """A copy of the store, then the switch imported into the inventory under its bare name
    (after its full-name lines were stored as a provisional device)."""
    copy = tmp_path / "home"
    copy.mkdir()
    with sqlite3.connect(home / "netopsai.db") as src, sqlite3.connect(copy / "netopsai.db") as dst:
        src.backup(dst)  # the write-ahead log's pages too
    (copy / "config.yaml").write_text(AFTER)
    engine = engine_for(f"sqlite:///{copy / 'netopsai.db'}")
    with Session(engine) as s:
        s.add(m.Device(name=BARE, role="access", site="br1", mgmt_ip="192.0.2.224", vendor="cisco"))
        s.add(m.Interface(device=BARE, name="GigabitEthernet0/2"))
        s.commit()
    return copy


def test_an_inventory_device_reads_its_lines_stored_under_its_full_name(imported: Path) -> None:
    r = ask(imported, "what happened to es-tf-sw-224 Gi0/2 on 22 August 2023?", MORNING_AFTER)
    said: list[dict[str, Any]] = rows(r, "events")
    assert {e["device"] for e in said} == {BARE, FQDN}
    assert len(said) == 14
    # the labelled first down (cisco_ios-0204) is one of the lines stored under the full name
    assert [e["at"] for e in said if e["device"] == FQDN][2] == "2023-08-22T06:38:01.881Z"
    assert stored(imported) == {FQDN: 6, BARE: 8}


def test_the_longest_configured_domain_is_the_one_stripped() -> None:
    """With example.net and dc.example.net configured (in either order), leaf1.dc.example.net
    is leaf1: stripping example.net first left 'leaf1.dc', a name no device has."""
    from netopsai.planner.hostnames import spellings, strip_domain

    for domains in (("example.net", "dc.example.net"), ("dc.example.net", "example.net")):
        assert strip_domain("leaf1.dc.example.net", domains) == "leaf1"
        assert "leaf1" in spellings("leaf1.dc.example.net", domains)
