"""device.down is decided by live evidence, not by the inventory's status column: a stale `up`
in the inventory does not hide a dead device, and a device that answers traceroute is alive
whatever an unreachable alarm says. Embedded lab, real tools, real engine."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import Session

from netopsai.backends.lab import lab_backends
from netopsai.copilot.service import Copilot
from netopsai.lab.events import alarm
from netopsai.lab.manage import lab_info
from netopsai.store import tables as m
from tests.copilot.test_copilot_diagnosis import DST_TOR, QUESTION, ask_after


def _set_status(engine: Any, device: str, status: str) -> None:
    with Session(engine) as s:
        row = s.get(m.Device, device)
        assert row is not None
        row.status = status
        s.add(row)
        s.commit()


def test_dead_tor_is_down_though_the_inventory_still_says_up(make_lab: Any) -> None:
    engine = make_lab()
    ask_after(engine, [{"kind": "device_down", "target": {"device": DST_TOR}}])
    _set_status(engine, DST_TOR, "up")  # the inventory is a record, not live state
    r = Copilot(lab_backends(engine)).answer(QUESTION, "t")
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("device.down", DST_TOR), \
        r["answer"][:800]
    assert "unreachable alarm" in r["answer"] and "still lists it up" in r["answer"]


def test_a_device_answering_traceroute_is_alive_despite_an_unreachable_alarm(
        make_lab: Any) -> None:
    engine = make_lab()
    trace = Copilot(lab_backends(engine)).answer(QUESTION, "t")
    assert trace["root_cause"]["label"] == "none"
    hops = next(e for e in trace["evidence"] if e["tool"] == "traceroute")["rows"]
    middle = hops[len(hops) // 2]["device"]  # a router on the path that answers the probes
    clock = lab_info(engine).clock
    with Session(engine) as s:  # the NMS lost its management session, the router forwards
        site = s.get(m.Device, middle)
        s.add(m.Alarm(**alarm("DEVICE_UNREACHABLE", "device", middle, site.site if site else "",
                              clock - timedelta(minutes=10), f"{middle} unreachable: SNMP times "
                              "out", severity="critical", impact="degraded")))
        s.commit()
    _set_status(engine, middle, "down")
    r = Copilot(lab_backends(engine)).answer(QUESTION, "t")
    assert r["root_cause"]["label"] != "device.down", r["answer"][:800]
    assert any(x["label"] == "device.down" and "answers traceroute" in x["text"]
               for x in r["ruled_out"]), r["ruled_out"]
