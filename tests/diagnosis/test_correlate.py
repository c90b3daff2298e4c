"""Alarm correlation (netopsai/diagnosis/correlate.py) on the embedded lab with injected faults:
each fault's alarms collapse into one case with the right suggested root and blast radius,
unrelated noise stays apart, and the alarms tool, `netopsai alarms cases` and the Gradio alarms
tab show the same cases. Expected groupings are read from the lab's own rows and topology."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.lab.inject import inject
from netopsai.tools.alarm_cases.correlate import Case, compression, correlate
from netopsai.tools.alarm_cases.topology import Topology
from netopsai.tools.alarms import AlarmsArgs
from netopsai.ui.gradio.alarms import alarms_and_cases
from tests.conftest import CLOCK
from tests.fault_helpers import call, scenario

LEAF = "dc1-leaf-03"


def window_rows(b: Backends, window: str = "2h") -> list[dict[str, Any]]:
    """The alarms of the window, as the alarms tool reads them."""
    w = AlarmsArgs(window=window).resolve(b)
    return b.alarms.alarms(None, "any", None, None, w)


def cases_of(b: Backends, window: str = "2h") -> tuple[list[dict[str, Any]], list[Case]]:
    rows = window_rows(b, window)
    return rows, correlate(rows, Topology(b.inventory))


def faulted(make_lab: Callable[..., Engine], *faults: dict[str, Any],
            noise: dict[str, int] | None = None) -> Backends:
    engine = make_lab()
    inject(engine, scenario(CLOCK, *faults, noise=noise))
    return lab_backends(engine)


def link_of(b: Backends, device: str, kind: str) -> dict[str, Any]:
    return next(r for r in call(b, "metadata", query="neighbors", name=device).rows if r["kind"] == kind)


def case_with(cases: list[Case], alarm: dict[str, Any]) -> Case:
    return next(c for c in cases if any(m["id"] == alarm["id"] for m in c.members))


def test_device_down_is_one_case_rooted_at_the_device(make_lab: Callable[..., Engine]) -> None:
    b = faulted(make_lab, {"kind": "device_down", "target": {"device": LEAF}},
                noise={"alarms": 20, "flaps": 2})
    rows, cases = cases_of(b)
    dev_alarm = next(r for r in rows if r["kind"] == "DEVICE_UNREACHABLE")
    case = case_with(cases, dev_alarm)
    assert case.root["id"] == dev_alarm["id"] and case.rule == "outage"
    caused = {r["id"] for r in rows if LEAF in (r["device"], r["peer"])}  # its links, its BGP
    assert {r["kind"] for r in rows if r["id"] in caused} >= {"LINK_DOWN", "BGP_DOWN", "DEVICE_UNREACHABLE"}
    assert {m["id"] for m in case.members} == caused  # every neighbour alarm, and no noise
    behind = {s["cidr"] for s in call(b, "metadata", query="segments", site="dc1").rows
              if s.get("tor") == LEAF}
    me = call(b, "metadata", query="device", name=LEAF).rows[0]
    assert behind and set(case.impact["segments"]) == behind
    assert case.impact["pods"][:1] == [me["pod"]] or me["pod"] in case.impact["pods"]
    assert case.impact["dcs"] == ["dc1"] and case.impact["traffic_lost"] is True
    assert case.impact["root_device"] == LEAF and LEAF in case.impact["summary"]


def test_a_dci_circuit_seen_from_both_ends_is_one_case(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    b = lab_backends(engine)
    dci = link_of(b, "dc1-dci-01", "dci")
    inject(engine, scenario(CLOCK, {"kind": "dci_link_down",
                                    "target": {"link": f"dc1-dci-01:{dci['interface']}"}}))
    rows, cases = cases_of(b)
    dci_rows = [r for r in rows if r["category"] == "dci"]
    assert {r["device"] for r in dci_rows} == {"dc1-dci-01", dci["neighbor"]}  # both ends report
    case = case_with(cases, dci_rows[0])
    assert case.rule == "dci" and {m["id"] for m in case.members} >= {r["id"] for r in dci_rows}
    assert case.root["category"] == "dci" and case.root["kind"] == "LINK_DOWN"
    sites = {call(b, "metadata", query="device", name=d).rows[0]["site"]
             for d in ("dc1-dci-01", dci["neighbor"])}
    assert set(case.impact["dcs"]) == sites and len(sites) == 2


def test_bgp_down_over_a_downed_link_is_explained_by_the_link(make_lab: Callable[..., Engine]) -> None:
    engine = make_lab()
    b = lab_backends(engine)
    up = link_of(b, LEAF, "fabric")
    inject(engine, scenario(CLOCK, {"kind": "link_down", "target": {"link": f"{LEAF}:{up['interface']}"}}))
    rows, cases = cases_of(b)
    bgp = [r for r in rows if r["kind"] == "BGP_DOWN"]
    links = [r for r in rows if r["kind"] == "LINK_DOWN"]
    assert len(bgp) == 2 and len(links) == 2  # both ends of the link and of its session
    case = case_with(cases, bgp[0])
    assert {m["id"] for m in case.members} == {r["id"] for r in bgp + links}
    assert case.root["kind"] == "LINK_DOWN" and case.root["link_id"] == bgp[0]["link_id"]
    assert "BGP" in case.reason and len(cases) == 1


def test_a_reboot_burst_is_one_case_even_when_the_device_said_nothing(
        make_lab: Callable[..., Engine]) -> None:
    b = faulted(make_lab, {"kind": "device_reboot", "target": {"device": LEAF}})
    rows, cases = cases_of(b)
    reboot = next(r for r in rows if r["kind"] == "DEVICE_REBOOT")
    assert [c.root["id"] for c in cases] == [reboot["id"]] and len(cases[0].members) == len(rows) > 3
    # Without the device's own alarm (a device that died before it could say so), the burst of
    # its neighbours' link alarms still makes one case, and names the common end.
    silent = [r for r in rows if r["id"] != reboot["id"]]
    inferred = correlate(silent, Topology(b.inventory))
    assert len(inferred) == 1 and inferred[0].rule == "burst"
    assert inferred[0].impact["root_device"] == LEAF and LEAF in inferred[0].reason
    assert LEAF in inferred[0].root["peer"] or inferred[0].root["device"] == LEAF


def test_unrelated_noise_stays_apart_and_the_ratio_comes_from_the_data(
        make_lab: Callable[..., Engine]) -> None:
    b = faulted(make_lab, noise={"alarms": 30, "flaps": 3})
    rows, cases = cases_of(b, "24h")
    linked = {r["link_id"] for r in rows if r.get("link_id")}
    singles = [r for r in rows if not r.get("link_id")]
    assert len(rows) > 10 and singles
    # Noise is random device alarms and flaps: one case per flap (both ends), one per alarm.
    assert len(cases) == len(linked) + len(singles)
    for c in cases:
        assert len({m.get("link_id") for m in c.members}) == 1
    assert compression(len(rows), cases) == round(len(rows) / len(cases), 2)


def test_a_fault_among_noise_compresses_and_keeps_the_noise_out(make_lab: Callable[..., Engine]) -> None:
    b = faulted(make_lab, {"kind": "device_down", "target": {"device": LEAF}},
                noise={"alarms": 20, "flaps": 2})
    rows, cases = cases_of(b)
    fault = {r["id"] for r in rows if LEAF in (r["device"], r["peer"])}
    rest = [r for r in rows if r["id"] not in fault]
    rest_cases = correlate(rest, Topology(b.inventory))
    assert len(cases) == 1 + len(rest_cases)  # the fault is one case; the rest as before
    ratio = compression(len(rows), cases)
    assert ratio == round(len(rows) / (1 + len(rest_cases)), 2) and ratio > 1
    assert cases[0].open and cases[0].root["kind"] == "DEVICE_UNREACHABLE"  # open cases first


def test_the_alarms_tool_labels_rows_with_their_case_and_root(make_lab: Callable[..., Engine]) -> None:
    b = faulted(make_lab, {"kind": "device_down", "target": {"device": LEAF}}, noise={"alarms": 10})
    ev = call(b, "alarms", window="2h", correlate=True)
    assert {"group", "root"} <= set(ev.columns)
    by_case: dict[str, list[dict[str, Any]]] = {}
    for r in ev.rows:
        by_case.setdefault(r["group"], []).append(r)
    assert all(sum(r["root"] for r in members) == 1 for members in by_case.values())
    facts = ev.facts
    assert facts["groups"] == len(by_case) == len(facts["cases"])
    assert facts["compression"] == round(len(ev.rows) / len(by_case), 2)
    top = facts["cases"][0]
    assert (top["root_kind"], top["root_device"]) == ("DEVICE_UNREACHABLE", LEAF)
    assert sorted(top["member_ids"]) == sorted(r["id"] for r in by_case[top["case"]])
    assert f"root DEVICE_UNREACHABLE on {LEAF}" in ev.summary


def test_gradio_tab_shows_the_cases(make_lab: Callable[..., Engine]) -> None:
    b = faulted(make_lab, {"kind": "device_down", "target": {"device": LEAF}})
    open_now, recent, cases, summary = alarms_and_cases(b, "all", "all", "2h")
    assert len(cases) >= 1 and cases.iloc[0]["suggested root cause"] == f"DEVICE_UNREACHABLE on {LEAF}"
    assert cases.iloc[0]["alarms"] == len(recent) and " case" in summary  # "1 case" or "N cases"


@pytest.mark.integration
def test_cli_alarms_cases_json(tmp_path: Path) -> None:
    """`netopsai alarms cases --json` in a subprocess over a lab with a device down."""
    env = {**os.environ, "NETOPSAI_HOME": str(tmp_path), "COLUMNS": "200", "NO_COLOR": "1"}
    exe = [sys.executable, "-m", "netopsai.cli"]
    sc = tmp_path / "down.yaml"
    sc.write_text(json.dumps({"id": "down", "lab": {"spec": "default", "scale": "small", "seed": 7},
                              "now": "2025-11-04T20:00:00Z", "question": "q", "noise": {"alarms": 5},
                              "faults": [{"kind": "device_down", "at": "-25m",
                                          "target": {"device": LEAF}}]}))
    for args in (["lab", "init", "--now", "2025-11-04T20:00:00Z"], ["lab", "inject", str(sc)]):
        subprocess.run([*exe, *args], env=env, check=True, capture_output=True, timeout=300)
    out = subprocess.run([*exe, "alarms", "cases", "--window", "2h", "--json"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["cases"][0]["root_device"] == LEAF and data["case_count"] == len(data["cases"])
    assert data["compression"] == round(data["alarms"] / data["case_count"], 2)
    table = subprocess.run([*exe, "alarms", "cases", "--window", "2h"], env=env, capture_output=True,
                           text=True, timeout=300)
    assert table.returncode == 0 and "alarms per case" in table.stdout and LEAF in table.stdout
    bad = subprocess.run([*exe, "alarms", "cases", "--window", "soon"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr


def test_a_bgp_session_reset_is_one_case_and_sessions_far_apart_are_not(backends: Backends) -> None:
    """Many sessions of one device down within a minute, no link under them: one case (a clear
    or a restarted routing process), not one per session."""
    from datetime import timedelta

    base = {"category": "bgp", "kind": "BGP_DOWN", "device": "dc1-spine-01", "state": "closed",
            "severity": "major", "interface": None, "link_id": None, "message": "", "site": "dc1"}
    t0 = CLOCK - timedelta(hours=1)
    reset = [{**base, "id": 9000 + i, "peer": f"dc1-leaf-0{i + 1}",
              "raised_at": (t0 + timedelta(seconds=2 * i)).isoformat()} for i in range(6)]
    apart = [{**base, "id": 9100 + i, "device": "dc2-spine-01", "peer": f"dc2-leaf-0{i + 1}",
              "raised_at": (t0 + timedelta(hours=i)).isoformat()} for i in range(2)]
    cases = correlate(reset + apart, Topology(backends.inventory))
    rules = sorted((c.rule, len(c.members)) for c in cases)
    assert rules == [("sessions", 6), ("single", 1), ("single", 1)]
    assert "session reset" in next(c.reason for c in cases if c.rule == "sessions")
