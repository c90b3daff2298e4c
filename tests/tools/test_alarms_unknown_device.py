"""One bad row never blinds a view (issue 23, item 4): a syslog line from a device the
inventory does not know ("newswitch-99", from 127.0.0.1) used to turn `tool alarms` with
correlation, `alarms cases`, the Alarms tab and `/api/alarms` into "unknown device
'newswitch-99'" with no rows. Now each returns the other alarms and their cases plus the
stranger's own case, the device listed as unknown with its sender; and a correlation that fails
falls back to the plain list with a note."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.backends.syslog.receiver import SyslogContext, syslog_event
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.store.writer import QueuedWriter
from netopsai.tools.registry import run_tool
from netopsai.ui.gradio import alarms as av
from tests.cli_helpers import run_cli, small_lab_home

NEW = "newswitch-99"
SENDER = "127.0.0.1"
FAULTS = [{"kind": "device_down", "at": "-20m", "target": {"device": "dc2-leaf-05"}},
          {"kind": "link_down", "at": "-40m", "target": {"link": "dc1-leaf-03:Ethernet49"}}]


def log_from_new_switch(engine: Engine) -> None:
    """The one line: newswitch-99's port going down, 10 minutes before the lab's clock."""
    at = lab_info(engine).clock - timedelta(minutes=10)
    line = (f"<187>7: {NEW}: {at:%b %d %H:%M:%S}.000 UTC: %LINK-3-UPDOWN: Interface "
            "Ethernet1/1, changed state to down").encode()
    writer = QueuedWriter(str(engine.url))
    try:
        writer.put(syslog_event(line, SENDER, received_at=at, context=SyslogContext()))
        assert writer.wait_idle(60)
    finally:
        writer.stop()


@pytest.fixture
def lab(make_lab: Callable[..., Engine]) -> tuple[Engine, Backends]:
    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "b4", "now": lab_info(engine).clock,
                                            "question": "q", "faults": FAULTS}))
    log_from_new_switch(engine)
    return engine, lab_backends(engine)


def stranger_case(cases: list[dict[str, Any]]) -> dict[str, Any]:
    [case] = [c for c in cases if c.get("unknown_device")]
    return case


def check_cases(cases: list[dict[str, Any]]) -> None:
    """The stranger's own case, named as unknown with its sender, beside the others' cases."""
    case = stranger_case(cases)
    assert (case["root_device"], case["devices"], case["rule"]) == (NEW, [NEW], "unknown")
    assert case["senders"] == [SENDER] and SENDER in case["impact"]["summary"]
    outage = next(c for c in cases if c["root_device"] == "dc2-leaf-05")
    assert outage["rule"] == "outage" and outage["alarms"] > 1  # the others still correlate


def test_tool_alarms_with_correlation(lab: tuple[Engine, Backends]) -> None:
    _, b = lab
    ev = run_tool("alarms", {"window": "24h", "correlate": True}, b)
    assert ev.errors == []
    devices = {r["device"] for r in ev.rows}
    assert {NEW, "dc2-leaf-05", "dc1-leaf-03"} <= devices
    check_cases(ev.facts["cases"])
    own = stranger_case(ev.facts["cases"])["case"]
    assert ev.facts["unknown_devices"] == [{"device": NEW, "senders": [SENDER], "cases": [own]}]
    assert f"Not in the inventory: {NEW} (sent from {SENDER}; case {own})" in ev.summary
    assert next(r for r in ev.rows if r["device"] == NEW)["group"] == own


def test_tool_alarms_without_correlation_and_by_device(lab: tuple[Engine, Backends]) -> None:
    _, b = lab
    plain = run_tool("alarms", {"window": "24h"}, b)
    assert plain.errors == [] and plain.facts["unknown_devices"][0]["device"] == NEW
    mine = run_tool("alarms", {"window": "24h", "devices": [NEW]}, b)  # a device with alarms
    assert mine.errors == [] and [r["device"] for r in mine.rows] == [NEW]
    nobody = run_tool("alarms", {"window": "24h", "devices": ["nosuch-77"]}, b)
    assert nobody.errors and "unknown device 'nosuch-77'" in nobody.errors[0]


def test_the_alarms_tab_view(lab: tuple[Engine, Backends]) -> None:
    from netopsai.ui.gradio import alarms_tab as tab

    _, b = lab
    data = av.read_alarms(b, av.Filters(), "24h")
    assert data.error is None
    assert {NEW, "dc2-leaf-05"} <= {r["device"] for r in data.rows}
    check_cases(data.cases)
    assert f"**not in the inventory:** {NEW} (sent from {SENDER})" in data.summary
    frame = av.cases_frame(data.cases)
    assert f"LINK_DOWN on {NEW} Ethernet1/1 (not in the inventory)" in set(frame["suggested root cause"])
    shown = tab._reload(b, b.zone, "all", "all", "all", "any", "", False, "relative", "24h", None, None)
    assert NEW in {r["device"] for r in shown[7].values()}  # the tab's rows, by alarm id
    assert NEW in {c["root_device"] for c in shown[8].values()}  # and its cases


def test_the_api_alarms_endpoint(lab: tuple[Engine, Backends]) -> None:
    from fastapi.testclient import TestClient

    from netopsai.api import tokens
    from netopsai.api.http import build_api
    from netopsai.copilot.service import Copilot

    engine, b = lab
    token = tokens.create(engine, "reader", ["read"])
    with TestClient(build_api(Copilot(b), engine)) as client:
        r = client.get("/api/alarms", params={"window": "24h"},
                       headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["errors"] == [] and {NEW, "dc2-leaf-05"} <= {row["device"] for row in body["rows"]}
    check_cases(body["facts"]["cases"])


def test_slack_renders_the_cases_answer(lab: tuple[Engine, Backends]) -> None:
    """The bot's `/netops alarms` and its questions go through Copilot and the alarms tool;
    the blocks it posts carry the others' alarms and the stranger."""
    from netopsai.copilot.service import Copilot
    from netopsai.ui.slack.blocks import answer_blocks

    _, b = lab
    result = Copilot(b).answer("group the alarms of the last 24h into cases", "slack-b4")
    [ev] = [e for e in result["evidence"] if e["tool"] == "alarms"]
    assert ev["errors"] == [] and ev["args"].get("correlate") is True
    check_cases(ev["facts"]["cases"])
    text = "\n".join(str(blk["text"]["text"]) for blk in answer_blocks(result, "slack-b4")
                     if blk["type"] == "section" and "text" in blk)
    assert "error" not in text.lower() and "root DEVICE_UNREACHABLE on dc2-leaf-05" in text
    assert f"Not in the inventory: {NEW} (sent from {SENDER}; case" in text


def test_a_failing_correlation_falls_back_to_the_list(lab: tuple[Engine, Backends],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import netopsai.tools.alarms as tool

    def broken(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("topology reader down")

    _, b = lab
    every = run_tool("alarms", {"window": "24h"}, b).rows
    monkeypatch.setattr(tool, "correlate", broken)
    ev = run_tool("alarms", {"window": "24h", "correlate": True}, b)
    assert ev.errors == [] and len(ev.rows) == len(every) > 2
    assert "topology reader down" in ev.facts["note"] and "Not grouped into cases" in ev.summary
    assert len(ev.facts["cases"]) == len(ev.rows)  # each alarm its own case: none hidden
    data = av.read_alarms(b, av.Filters(), "24h")
    assert data.error is None and len(data.rows) == len(every)
    assert "**note:** correlation failed" in data.summary


def test_alarms_cases_command(tmp_path: Path) -> None:
    home = small_lab_home(tmp_path)
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    inject(engine, Scenario.model_validate({"id": "b4", "now": lab_info(engine).clock,
                                            "question": "q", "faults": FAULTS}))
    log_from_new_switch(engine)
    done = run_cli(home, "alarms", "cases", "--window", "24h", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["alarms"] >= 3
    check_cases(out["cases"])
    table = run_cli(home, "alarms", "cases", "--window", "24h")
    assert table.returncode == 0, table.stderr
    assert NEW in table.stdout and "not in the inventory" in table.stdout


def test_first_raised_of_a_strangers_case_is_its_alarm(lab: tuple[Engine, Backends]) -> None:
    _, b = lab
    ev = run_tool("alarms", {"window": "24h", "correlate": True}, b)
    case = stranger_case(ev.facts["cases"])
    at = datetime.fromisoformat(str(case["first_raised"]).replace("Z", "+00:00"))
    assert at == lab_info(b.inventory.engine).clock - timedelta(minutes=10)  # type: ignore[attr-defined]
