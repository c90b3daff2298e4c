"""The `system` Paths backend: real traceroute in the namespace lab, mapped to the inventory,
and the copilot diagnosing real faults through it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.netns.inject import inject
from netopsai.backends.netns.lab import NetnsLab
from netopsai.backends.netns.sh import in_ns
from netopsai.backends.netns.telemetry import NetnsAlarms, NetnsTelemetry
from netopsai.backends.traceroute.parse import parse_hop, parse_output
from netopsai.backends.traceroute.paths import SystemPaths
from netopsai.lab.scenario import Scenario
from netopsai.store.inventory import StoreInventory
from netopsai_testkit.peers.netns import needs_netns, netns_lab

SRC, DST = "198.18.17.20", "198.18.35.20"  # ns-dc1-host-01-1 -> ns-dc2-host-03-1


def test_parse_hop_lines() -> None:
    h = parse_hop(" 3  198.19.0.5  0.100 ms !H  0.12 ms !H  *")
    assert h is not None and h.hop == 3 and h.ip == "198.19.0.5" and h.code == "!H"
    assert h.loss_pct == pytest.approx(33.3) and h.rtt_ms == 0.1
    mixed = parse_hop(" 2  198.19.0.1  0.018 ms 198.19.0.3  0.020 ms *")
    assert mixed is not None and [p.ip for p in mixed.probes] == ["198.19.0.1", "198.19.0.3", None]
    stars = parse_hop(" 6  * * *")
    assert stars is not None and stars.ip is None and stars.loss_pct == 100.0
    assert parse_hop("traceroute to 198.18.35.20 (198.18.35.20), 12 hops max") is None
    out = parse_output(" 1  198.18.17.1  0.05 ms\n 2  198.19.0.7  0.08 ms !X\n")
    assert [(x.hop, x.code) for x in out] == [(1, None), (2, "!X")]


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[Engine, NetnsLab]]:
    with netns_lab(tmp_path / "home") as made:
        yield made


def _fault(engine: Engine, kind: str, target: dict[str, str], **params: object) -> None:
    inject(engine, Scenario.model_validate(
        {"id": "t", "faults": [{"kind": kind, "target": target, "params": params}]}))
    time.sleep(0.3)  # spaced out: ICMP errors of the previous test must not eat this one's budget


def _ns_addrs(lab: NetnsLab, device: str) -> set[str]:
    data = json.loads(in_ns(lab.ns(device), "ip", "-j", "addr", "show"))
    return {a["local"] for itf in data for a in itf.get("addr_info", []) if a["family"] == "inet"}


@pytest.mark.integration
@needs_netns
def test_healthy_trace_reaches_maps_hops_and_sees_ecmp(lab: tuple[Engine, NetnsLab]) -> None:
    engine, netns = lab
    r = SystemPaths(engine, flows=8).traceroute(SRC, DST, 60, None)
    assert r["reached"] and r["stopped_at"] is None and r["hops"][-1]["status"] == "reached"
    assert r["path_devices"][0] == "ns-dc1-leaf-01" and r["path_devices"][-1] == "ns-dc2-host-03-1"
    for hop in r["hops"]:  # every hop address really is on the device it is mapped to
        assert hop["ip"] in _ns_addrs(netns, hop["device"])
    assert any(d.startswith("ns-dc2-border") for d in r["path_devices"])  # crossed the DCI
    assert r["ecmp_paths"] >= 2 and r["good_paths"] == r["ecmp_paths"]
    assert len({d for d in r["ecmp_devices"] if "spine" in d or "border" in d}) > 4


@pytest.mark.integration
@needs_netns
def test_concurrent_traces_from_one_source_all_reach(lab: tuple[Engine, NetnsLab]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    engine, _ = lab
    paths = SystemPaths(engine, concurrency=16)
    from sqlmodel import Session, select

    from netopsai.store import tables as m

    with Session(engine) as s:
        dsts = [h.ip for h in s.exec(select(m.HostAddress)) if h.ip != SRC]
    with ThreadPoolExecutor(16) as pool:  # the batch runner traces many pairs at once
        results = list(pool.map(lambda d: paths.traceroute(SRC, d, 60, None), dsts * 2))
    assert [r["hops"][-1]["ip"] for r in results] == dsts * 2
    assert all(r["reached"] for r in results)


@pytest.mark.integration
@needs_netns
def test_acl_reject_stops_with_x_at_the_device(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "acl_block", {"device": "ns-dc2-leaf-03"}, dst="198.18.35.0/24")
    r = SystemPaths(engine).traceroute(SRC, DST, 60, None)
    assert not r["reached"] and r["hops"][-1]["status"] == "!X"
    assert r["stopped_at"] == "ns-dc2-leaf-03" and "ACL" in r["reason"]


@pytest.mark.integration
@needs_netns
def test_acl_drop_goes_silent_after_the_device(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "acl_block", {"device": "ns-dc2-leaf-03"}, dst="198.18.35.0/24", action="drop")
    r = SystemPaths(engine).traceroute(SRC, DST, 60, None)
    assert not r["reached"] and r["hops"][-1]["status"] == "*"
    assert [h["device"] for h in r["hops"] if h["device"]][-1] == "ns-dc2-leaf-03"


@pytest.mark.integration
@needs_netns
def test_blackhole_route_is_located_on_the_silent_router(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "blackhole", {"device": "ns-dc2-leaf-03"}, dst="198.18.35.0/24")
    r = SystemPaths(engine).traceroute(SRC, DST, 60, None)
    assert not r["reached"] and r["hops"][-1]["status"] == "*"
    assert "ns-dc2-leaf-03" not in r["path_devices"]  # a null route drops before answering
    assert r["stopped_at"] == "ns-dc2-leaf-03"


@pytest.mark.integration
@needs_netns
def test_host_link_down_gives_h_at_the_tor(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "link_down", {"link": "ns-dc2-leaf-03:Ethernet1"})
    r = SystemPaths(engine).traceroute(SRC, DST, 60, None)
    assert not r["reached"] and r["hops"][-1]["status"] == "!H"
    assert r["stopped_at"] == "ns-dc2-leaf-03"
    rows, _ = NetnsTelemetry(engine).oper_status({"devices": ["ns-dc2-leaf-03"]}, _window())
    assert [(x["device"], x["interface"]) for x in rows] == [("ns-dc2-leaf-03", "Ethernet1")]


@pytest.mark.integration
@needs_netns
def test_device_down_leaf_stops_paths_at_the_spines(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "device_down", {"device": "ns-dc2-leaf-03"})
    r = SystemPaths(engine).traceroute(SRC, DST, 60, None)
    assert not r["reached"] and r["hops"][-1]["status"] == "!N"
    assert r["stopped_at"] in ("ns-dc2-spine-01", "ns-dc2-spine-02")
    alarms = NetnsAlarms(engine).alarms("device", "open", None, None, _window())
    assert [a["device"] for a in alarms] == ["ns-dc2-leaf-03"]


@pytest.mark.integration
@needs_netns
def test_device_down_spine_is_avoided_by_ecmp(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "device_down", {"device": "ns-dc2-spine-01"})
    r = SystemPaths(engine, flows=8).traceroute(SRC, DST, 60, None)
    assert r["reached"] and "ns-dc2-spine-01" not in r["ecmp_devices"]


@pytest.mark.integration
@needs_netns
def test_random_loss_shows_as_hop_loss(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    _fault(engine, "crc_errors", {"link": "ns-dc2-leaf-03:Ethernet1"}, loss=0.5)
    paths = SystemPaths(engine, flows=1, queries=3)
    traces = [paths.traceroute(SRC, DST, 60, None) for _ in range(4)]
    lossy = [h for t in traces for h in t["hops"] if h["loss_pct"] or h["status"] == "*"]
    assert lossy, "a 50% lossy host link showed no loss in 4 traces of 3 probes per hop"
    rows, _, flagged = NetnsTelemetry(engine).counters({"devices": ["ns-dc2-leaf-03"]},
                                                       _window(), "errors")
    assert flagged and rows[0]["interface"] == "Ethernet1" and rows[0]["total"] > 0


def _window():  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime, timedelta

    from netopsai.common.timewin import Window

    now = datetime.now(UTC)
    return Window(start=now - timedelta(hours=1), end=now)


def _copilot(engine: Engine):  # type: ignore[no-untyped-def]
    from netopsai.copilot.service import Copilot

    events = NetnsAlarms(engine)
    return Copilot(Backends(inventory=StoreInventory(engine), telemetry=NetnsTelemetry(engine),
                            paths=SystemPaths(engine), changes=events, alarms=events))


FAULTS = [  # kind, target, params, expected label, acceptable devices
    ("acl_block", {"device": "ns-dc2-leaf-03"}, {"dst": "198.18.35.0/24"},
     "config.acl_block", {"ns-dc2-leaf-03"}),
    ("blackhole", {"device": "ns-dc2-leaf-03"}, {"dst": "198.18.35.0/24"},
     "routing.blackhole", {"ns-dc2-leaf-03"}),
    ("link_down", {"link": "ns-dc2-leaf-03:Ethernet1"}, {}, "link.down",
     {"ns-dc2-leaf-03", "ns-dc2-host-03-1"}),
    ("device_down", {"device": "ns-dc2-leaf-03"}, {}, "device.down", {"ns-dc2-leaf-03"}),
    # a dead spine: the flow goes round it over ECMP, the dead device is still the finding
    ("device_down", {"device": "ns-dc2-spine-01"}, {}, "device.down", {"ns-dc2-spine-01"}),
    ("crc_errors", {"link": "ns-dc2-leaf-03:Ethernet1"}, {"loss": 0.3}, "link.errors",
     {"ns-dc2-leaf-03", "ns-dc2-host-03-1"}),
]


@pytest.mark.integration
@needs_netns
@pytest.mark.parametrize(("kind", "target", "params", "label", "devices"), FAULTS,
                         ids=["acl_block", "blackhole", "link_down", "device_down", "device_down_spine",
                              "crc_errors"])
def test_copilot_finds_the_injected_fault(lab: tuple[Engine, NetnsLab], kind: str,
                                          target: dict[str, str], params: dict[str, object],
                                          label: str, devices: set[str]) -> None:
    engine, netns = lab
    _fault(engine, kind, target, **params)
    if kind == "crc_errors":  # errors counters climb with traffic over the lossy link
        in_ns(netns.ns("ns-dc1-host-01-1"), "ping", "-q", "-c", "400", "-i", "0.002", "-W", "1",
              DST, check=False)
    out = _copilot(engine).answer(f"{SRC} to {DST} not communicating")
    rc = out["root_cause"]
    assert rc is not None, out["answer"]
    assert rc["label"] == label, out["answer"]
    assert rc["device"] in devices, out["answer"]


@pytest.mark.integration
@needs_netns
def test_copilot_healthy_path_is_none(lab: tuple[Engine, NetnsLab]) -> None:
    engine, _ = lab
    out = _copilot(engine).answer(f"{SRC} to {DST} not communicating")
    assert out["root_cause"] is not None and out["root_cause"]["label"] == "none", out["answer"]


@pytest.mark.integration
@needs_netns
def test_copilot_dead_device_rests_on_live_evidence(lab: tuple[Engine, NetnsLab]) -> None:
    # the inventory's status column still says up (a record, not live state): the verdict rests
    # on the open unreachable alarm, the neighbours' ports and the trace, never on a failed call
    import re

    engine, _ = lab
    _fault(engine, "device_down", {"device": "ns-dc2-leaf-03"})
    out = _copilot(engine).answer(f"{SRC} to {DST} not communicating")
    assert out["root_cause"]["label"] == "device.down", out["answer"]
    lead = out["answer"].split("\n", 1)[0]
    assert "unreachable alarm" in lead and "still lists it up" in lead, lead
    failed = {e["id"] for e in out["evidence"] if e["errors"]}
    cited = set(re.findall(r"\[(E\d+)\]", lead))
    trace = next(e["id"] for e in out["evidence"] if e["tool"] == "traceroute" and not e["errors"])
    assert trace in cited and not cited & failed, (lead, failed)
