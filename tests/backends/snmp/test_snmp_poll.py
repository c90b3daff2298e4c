"""SNMP polling against a real agent (snmpsim): recordings of a real Cisco switch and Juniper
router, and our own recordings whose interface states and counters change between polls."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine
from sqlmodel import Session, select

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.poller import poll_and_store
from netopsai.copilot.evidence import Evidence
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.store.telemetry import StoreTelemetry
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.snmpsim import CISCO, GENERATED, JUNIPER, Agent, SnmpSim, snmpsim  # noqa: F401

pytestmark = pytest.mark.integration
TIMEOUT = 30.0  # per request: snmpsim answers slowly for large recordings on a loaded machine


def target(sim: SnmpSim, community: str, name: str = "") -> SnmpTarget:
    return SnmpTarget(host="127.0.0.1", port=sim.port, name=name,
                      auth=SnmpAuth(community=SecretStr(community)))


def poll(engine: Engine, sim: SnmpSim, community: str, name: str = "") -> None:
    rep = poll_and_store(engine, [target(sim, community, name)], timeout=TIMEOUT, retries=1,
                         sample_every=0)  # a sample per poll: the tests do not wait 5 minutes
    assert not rep.failures, rep.failures


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    eng = engine_for(f"sqlite:///{tmp_path / 'real.db'}")
    create_all(eng)
    return eng


def agent(community: str) -> Agent:
    return copy.deepcopy(GENERATED[community])


def store_backends(engine: Engine) -> Backends:
    events = StoreEvents(engine)
    return Backends(inventory=StoreInventory(engine), telemetry=StoreTelemetry(engine),
                    paths=LabPaths(engine), changes=events, alarms=events)


def recorded(sim: SnmpSim, community: str, column: str) -> dict[int, str]:
    """ifIndex -> value of one IF-MIB column, read from the recording file itself."""
    pat = re.compile(rf"^{re.escape(column)}\.(\d+)\|[^|]*\|(.*)$")
    return {int(mt[1]): mt[2] for line in sim.path(community).read_text().splitlines()
            if (mt := pat.match(line))}


def telemetry(engine: Engine, **args: object) -> Evidence:
    ev = run_tool("telemetry", {"window": "1h", **args}, store_backends(engine))
    assert not ev.errors, ev.errors
    return ev


@pytest.mark.parametrize("community,sys_name", [(CISCO, "DUMSYS-90"), (JUNIPER, "DUMSYS-19")])
def test_real_recording_is_polled_into_the_store(snmpsim: SnmpSim, engine: Engine,  # noqa: F811
                                                 community: str, sys_name: str) -> None:
    poll(engine, snmpsim, community)
    oper = recorded(snmpsim, community, "1.3.6.1.2.1.2.2.1.8")
    speed = recorded(snmpsim, community, "1.3.6.1.2.1.31.1.1.1.15")
    with Session(engine) as s:
        dev = s.get(m.Device, sys_name)
        assert dev is not None and dev.status == "up" and dev.booted_at is not None
        assert dev.vendor == ("cisco" if community == CISCO else "juniper")
        states = {st.if_index: st for st in s.exec(select(m.SnmpCounterState))}
        ifaces = {i.name: i for i in s.exec(select(m.Interface).where(m.Interface.device == sys_name))}
    assert set(states) == set(oper) and len(ifaces) == len(oper)
    for index, value in oper.items():
        want = {"1": "up", "2": "down", "7": "down"}.get(value, states[index].oper_status)
        assert states[index].oper_status == want
        assert ifaces[states[index].interface].oper_status == want
        if index in speed:
            assert ifaces[states[index].interface].speed_mbps == int(speed[index])
    # a port first seen down is down from the start of history, not a transition
    ev = telemetry(engine, metric="oper_status", devices=[sys_name], top=1000)
    down = {r["interface"] for r in ev.rows if r["state_at_end"] == "down"}
    assert down == {st.interface for st in states.values() if st.oper_status == "down"}
    assert ev.facts["changed"] == 0 and ev.facts["ports"] == len(oper)


def test_flipped_port_becomes_an_event_and_the_tool_sees_it(snmpsim: SnmpSim,  # noqa: F811
                                                            engine: Engine) -> None:
    name, a = "netopsai/flip", agent("netopsai/flip")
    snmpsim.write(name, a)
    poll(engine, snmpsim, name)
    assert telemetry(engine, metric="oper_status").facts["down_now"] == 0
    a.ports[1].oper = 2  # Ethernet2 goes down
    snmpsim.write(name, a)
    poll(engine, snmpsim, name)
    with Session(engine) as s:
        events = list(s.exec(select(m.InterfaceEvent)))
    assert [(e.device, e.interface, e.state) for e in events] == [("gen-flip", "Ethernet2", "down")]
    assert "up -> down" in events[0].reason
    ev = telemetry(engine, metric="oper_status")
    assert ev.facts["down_now"] == 1 and ev.facts["changed"] == 1 and ev.facts["ports"] == 4
    assert [(r["interface"], r["state_at_start"], r["state_at_end"]) for r in ev.rows] == [
        ("Ethernet2", "up", "down")]
    assert "gen-flip Ethernet2" in ev.summary
    a.ports[1].oper = 1  # and back up: a flap
    snmpsim.write(name, a)
    poll(engine, snmpsim, name)
    ev = telemetry(engine, metric="flaps")
    assert [(r["interface"], r["transitions"], r["flaps"]) for r in ev.rows] == [("Ethernet2", 2, 1)]
    assert telemetry(engine, metric="oper_status").facts["down_now"] == 0


def test_counters_become_deltas_with_wrap_and_reset(snmpsim: SnmpSim,  # noqa: F811
                                                    engine: Engine) -> None:
    name, a = "netopsai/counters", agent("netopsai/counters")
    a.ports[0].in_errors = 2**32 - 5  # about to wrap (Counter32)
    a.ports[2].in_octets = 5_000_000
    snmpsim.write(name, a)
    poll(engine, snmpsim, name)
    with Session(engine) as s:
        assert not list(s.exec(select(m.CounterSample)))  # one poll: no interval yet
    before = copy.deepcopy(a)
    for p in a.ports:
        p.in_octets += 7_500_000 * p.index
        p.out_octets += 1_250_000
        p.in_discards += p.index
    a.ports[0].in_errors = 10  # wrapped: 15 errors
    a.ports[2].in_octets = 1_000  # went down from low in its range: a reset, no sample
    snmpsim.write(name, a)
    poll(engine, snmpsim, name)
    with Session(engine) as s:
        got = {x.interface: x for x in s.exec(select(m.CounterSample))}
    assert set(got) == {"Ethernet1", "Ethernet2", "Ethernet4"}
    for p, old in zip(a.ports, before.ports, strict=True):
        if p.name in got:
            x = got[p.name]
            assert (x.in_octets, x.out_octets, x.in_discards) == (
                p.in_octets - old.in_octets, p.out_octets - old.out_octets, p.in_discards - old.in_discards)
            assert x.source == "snmp"
    assert got["Ethernet1"].in_errors == 15 and got["Ethernet2"].in_errors == 0
    ev = telemetry(engine, metric="errors")
    assert ev.facts["flagged"] == 1
    assert (ev.rows[0]["interface"], ev.rows[0]["total"]) == ("Ethernet1", 15)


def test_agent_restart_gives_no_sample_for_that_interval(snmpsim: SnmpSim,  # noqa: F811
                                                         engine: Engine) -> None:
    name, a = "netopsai/restart", agent("netopsai/restart")
    snmpsim.write(name, a)
    poll(engine, snmpsim, name)
    a.uptime_cs = 500  # rebooted 5 s ago: its counters started again
    for p in a.ports:
        p.in_octets //= 10
    snmpsim.write(name, a)
    rep = poll_and_store(engine, [target(snmpsim, name)], timeout=TIMEOUT, retries=0, sample_every=0)
    assert rep.restarted == ["gen-restart"] and rep.samples == 0
    for p in a.ports:
        p.in_octets += 1000
    a.uptime_cs += 1000
    snmpsim.write(name, a)
    rep = poll_and_store(engine, [target(snmpsim, name)], timeout=TIMEOUT, retries=0, sample_every=0)
    assert rep.restarted == [] and rep.samples == 4
    with Session(engine) as s:
        assert {x.in_octets for x in s.exec(select(m.CounterSample))} == {1000}
        dev = s.get(m.Device, "gen-restart")
    assert dev is not None and dev.booted_at is not None
