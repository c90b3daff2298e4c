"""The lab's devices log their ports' state changes (lab/loglines.py): every transition the lab
writes is a syslog line in its device's format, read by the ingest's own parser — so the
`events` tool and "what happened to <port>?" show log lines on the lab as on a real network,
without the lines raising alarms the lab already wrote."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, func, select

from netopsai.backends.lab import lab_backends
from netopsai.backends.syslog.parse import parse_frame
from netopsai.backends.syslog.rules import classify
from netopsai.lab.inject import inject
from netopsai.lab.loglines import FORMATS, line_for, mirror_port_log
from netopsai.lab.scenario import Scenario
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool

AT = datetime(2025, 11, 4, 19, 35, 7, tzinfo=UTC)
PORTS = {"NX-OS": "Ethernet52", "EOS": "Ethernet49/1", "Junos": "et-0/0/3",
         "IOS-XR": "HundredGigE0/0/0/8", "Ubuntu": "eth1", "DGX": "mlx5_2", "Cumulus": "swp12",
         "SONiC": "Ethernet48"}


@pytest.mark.parametrize("os_word", sorted(FORMATS))
@pytest.mark.parametrize("state,action", [("down", "raise"), ("up", "clear")])
def test_each_format_reads_back_through_the_ingest_parser(os_word: str, state: str,
                                                          action: str) -> None:
    fmt = line_for(f"{os_word} 1.0")
    assert fmt is not None
    msg = parse_frame(fmt("leaf-9", PORTS[os_word], state, AT).encode())
    got = classify(msg.text)
    assert got is not None, msg.text
    assert (got.kind, got.action, got.interface) == ("LINK_DOWN", action, PORTS[os_word])


def _scenario(faults: list[dict[str, Any]], spec: str = "default") -> Scenario:
    return Scenario.model_validate({"id": "logs", "lab": {"spec": spec, "scale": "small", "seed": 7},
                                    "now": "2025-11-04T20:00:00Z", "question": "q",
                                    "faults": faults})


def test_a_flapping_port_logs_each_transition_once(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'x.db'}")
    inject(engine, _scenario([{"at": "-25m", "kind": "link_flap",
                               "target": {"link": "dc1-leaf-03:Ethernet52"}, "params": {"count": 3}}]))
    with Session(engine) as s:
        moves = s.exec(select(m.InterfaceEvent).where(m.InterfaceEvent.device == "dc1-leaf-03",
                                                      m.InterfaceEvent.interface == "Ethernet52")
                       .order_by(col(m.InterfaceEvent.at))).all()
        alarms = s.exec(select(func.count()).select_from(m.Alarm).where(
            m.Alarm.device == "dc1-leaf-03", m.Alarm.interface == "Ethernet52")).one()
        assert mirror_port_log(s) == 0  # nothing new: no line twice
    ev = run_tool("events", {"devices": ["dc1-leaf-03"], "interface": "Ethernet52",
                             "window": "1h"}, lab_backends(engine))
    rows = sorted(ev.rows, key=lambda r: r["at"])
    assert [(r["at"], r["kind"]) for r in rows] == \
        [(t.at.strftime("%Y-%m-%dT%H:%M:%SZ"), "LINK_DOWN") for t in moves] and len(rows) == 6
    assert [r["mnemonic"] for r in rows[:2]] == ["ETHPORT-5-IF_DOWN_LINK_FAILURE", "ETHPORT-5-IF_UP"]
    assert alarms == 1  # the lab's LINK_FLAP alone: the lines raised nothing more


def test_a_gpu_hosts_nic_logs_as_its_kernel_driver_does(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'ai.db'}")
    inject(engine, _scenario([{"at": "-25m", "kind": "nic_flap",
                               "target": {"link": "dc1-gpu1-010:mlx5_2"}, "params": {"count": 4}}],
                             spec="ai"))
    ev = run_tool("events", {"devices": ["dc1-gpu1-010"], "window": "1h"}, lab_backends(engine))
    assert ev.rows and all(r["interface"] == "mlx5_2" for r in ev.rows)
    assert all("mlx5_core" in r["message"] and r["kind"] == "LINK_DOWN" for r in ev.rows)


def test_the_healthy_lab_of_the_next_scenario_has_no_fault_lines(tmp_path: Path) -> None:
    engine = engine_for(f"sqlite:///{tmp_path / 'x.db'}")
    inject(engine, _scenario([{"at": "-25m", "kind": "link_down",
                               "target": {"link": "dc1-leaf-03:Ethernet52"}}]))
    inject(engine, _scenario([]))
    ev = run_tool("events", {"devices": ["dc1-leaf-03"], "interface": "Ethernet52",
                             "window": "1h"}, lab_backends(engine))
    assert ev.rows == []


def _flaps_window(engine: Any, question: str) -> Any:
    from netopsai.copilot.service import Copilot

    r = Copilot(lab_backends(engine)).answer(question, "anchor")
    [ev] = [e for e in r["evidence"] if e["tool"] == "telemetry"]
    return ev["args"].get("window")


@pytest.mark.parametrize("change,anchored", [(False, True), (True, False)])
def test_old_lines_anchor_the_window_unless_the_device_is_live(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               change: bool, anchored: bool) -> None:
    """A port that last flapped over an hour ago: "is it flapping?" reads the hour up to that line
    (logs loaded after the fact) — unless the device had a change 10 minutes ago, which makes
    it a live device whose quiet hour is the answer."""
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    faults = [{"at": "-3h", "kind": "link_flap", "target": {"link": "dc1-leaf-03:Ethernet52"},
               "params": {"count": 2}}]
    if change:
        faults.append({"at": "-10m", "kind": "change", "target": {"device": "dc1-leaf-03"},
                       "params": {"summary": "raise BGP timers", "ticket": "CHG-7"}})
    engine = engine_for(f"sqlite:///{tmp_path / 'x.db'}")
    inject(engine, _scenario(faults))
    window = _flaps_window(engine, "is dc1-leaf-03 Ethernet52 flapping?")
    assert (isinstance(window, dict) and window["end"] < "2025-11-04T19:00") == anchored, window
