"""End to end offline: the connectivity diagnosis names the right label and device for every
fault kind injected on (or beside) the path of the question, and its citations resolve."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import validate_citations
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario

QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"
SRC_TOR, DST_TOR, DST_HOST = "dc1-leaf-03", "dc2-leaf-01", "dc2-host-01-3"
SRC_HOST = "dc1-host-03-1"  # 10.1.3.20


def uplink(backends: Any) -> tuple[str, str, str]:
    """The source ToR's uplink that the healthy trace takes: (leaf, interface, spine)."""
    from netopsai.tools.registry import run_tool

    hop1 = run_tool("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}, backends).rows[0]
    nbr = next(r for r in run_tool("metadata", {"query": "neighbors", "name": SRC_TOR},
                                   backends).rows if r["interface"] == hop1["out_interface"])
    return SRC_TOR, hop1["out_interface"], nbr["neighbor"]


def dci_circuits(backends: Any) -> list[str]:
    from netopsai.tools.registry import run_tool

    rows = run_tool("metadata", {"query": "neighbors", "name": "dc1-dci-01"}, backends).rows
    return [f"dc1-dci-01:{r['interface']}" for r in rows if r["kind"] == "dci"]


def backbone(backends: Any) -> str:
    """A border router's link to a DCI router (shared/specs/scenario.md: a backbone link)."""
    from netopsai.tools.registry import run_tool

    rows = run_tool("metadata", {"query": "neighbors", "name": "dc1-border-01"}, backends).rows
    return next(f"dc1-border-01:{r['interface']}" for r in rows if r["kind"] == "backbone")


def cases(backends: Any) -> list[tuple[str, list[dict[str, Any]], str, set[str | None]]]:
    leaf, ifname, spine = uplink(backends)
    link = f"{leaf}:{ifname}"
    ends = {leaf, spine}
    dci = dci_circuits(backends)
    return [
        ("link_down", [{"kind": "link_down", "target": {"link": link}}], "link.down", ends),
        ("link_flap", [{"kind": "link_flap", "target": {"link": link}}], "link.flapping", ends),
        ("crc_errors", [{"kind": "crc_errors", "target": {"interface": link}}], "link.errors", ends),
        ("optic", [{"kind": "optic_degraded", "target": {"interface": link}}], "link.errors", ends),
        ("congestion", [{"kind": "congestion", "target": {"interface": link}}],
         "link.congestion", ends),
        ("mtu", [{"kind": "mtu_mismatch", "target": {"interface": link}}],
         "config.mtu_mismatch", ends),
        ("dci", [{"kind": "dci_link_down", "target": {"link": c}} for c in dci],
         "dci.link_down", {"dc1-dci-01", "dc2-dci-01"}),
        ("device_down", [{"kind": "device_down", "target": {"device": spine}}],
         "device.down", {spine}),
        ("reboot", [{"kind": "device_reboot", "target": {"device": spine}}],
         "device.reboot", {spine}),
        ("host_down", [{"kind": "host_down", "target": {"device": DST_HOST}}],
         "host.down", {DST_HOST, DST_TOR}),
        ("acl", [{"kind": "acl_block", "target": {"device": SRC_TOR},
                  "params": {"dst": "10.2.1.0/24"}},
                 {"kind": "change", "at": "-27m", "target": {"device": SRC_TOR},
                  "params": {"summary": "Apply new ACL set", "ticket": "CHG-1042"}}],
         "config.acl_block", {SRC_TOR}),
        ("blackhole_leaf", [{"kind": "blackhole", "target": {"device": DST_TOR}}],
         "routing.blackhole", {DST_TOR}),
        ("blackhole_spine", [{"kind": "blackhole", "target": {"device": spine}}],
         "routing.blackhole", {spine}),
        ("bgp_link", [{"kind": "bgp_down", "target": {"link": link}}], "routing.bgp_down", ends),
        ("host_link", [{"kind": "link_down", "target": {"link": f"{DST_HOST}:eth0"}}],
         "link.down", {DST_HOST, DST_TOR}),
        ("host_down_src", [{"kind": "host_down", "target": {"device": SRC_HOST}}],
         "host.down", {SRC_HOST}),
        ("backbone", [{"kind": "dci_link_down", "target": {"link": backbone(backends)}}],
         "dci.link_down", {"dc1-border-01", "dc1-dci-01", "dc1-dci-02"}),
        ("healthy", [], "none", {None}),
        ("change_only", [{"kind": "change", "target": {"device": spine}}], "none", {None}),
    ]


@pytest.fixture(scope="module")
def all_cases(backends: Any) -> list[tuple[str, list[dict[str, Any]], str, set[str | None]]]:
    return cases(backends)


@pytest.mark.parametrize("index", range(19))
def test_diagnosis_names_the_fault(make_lab: Any, all_cases: Any, index: int) -> None:
    name, faults, label, devices = all_cases[index]
    engine = make_lab()
    sc = Scenario.model_validate({"id": name.replace("_", "-"), "now": lab_info(engine).clock,
                                  "question": QUESTION,
                                  "faults": [{"at": "-25m", **f} for f in faults],
                                  "noise": {"alarms": 20, "changes": 6, "flaps": 2}})
    inject(engine, sc)
    result = Copilot(lab_backends(engine)).answer(QUESTION, "t")
    rc = result["root_cause"]
    assert rc is not None and rc["label"] == label, (name, rc, result["answer"][:600])
    assert rc["device"] in devices, (name, rc)
    ids = {e["id"] for e in result["evidence"]}
    assert validate_citations(result["answer"], ids) == []
    assert set(result["citations"]) <= ids and result["citations"]
    assert {"traceroute", "changelog", "alarms"} <= {e["tool"] for e in result["evidence"]}


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Incident memory lives in NETOPSAI_HOME: keep the user's out of these diagnoses."""
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))


def ask_after(engine: Any, faults: list[dict[str, Any]], question: str = QUESTION) -> dict[str, Any]:
    sc = Scenario.model_validate({"id": "extra", "now": lab_info(engine).clock, "question": question,
                                  "faults": [{"at": "-25m", **f} for f in faults],
                                  "noise": {"alarms": 20, "changes": 6, "flaps": 2}})
    inject(engine, sc)
    result = Copilot(lab_backends(engine)).answer(question, "t")
    ids = {e["id"] for e in result["evidence"]}
    assert validate_citations(result["answer"], ids) == []
    return result


def off_path_leaf(backends: Any) -> str:
    """A leaf of the source's site that no equal-cost path of the question's flow crosses."""
    from netopsai.tools.registry import run_tool

    flow = set(run_tool("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"},
                        backends).facts["ecmp_devices"])
    leaves = run_tool("metadata", {"query": "devices", "site": "dc1", "role": "leaf"}, backends).rows
    return next(r["name"] for r in leaves if r["name"] not in flow)


@pytest.mark.parametrize("reason, words", [("admin", "administratively shut"),
                                            ("optic", "receive loss of signal")])
def test_a_link_down_says_why_the_port_went_down(make_lab: Any, backends: Any, reason: str,
                                                 words: str) -> None:
    leaf, ifname, spine = uplink(backends)
    r = ask_after(make_lab(), [{"kind": "link_down", "target": {"link": f"{leaf}:{ifname}"},
                                "params": {"reason": reason}}])
    assert r["root_cause"]["label"] == "link.down" and r["root_cause"]["device"] in (leaf, spine)
    assert words in r["answer"].split("\n", 1)[0]


def test_two_faults_blame_where_the_trace_stops(make_lab: Any, backends: Any) -> None:
    # a leaf uplink is down (traffic reroutes) and an ACL at the destination's ToR drops the
    # flow: the cause is where the trace stops; the link is reported too, not lost
    leaf, ifname, _ = uplink(backends)
    r = ask_after(make_lab(), [{"kind": "link_down", "target": {"link": f"{leaf}:{ifname}"}},
                               {"kind": "acl_block", "target": {"device": DST_TOR},
                                "params": {"dst": "10.2.1.0/24"}}])
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("config.acl_block", DST_TOR)
    assert "link.down" in r["answer"] and ifname in r["answer"]  # the second fault, cited


def test_host_behind_a_dead_tor_is_the_tor_down(make_lab: Any) -> None:
    r = ask_after(make_lab(), [{"kind": "device_down", "target": {"device": DST_TOR}}])
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("device.down", DST_TOR)


def test_red_herrings_are_not_blamed(make_lab: Any, backends: Any) -> None:
    # open alarms off the path (a dead leaf elsewhere, with its neighbours' link alarms) and a
    # harmless change on the path: the flow itself is fine
    spine = uplink(backends)[2]
    r = ask_after(make_lab(), [{"kind": "device_down", "target": {"device": off_path_leaf(backends)}},
                               {"kind": "change", "target": {"device": spine},
                                "params": {"summary": "Update NTP servers", "ticket": "CHG-77"}}])
    assert r["root_cause"]["label"] == "none", r["answer"][:800]
    assert "CHG-77" in r["answer"]  # seen, checked and not blamed
    seen = [a for e in r["evidence"] if e["tool"] == "alarms" for a in e["rows"]]
    assert any(a["kind"] == "DEVICE_UNREACHABLE" and a["state"] == "open" for a in seen)


def test_red_herrings_beside_a_real_fault(make_lab: Any, backends: Any) -> None:
    r = ask_after(make_lab(), [{"kind": "device_down", "target": {"device": off_path_leaf(backends)}},
                               {"kind": "blackhole", "target": {"device": DST_TOR}}])
    assert (r["root_cause"]["label"], r["root_cause"]["device"]) == ("routing.blackhole", DST_TOR)


def test_healthy_with_closed_dci_alarms_is_none(make_lab: Any, backends: Any) -> None:
    from datetime import timedelta

    from sqlmodel import Session

    from netopsai.lab.events import alarm
    from netopsai.store import tables as m

    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "closed-dci", "now": lab_info(engine).clock,
                                            "question": QUESTION}))
    now = lab_info(engine).clock
    with Session(engine) as s:  # circuit alarms of an outage 50 to 40 minutes ago, cleared
        for end in dci_circuits(backends)[:2]:
            dev, ifname = end.split(":")
            s.add(m.Alarm(**alarm("LINK_DOWN", "dci", dev, "dc1", now - timedelta(minutes=50),
                                  f"DCI circuit down on {ifname}", interface=ifname,
                                  cleared=now - timedelta(minutes=40))))
        s.commit()
    r = Copilot(lab_backends(engine)).answer(QUESTION, "t")
    assert r["root_cause"]["label"] == "none", r["answer"][:800]
    assert "dci.link_down" in r["answer"]  # tested and ruled out, with the closed alarms cited
    [dci] = [x for x in r["ruled_out"] if x["label"] == "dci.link_down"]
    assert "closed" in dci["text"] and dci["cites"]
