"""Questions about one port ("what happened to X Y?", "what is connected to X Y?") and about
BGP sessions answer about that thing: the port's timeline across log lines, state changes and
alarms in device time, its neighbour, and BGP neighbours by address, device and link. Device
logs in Arista EOS's documented format, loaded as `netopsai ingest --file` does (issue 12 §6)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.lab import lab_backends
from netopsai.backends.syslog.files import load_files
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.store import tables as m
from netopsai.tools.registry import run_tool
from tests.conftest import CLOCK

LEAF, PORT = "dc1-leaf-01", "Ethernet50"
SPINE = "dc1-spine-01"
SHUT = ("dc1-leaf-02", "Ethernet52")  # a port shut by hand (its session's link)
XCVR = "Xcvr: %TRANSCEIVER-6-{0}: The transceiver for interface {{p}} has been {1}"
PROTO = "Ebra: %LINEPROTO-5-UPDOWN: Line protocol on Interface {p}, changed state to "
PULL = [  # an optic pulled and put back (EOS Xcvr / Ebra messages)
    "Nov  4 15:30:00.000 {h} " + XCVR.format("REMOVED", "removed"),
    "Nov  4 15:30:00.050 {h} Xcvr: %TRANSCEIVER-3-RX_LOS: Interface {p}, receiver loss of signal "
    "detected",
    "Nov  4 15:30:00.090 {h} " + PROTO + "down",
    "Nov  4 15:32:00.000 {h} " + XCVR.format("INSERTED", "inserted"),
    "Nov  4 15:32:02.000 {h} " + PROTO + "up",
]


def _sessions(engine: Engine, device: str) -> list[m.BgpSession]:
    with Session(engine) as s:
        return list(s.exec(select(m.BgpSession).where(m.BgpSession.b_device == device)))


def _port_to(engine: Engine, b: m.BgpSession) -> str:
    """The spine's port of the session's link."""
    with Session(engine) as s:
        lk = s.get(m.Link, b.link_id)
    assert lk is not None
    return lk.b_interface if lk.b_device == b.b_device else lk.a_interface


@pytest.fixture
def engine(make_lab: Callable[..., Engine], tmp_path: Path) -> Engine:
    eng = make_lab()
    lines = [x.format(h=LEAF, p=PORT) for x in PULL]
    for b in _sessions(eng, SPINE):  # a BGP clear on the spine: every session down, back in 40 s
        lines += [f"Nov  4 13:02:00.000 {SPINE} Bgp: %BGP-5-ADJCHANGE: peer {b.a_ip} (VRF default "
                  f"AS {b.a_asn}) old state Established event HoldTimerExpired new state Idle",
                  f"Nov  4 13:02:40.000 {SPINE} Bgp: %BGP-5-ADJCHANGE: peer {b.a_ip} (VRF default "
                  f"AS {b.a_asn}) old state OpenConfirm event Established new state Established"]
    lines += [f"Nov  4 19:30:00.000 {SHUT[0]} ConfigAgent: %SYS-5-CONFIG_I: Configured from console "
              "by ops on vty3 (10.0.0.5)",
              f"Nov  4 19:30:01.000 {SHUT[0]} Ebra: %LINK-5-CHANGED: Interface {SHUT[1]}, changed "
              "state to administratively down"]
    b = _sessions(eng, SPINE)[0]  # a BFD session down on a link that stays up
    lines.append(f"Nov  4 19:40:00.000 {SPINE} Bfd: %BFD-5-STATE_CHANGE: peer (vrf:default, "
                 f"ip:{b.a_ip}, intf:{_port_to(eng, b)}, srcIp:{b.b_ip}, type:normal) changed "
                 "state from Up to Down diag ControlDetectionTimeExpired")
    log = tmp_path / "messages"
    log.write_text("\n".join(lines) + "\n")
    os.utime(log, (CLOCK.timestamp(), CLOCK.timestamp()))  # the year comes from the file's date
    assert load_files(str(eng.url), [log]).stored == len(lines)
    return eng


def _ask(engine: Engine, question: str, home: Path) -> dict[str, Any]:
    os.environ["NETOPSAI_HOME"] = str(home)
    r = Copilot(lab_backends(engine)).answer(question, "t")
    assert validate_citations(r["answer"], {e["id"] for e in r["evidence"]}) == []
    return r


def test_what_happened_to_a_port_is_its_timeline(engine: Engine, tmp_path: Path) -> None:
    r = _ask(engine, f"what happened to {LEAF} Et50 between 15:00 and 16:00?", tmp_path)
    timeline = next(e for e in r["evidence"] if e["tool"] == "coder")
    what = [row["what"] for row in timeline["rows"]]
    at = [row["at"] for row in timeline["rows"]]
    assert at == sorted(at) and at[0] == "2025-11-04T15:30:00.000Z"  # device time, in order
    assert "REMOVED" in what[0] and any(w == "LINK_DOWN raised" for w in what)
    assert what.index("LINK_DOWN raised") > 0 and any(w.startswith("oper down") for w in what)
    nbr = run_tool("metadata", {"query": "neighbors", "name": LEAF}, lab_backends(engine)).rows
    far = next(x for x in nbr if x["interface"] == PORT)
    window, first = r["answer"].split("\n\n", 2)[:2]  # the window, then the timeline leads
    assert window == "_Window: 2025-11-04 15:00–16:00 UTC_"
    assert first.startswith("What happened to the port (from E") and far["neighbor"] in first


def test_what_is_connected_to_a_port_names_that_ports_neighbour(engine: Engine,
                                                                 tmp_path: Path) -> None:
    r = _ask(engine, f"what is connected to {LEAF} {PORT}?", tmp_path)
    rows = [row for e in r["evidence"] if e["tool"] == "metadata" for row in e["rows"]]
    nbr = run_tool("metadata", {"query": "neighbors", "name": LEAF}, lab_backends(engine)).rows
    assert rows == [x for x in nbr if x["interface"] == PORT]
    assert f"{LEAF} {PORT} connects to {rows[0]['neighbor']}" in r["answer"]


def test_metadata_finds_a_port_in_any_vendor_form(backends: Any) -> None:
    for name in ("Hu0/0/0/0", "HundredGigE0/0/0/0", "HundredGigabitEthernet0/0/0/0"):
        ev = run_tool("metadata", {"query": "interfaces", "name": "dc1-dci-01", "interface": name},
                      backends)
        assert [r["name"] for r in ev.rows] == ["HundredGigE0/0/0/0"], name
    bad = run_tool("metadata", {"query": "neighbors", "name": LEAF, "interface": "Ethernet500"},
                   backends)
    assert bad.errors and "Ethernet500" in bad.errors[0] and "Ethernet50" in bad.errors[0]


def test_bgp_sessions_name_the_peer_address_device_and_link(engine: Engine, tmp_path: Path) -> None:
    r = _ask(engine, f"which BGP sessions went down on {SPINE} between 13:00 and 13:10?", tmp_path)
    ev = next(e for e in r["evidence"] if e["tool"] == "alarms")
    assert ev["args"]["category"] == "bgp" and {"peer", "peer_address", "interface"} <= set(ev["columns"])
    expected = {(b.a_ip, b.a_device) for b in _sessions(engine, SPINE)}
    assert {(x["peer_address"], x["peer"]) for x in ev["rows"]} == expected
    assert all(x["interface"] for x in ev["rows"]) and all(x["state"] == "closed" for x in ev["rows"])
    top = ev["rows"][0]
    assert f"{top['peer_address']} ({top['peer']} via {SPINE} {top['interface']})" in ev["summary"]


@pytest.mark.parametrize("question, intent, recipe", [
    (f"what happened to {LEAF} Et50?", "interface.history", "port_timeline"),
    (f"why did {LEAF} Ethernet50 go down yesterday?", "interface.history", "port_timeline"),
    ("timeline of dc1-dci-01 Hu0/0/0/0 today", "interface.history", "port_timeline"),
    (f"what is connected to {LEAF} {PORT}?", "inventory.neighbors", None),
    (f"is {LEAF} {PORT} flapping?", "telemetry.flaps", None),
    (f"which BGP sessions went down on {SPINE} today?", "alarms", None),
    (f"any OSPF adjacency changes on {SPINE}?", "alarms", None),
])
def test_port_and_session_questions_plan_their_tools(backends: Any, question: str, intent: str,
                                                     recipe: str | None) -> None:
    from netopsai.copilot.toolbox import Toolbox
    from netopsai.planner import plan

    tb = Toolbox(backends)
    p = plan(question, tb.vocab(), tb.clock())
    assert (p.intent, p.recipe) == (intent, recipe)
    if intent == "alarms":
        assert p.calls and {c.args.get("category") for c in p.calls} <= {"bgp", "routing"}


def test_a_shut_port_is_the_devices_fault_with_the_reason(engine: Engine, tmp_path: Path) -> None:
    r = _ask(engine, f"what is wrong with {SHUT[0]}?", tmp_path)
    rc = r["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == ("link.down", *SHUT)
    assert "administratively shut" in r["answer"].split("\n", 1)[0]


def test_a_windowless_question_about_a_quiet_port_ends_at_its_latest_event(
        engine: Engine, tmp_path: Path) -> None:
    r = _ask(engine, f"is {LEAF} {PORT} flapping?", tmp_path)  # it last logged at 15:32:02
    [ev] = [e for e in r["evidence"] if e["tool"] == "telemetry"]
    assert ev["args"]["window"] == {"start": "2025-11-04T14:32:02Z", "end": "2025-11-04T15:32:03Z"}
    assert ev["rows"][0]["flaps"] == 1 and "latest event" in r["answer"]
    assert r["answer"].startswith("_Window: 2025-11-04 14:32:02–15:32:03 UTC_")
    recent = _ask(engine, f"is {SHUT[0]} {SHUT[1]} flapping?", tmp_path)  # logged at 19:30
    [ev] = [e for e in recent["evidence"] if e["tool"] == "telemetry"]
    assert "window" not in ev["args"] and not recent["answer"].startswith("_Window")


def test_an_adjacency_down_on_a_live_link_is_a_routing_fault(engine: Engine, tmp_path: Path) -> None:
    b = _sessions(engine, SPINE)[0]
    r = _ask(engine, f"what is wrong with {SPINE}?", tmp_path)
    rc = r["root_cause"]
    assert (rc["label"], rc["device"], rc["interface"]) == ("routing.adjacency_down", SPINE,
                                                            _port_to(engine, b))
    assert b.a_device in r["answer"].split("\n", 1)[0]  # the neighbour the session was to
