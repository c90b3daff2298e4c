"""The Device tab's content (ui/gradio/device.py) without a server: a fresh lab with a fault
injected the way scenarios do, then the page one device shows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pandas as pd
import pytest
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import Evidence
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.ui.gradio.device import (
    DASH,
    device_names,
    device_page,
    facts_html,
    when,
    zone_info,
)
from netopsai.ui.gradio.views import device_href

ACL = [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
        "params": {"dst": "10.2.1.0/24"}},
       {"kind": "change", "at": "-27m", "target": {"device": "dc1-leaf-03"},
        "params": {"summary": "Apply new ACL set <b>now</b>", "ticket": "CHG-1042"}}]
LINK = [{"kind": "link_down", "at": "-40m", "target": {"interface": "dc1-leaf-05:Ethernet49"}}]


def faulted(engine: Engine, faults: list[dict[str, Any]]) -> Backends:
    inject(engine, Scenario.model_validate({"id": "device-page", "now": lab_info(engine).clock,
                                            "question": "q", "faults": faults}))
    return lab_backends(engine)


@pytest.fixture
def acl(make_lab: Callable[..., Engine]) -> Backends:
    return faulted(make_lab(), ACL)


@pytest.fixture
def link_down(make_lab: Callable[..., Engine]) -> Backends:
    return faulted(make_lab(), LINK)


def lab_clock(backends: Backends) -> Any:
    return backends.inventory.clock()


def cells(frame: pd.DataFrame) -> list[str]:
    return [str(v) for v in frame.to_numpy().ravel()]


def no_none(*frames: pd.DataFrame) -> None:
    for f in frames:
        assert not {"None", "nan", "NaT", ""} & set(cells(f)), f


def test_the_faulted_device_shows_its_change_record_and_filter(acl: Backends) -> None:
    page = device_page(acl, "dc1-leaf-03")
    assert page.errors == []
    assert page.status.startswith("dc1-leaf-03: ")
    top = page.changes.iloc[0]  # newest first
    assert (top["ticket"], top["status"]) == ("CHG-1042", "completed")
    assert top["start"] == when(lab_clock(acl) - timedelta(minutes=27), zone_info("UTC"))
    assert top["summary"] == "Apply new ACL set <b>now</b>"  # a plain-text cell, as recorded
    assert "NETOPS-FILTER deny 0.0.0.0/0 → 10.2.1.0/24" in page.facts  # what the trace hits
    assert ">leaf<" in page.facts and ">dc1-pod1<" in page.facts
    no_none(page.interfaces, page.neighbours, page.changes, page.alarms, page.cases)



def test_the_faulted_device_shows_its_open_alarms_and_case(link_down: Backends) -> None:
    page = device_page(link_down, "dc1-leaf-05")
    kinds = set(page.alarms["kind"])
    assert {"LINK_DOWN", "BGP_DOWN"} <= kinds
    assert "Ethernet49" in set(page.alarms["interface"])
    assert DASH in set(page.alarms["interface"])  # the BGP alarm has no port: a dash, not None
    assert len(page.cases) == 1  # both ends' link and BGP alarms: one case
    case = page.cases.iloc[0]
    assert (case["state"], case["alarms"]) == ("open", 4)  # LINK_DOWN and BGP_DOWN at each end
    assert case["suggested root cause"] in ("LINK_DOWN on dc1-leaf-05 Ethernet49",
                                            "LINK_DOWN on dc1-spine-01 Ethernet5")  # either end
    no_none(page.alarms, page.cases)


def test_a_link_down_shows_the_port_down_and_its_transition(link_down: Backends) -> None:
    page = device_page(link_down, "dc1-leaf-05")
    port = page.interfaces.iloc[0]  # down ports first
    assert (port["interface"], port["state"]) == ("Ethernet49", "down")
    assert port["last change"].startswith("down at ")
    assert port["in the window"] == "1 change, down 40m"
    assert (page.interfaces.iloc[1:]["state"] == "up").all()
    eth49 = page.timeline[page.timeline["port"] == "Ethernet49"]
    assert list(eth49["up"]) == [1, 1, 0, 0]  # up at the start, the step down, down at the end
    assert eth49["time"].iloc[1] == eth49["time"].iloc[2]  # both sides of the one transition
    at = lab_clock(link_down) - timedelta(minutes=40)
    assert eth49["time"].iloc[1] == pd.Timestamp(at.replace(tzinfo=None))
    assert page.timeline["port"].iloc[0] == "Ethernet49"  # the down port is the first line
    assert page.timeline["port"].nunique() <= 8
    neighbour = page.neighbours.iloc[0]
    assert (neighbour["interface"], neighbour["status"]) == ("Ethernet49", "down")


def test_a_healthy_device_shows_every_interface_up(link_down: Backends) -> None:
    page = device_page(link_down, "dc1-leaf-02")
    assert page.errors == [] and len(page.interfaces) > 4
    assert set(page.interfaces["state"]) == {"up"}
    assert set(page.interfaces["in the window"]) == {"no change"}
    assert set(page.interfaces["last change"]) == {DASH}
    assert len(page.alarms) == 0 and set(page.timeline["up"]) == {1}
    assert "0 of " in page.status
    no_none(page.interfaces, page.neighbours)


def test_an_unknown_device_is_one_line_with_the_closest_names(acl: Backends) -> None:
    page = device_page(acl, "dc1-leaf-3")
    assert page.status == "unknown device 'dc1-leaf-3'; did you mean dc1-leaf-03, dc1-leaf-13, dc1-leaf-23?"
    assert "\n" not in page.status and page.facts == "" and len(page.interfaces) == 0


def test_a_bad_window_is_one_line(acl: Backends) -> None:
    page = device_page(acl, "dc1-leaf-03", "soon")
    assert page.status.startswith("bad duration 'soon'") and page.facts == ""


def test_no_device_asks_for_one(acl: Backends) -> None:
    assert "?device=NAME" in device_page(acl, "  ").status


def test_times_read_in_the_network_zone(link_down: Backends) -> None:
    link_down.zone = "Europe/Paris"  # UTC+1 in November
    page = device_page(link_down, "dc1-leaf-05")
    at = lab_clock(link_down) - timedelta(minutes=40)
    assert page.interfaces.iloc[0]["last change"] == (f"down at {at + timedelta(hours=1):%Y-%m-%d %H:%M} "
                                                      f"CET ({at:%H:%M}Z)")  # the zone marked
    assert "Europe/Paris" in page.status
    eth49 = page.timeline[page.timeline["port"] == "Ethernet49"]
    assert eth49["time"].iloc[1] == pd.Timestamp((at + timedelta(hours=1)).replace(tzinfo=None))


def test_device_links_and_names(acl: Backends) -> None:
    assert device_href("dc1-leaf-03") == "?device=dc1-leaf-03"
    assert device_href("edge 1/a&b") == "?device=edge%201%2Fa%26b"
    names = device_names(acl)
    assert "dc1-leaf-03" in names and len(names) == len(set(names)) > 50


def test_network_text_in_the_card_is_escaped() -> None:
    rule = {"kind": "acl", "name": "<script>x()</script>", "action": "deny", "src": None,
            "dst": "10.0.0.0/8", "since": None}
    card = facts_html({"name": "<img src=x onerror=y>", "status": "up", "rack": None},
                      Evidence(tool="metadata", summary="", rows=[rule]), zone_info(None))
    assert "<img" not in card and "<script>" not in card
    assert "&lt;img src=x onerror=y&gt;" in card and "&lt;script&gt;" in card
    assert "None" not in card and f"<b>{DASH}</b>" in card  # the rack it lacks


def test_the_plot_gets_instants_whose_browser_wall_time_is_the_networks() -> None:
    from netopsai.ui.gradio.device_tab import for_browser  # imports gradio: only this test

    frame = pd.DataFrame({"time": [pd.Timestamp("2025-11-04 19:20")], "up": [0], "port": ["Ethernet49"]})
    tokyo = for_browser(frame, "Asia/Tokyo")  # UTC+9: 19:20 there is 10:20 UTC
    assert tokyo["time"].iloc[0] == pd.Timestamp("2025-11-04 10:20", tz="UTC")
    assert for_browser(frame, "Nowhere/Else") is frame  # unknown: left as is (right in UTC)
    assert frame["time"].iloc[0] == pd.Timestamp("2025-11-04 19:20")  # the page's own frame intact
