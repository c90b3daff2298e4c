"""Every time shown to a person carries its zone (issue 25 item 5): a bare "17:41" read by an
on-call in California is an hour that never happened to them. The network's zone is named
("09:41:20 PST"), UTC is marked Z ("08:10Z"); the columns the diagnosis parses stay ISO UTC."""

from __future__ import annotations

import re

import pytest

from netopsai.ui.gradio.device import _changes_frame, _events_frame, when, zone_info

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
