"""SNMP polls read ifAdminStatus (issue 25 item 5): against a real agent (snmpsim), a port shut
on purpose is counted as administratively down and one admin up but dark as never up, apart
from the port that went down between two polls, which leads the answer."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.poller import poll_and_store
from netopsai.store.engine import create_all, engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.store.telemetry import StoreTelemetry
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.snmpsim import GENERATED, SnmpSim, snmpsim  # noqa: F401

pytestmark = pytest.mark.integration
NAME = "netopsai/flip"  # a generated recording each test writes afresh


def poll(engine: Engine, sim: SnmpSim) -> None:
    t = SnmpTarget(host="127.0.0.1", port=sim.port, auth=SnmpAuth(community=SecretStr(NAME)))
    rep = poll_and_store(engine, [t], timeout=30, retries=1, sample_every=0)
    assert not rep.failures, rep.failures


def test_admin_down_and_never_up_are_counted_apart(snmpsim: SnmpSim, tmp_path: Path) -> None:  # noqa: F811
    engine = engine_for(f"sqlite:///{tmp_path / 'real.db'}")
    create_all(engine)
    a = copy.deepcopy(GENERATED[NAME])
    a.ports[2].admin, a.ports[2].oper = 2, 2  # Ethernet3: shut
    a.ports[3].oper = 2  # Ethernet4: admin up, no light
    snmpsim.write(NAME, a)
    poll(engine, snmpsim)
    a.ports[0].oper = 2  # Ethernet1 goes down between polls
    snmpsim.write(NAME, a)
    poll(engine, snmpsim)
    events = StoreEvents(engine)
    b = Backends(inventory=StoreInventory(engine), telemetry=StoreTelemetry(engine),
                 paths=LabPaths(engine), changes=events, alarms=events)
    ev = run_tool("telemetry", {"metric": "oper_status", "window": "1h"}, b)
    assert not ev.errors, ev.errors
    assert [(r["interface"], r["change"], r.get("admin_status")) for r in ev.rows] == [
        ("Ethernet1", "went down", "up"), ("Ethernet4", "never up", "up"),
        ("Ethernet3", "admin down", "down")]
    assert ev.facts["admin_down"] == 1 and ev.facts["never_up"] == 1 and ev.facts["went_down"] == 1
    assert ev.summary.split(";")[1].strip().startswith("went down: gen-flip Ethernet1 at ")
