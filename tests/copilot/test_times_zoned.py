"""Every time shown to a person carries its zone (issue 25 item 5): a bare "17:41" read by an
on-call in California is an hour that never happened to them. The network's zone is named
("09:41:20 PST"), UTC is marked Z ("08:10Z"); the columns the diagnosis parses stay ISO UTC."""

from __future__ import annotations

import re
from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.copilot.evidence import Evidence, Ledger
from netopsai.copilot.toolbox import Toolbox
from netopsai.diagnosis.base import Diagnosis
from netopsai.diagnosis.context import Context
from netopsai.diagnosis.headline import since
from netopsai.planner.llm import evidence_block
from netopsai.tools.port_answers import zoned
from netopsai.ui.gradio.device import _changes_frame, _events_frame, when, zone_info
from netopsai.ui.gradio.views import evidence_html

AT = "2026-11-27T17:41:20Z"  # 09:41:20 in Los Angeles (PST, UTC-8)


@pytest.mark.parametrize("value", [AT, "2026-11-27 17:41:20", "2026-11-27T17:41:20+00:00"])
def test_the_device_page_names_the_network_zone(value: str) -> None:
    shown = when(value, zone_info("America/Los_Angeles"))
    assert shown.startswith("2026-11-27 09:41:20 PST")  # the network's wall time, its zone named
    assert "17:41Z" in shown  # UTC beside it, as the alarms page shows it


def test_the_device_page_marks_utc_with_z() -> None:
    assert when(AT, zone_info("UTC")) == "2026-11-27 17:41:20Z"
    assert when("2026-11-27T08:10:00Z", zone_info(None)) == "2026-11-27 08:10Z"


def test_the_device_page_tables_carry_the_zone() -> None:
    pst = zone_info("PST")
    changes = _changes_frame([{"ticket": "CHG1", "start": AT, "end": None}], pst)
    events = _events_frame([{"at": AT, "message": "Ethernet1 down"}], pst)
    assert changes.iloc[0]["start"].startswith("2026-11-27 09:41:20 PST")
    assert events.iloc[0]["at"].startswith("2026-11-27 09:41:20 PST")
    utc = _events_frame([{"at": AT, "message": "x"}], zone_info("UTC"))
    assert re.fullmatch(r"2026-11-27 17:41:20Z", utc.iloc[0]["at"])


# -- the diagnosis' "Since" (diagnosis/headline.py) ------------------------------------------------

class _Runner:
    """A tool runner as Toolbox.runner gives it: it carries the network's zone; no tool runs."""

    def __init__(self, zone: str) -> None:
        self.zone = zone

    def __call__(self, tool: str, args: dict[str, Any]) -> Evidence:
        raise AssertionError(f"no call expected ({tool})")


def _since(zone: str, evidence: list[Evidence], label: str = "link.down") -> str:
    ctx = Context(evidence, _Runner(zone), "why is leaf3 down?", focus="leaf3")
    found = since(ctx, Diagnosis(label, device="leaf3", interface="Ethernet1"))
    assert found is not None
    return found.text


STATE = Evidence(id="E1", tool="telemetry", args={"metric": "oper_status", "devices": ["leaf3"]},
                 rows=[{"device": "leaf3", "interface": "Ethernet1",
                        "events": "2026-11-27 17:41:20 down"}])  # telemetry's UTC, no zone
CHANGE = Evidence(id="E2", tool="changelog", args={"devices": ["leaf3"]},
                  rows=[{"device": "leaf3", "ticket": "CHG-7", "start": "2026-11-27T08:10:00Z"}])
ALARM = Evidence(id="E3", tool="alarms", args={"devices": ["leaf3"]},
                 rows=[{"id": 1, "device": "leaf3", "interface": "Ethernet1", "kind": "LINK_DOWN",
                        "state": "open", "raised_at": "2026-11-27T17:41:21Z"}])


@pytest.mark.parametrize("ev, pst, utc", [
    (STATE, "2026-11-27 09:41:20 PST, when leaf3 Ethernet1 went down",
     "2026-11-27T17:41:20Z, when leaf3 Ethernet1 went down"),
    (CHANGE, "2026-11-27 00:10:00 PST, when change CHG-7 began on leaf3",
     "2026-11-27T08:10:00Z, when change CHG-7 began on leaf3"),
    (ALARM, "2026-11-27 09:41:21 PST, when LINK_DOWN was raised on leaf3",
     "2026-11-27T17:41:21Z, when LINK_DOWN was raised on leaf3"),
])
def test_since_names_the_network_zone_and_marks_utc(ev: Evidence, pst: str, utc: str) -> None:
    assert _since("America/Los_Angeles", [ev]).startswith(pst)
    assert _since("UTC", [ev]).startswith(utc)


def test_the_toolbox_runner_carries_the_network_zone() -> None:
    backends = Backends(inventory=None, telemetry=None, paths=None, changes=None, alarms=None,
                        zone="Europe/Paris")  # type: ignore[arg-type]
    assert Context([], Toolbox(backends).runner(Ledger())).zone == "Europe/Paris"
    assert Context([]).zone == "UTC"  # no runner: UTC, marked Z


# -- the web app's evidence table (ui/gradio/views.py) ---------------------------------------------

def _state_evidence(zone: str) -> dict[str, Any]:
    """A port state read as the telemetry tool returns it: `events` in bare UTC (parsed by the
    diagnosis), `changes` the same in the asked zone (tools/port_answers)."""
    tz = zoned.zone(zone)
    row = {"device": "leaf4", "interface": "Hu0/0/0/1", "change": "went down",
           "events": "2026-11-27 17:41:20 down",
           "changes": zoned.events_in("2026-11-27 17:41:20 down", tz)}
    return Evidence(id="E1", tool="telemetry", args={"metric": "oper_status"}, rows=[row],
                    columns=["device", "interface", "change", "changes", "events"]).model_dump()


@pytest.mark.parametrize("zone, marked", [("America/Los_Angeles", "2026-11-27 09:41:20 PST down"),
                                          ("UTC", "2026-11-27 17:41:20 UTC down")])
def test_the_evidence_table_shows_each_state_change_with_its_zone(zone: str, marked: str) -> None:
    ev = _state_evidence(zone)
    shown = evidence_html([ev], zone=zone)
    assert marked in shown
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", shown)
    assert "2026-11-27 17:41:20 down" not in cells  # no cell with a bare UTC time
    assert ev["rows"][0]["events"] == "2026-11-27 17:41:20 down"  # the row as the diagnosis reads it


# -- the LLM's evidence preview (planner/llm.py evidence_block) -------------------------------------

@pytest.mark.parametrize("zone, marked", [("America/Los_Angeles", "2026-11-27 09:41:20 PST down"),
                                          ("UTC", "2026-11-27 17:41:20 UTC down")])
def test_the_prompt_preview_gives_the_model_times_with_their_zone(zone: str, marked: str) -> None:
    block = evidence_block([Evidence(**_state_evidence(zone))])
    assert marked in block
    assert "17:41:20 down" not in block  # the bare-UTC events column is not in the prompt
