"""A device known only from loaded logs is a provisional device (issue 24 item 2): its alarm
look-up over a window where it raised nothing answers "no alarms for X in <window>", never
"unknown device"; a name neither the inventory nor the logs know stays an error.

The lines are real (bench/real_logs, each with its source): linux_nic-0636..0644, an XCP-ng
host's eth1 bouncing on 2023-11-06 (xcp-ng-mfshjjxr, not in the inventory), loaded as a syslog
server's file."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.backends.syslog.files import load_files
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.tools.registry import run_tool
from tests.real_logs_kit import corpus

XCP = [f"linux_nic-{n:04d}" for n in range(636, 645)]
HOST = "xcp-ng-mfshjjxr"
QUIET = {"start": "2023-11-01T00:00:00Z", "end": "2023-11-02T00:00:00Z"}  # before its lines
BUSY = {"start": "2023-11-06T00:00:00Z", "end": "2023-11-07T00:00:00Z"}


@pytest.fixture
def backends(tmp_path: Path) -> Backends:
    engine: Engine = engine_for(f"sqlite:///{tmp_path / 'logs.db'}")
    create_all(engine)
    with Session(engine) as s:  # a real network's inventory, which does not list the host
        s.add(m.Meta(key="network", value="real"))
        s.add(m.Device(name="edge-20", role="leaf", site="fra1", mgmt_ip="192.0.2.20"))
        s.commit()
    path = tmp_path / f"{HOST}.log"
    path.write_text("".join(corpus()[i]["line"] + "\n" for i in XCP))
    stamp = datetime(2023, 11, 7, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    load_files(str(engine.url), [path])
    assert corpus()[XCP[0]]["expect"]["host"] == HOST
    return lab_backends(engine)


def test_a_provisional_device_with_no_alarms_in_the_window(backends: Backends) -> None:
    ev = run_tool("alarms", {"devices": [HOST], "window": QUIET}, backends)
    assert ev.errors == [] and ev.rows == []
    assert (f"No alarms for {HOST} in 2023-11-01T00:00:00Z – 2023-11-02T00:00:00Z ({HOST}: not "
            "in the inventory, known from its log lines).") in ev.summary


def test_its_category_read_says_none_of_that_category(backends: Backends) -> None:
    ev = run_tool("alarms", {"devices": [HOST], "window": BUSY, "category": "optics"}, backends)
    assert ev.errors == [] and ev.rows == []
    assert f"No optics alarms for {HOST} in 2023-11-06T00:00:00Z" in ev.summary


def test_its_alarms_in_their_window_are_read(backends: Backends) -> None:
    ev = run_tool("alarms", {"devices": [HOST], "window": BUSY}, backends)
    assert ev.errors == [] and {r["interface"] for r in ev.rows} == {"eth1"}
    assert "No alarms for" not in ev.summary


def test_a_name_nothing_knows_is_still_an_error(backends: Backends) -> None:
    ev = run_tool("alarms", {"devices": ["xcp-ng-nowhere"], "window": QUIET}, backends)
    assert ev.errors and "xcp-ng-nowhere" in ev.errors[0] and ev.errors[0].startswith("unknown")
