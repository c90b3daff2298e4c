"""The events tool: what devices reported, on their clocks, found by device, by a port in any of
its names (and its optics controller), by message id and by text. IOS-XR lines through a
syslog server, in the documented formats."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.backends.syslog.files import load_files
from netopsai.copilot.evidence import Evidence
from netopsai.tools.registry import run_tool
from tests.paths import DATA

LOG = DATA / "logfiles" / "spine2-xr.log"
SEPT = "2017-09-01T10:00:00Z..2017-09-01T11:00:00Z"


@pytest.fixture
def engine(make_lab: Callable[..., Engine], tmp_path: Path) -> Engine:
    eng = make_lab()
    log = shutil.copy(LOG, tmp_path / LOG.name)
    written = datetime.fromisoformat("2017-09-02T00:00:00+00:00").timestamp()
    os.utime(log, (written, written))
    stats = load_files(str(eng.url), [Path(log)])
    assert stats.stored == 6
    return eng


def _events(engine: Engine, **args: Any) -> Evidence:
    ev = run_tool("events", {"window": SEPT, **args}, lab_backends(engine))
    assert ev.errors == [], ev.errors
    return ev


def test_a_port_in_any_of_its_names_and_its_optics(engine: Engine) -> None:
    for name in ("Hu0/0/0/8", "HundredGigE0/0/0/8", "HundredGigabitEthernet0/0/0/8"):
        ev = _events(engine, devices=["spine2"], interface=name)
        assert [r["mnemonic"] for r in ev.rows] == [
            "PKT_INFRA-FM-3-FAULT_MAJOR", "PKT_INFRA-LINK-3-UPDOWN", "MGBL-CONFIG-6-DB_COMMIT",
            "PKT_INFRA-LINK-3-UPDOWN"], name  # in device-time order; not port 0/0/0/80
        assert ev.rows[0]["at"] == "2017-09-01T10:15:00.050Z"


def test_message_id_text_and_window(engine: Engine) -> None:
    bgp = _events(engine, mnemonic="adjchange")
    assert [r["device"] for r in bgp.rows] == ["spine2"] and "10.0.8.1" in bgp.rows[0]["message"]
    literal = _events(engine, text="100%")  # % is the text's, not a wildcard
    assert [r["mnemonic"] for r in literal.rows] == ["MGBL-CONFIG-6-DB_COMMIT"]
    assert _events(engine, text="uplink_a").facts["events"] == 1
    assert _events(engine, text="uplink%a").facts["events"] == 0
    later = run_tool("events", {"window": "2017-09-02T00:00:00Z..2017-09-03T00:00:00Z"},
                     lab_backends(engine))
    assert later.facts["events"] == 0 and later.rows == []


def test_the_latest_are_shown_and_the_summary_says_how_many_more(engine: Engine) -> None:
    ev = _events(engine, devices=["spine2"], limit=2)
    assert ev.facts["events"] == 6 and len(ev.rows) == 2
    assert ev.rows[-1]["message"].endswith("changed state to Up")
    assert "the latest 2 shown: narrow the window" in ev.summary
