"""An agent that answers but lacks a system scalar (issue 12 §8, found by
bench/bench_snmp_recordings.py): snmpsim-data's Aruba 7010 recording has no sysUpTime and the
Squid one neither sysDescr nor sysUpTime, so the agent answers noSuchInstance for them, as an
agent whose view excludes part of the system group does. The poll used to fail as a whole with
an opaque "failed: ValueError"; a missing scalar is now just unknown, and the device is read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.walk import DeviceReading, poll_targets
from netopsai_testkit.peers.snmpsim import SnmpSim, start_snmpsim

pytestmark = pytest.mark.integration
ARUBA = "network/wifi/aruba-7010"  # sysDescr, sysName; no sysUpTime, no ifTable
SQUID = "network/appliance/network-research-squid"  # sysName only
CISCO = "network/switch/cisco-c3750"  # every scalar and an ifTable: unchanged


@pytest.fixture(scope="module")
def agent() -> Iterator[SnmpSim]:
    yield from start_snmpsim((ARUBA, SQUID, CISCO))


def _poll(sim: SnmpSim, community: str) -> DeviceReading:
    target = SnmpTarget(host="127.0.0.1", port=sim.port, auth=SnmpAuth(community=SecretStr(community)))
    return poll_targets([target], timeout=2.0, retries=1)[0]


def test_a_missing_sysuptime_leaves_the_uptime_unknown(agent: SnmpSim) -> None:
    r = _poll(agent, ARUBA)
    assert r.ok and r.error == "", r.error
    assert r.sys_descr.startswith("ArubaOS (MODEL: Aruba7010)") and r.sys_name == "DUMSYS-58"
    assert r.uptime_cs is None and r.interfaces == {} and r.partial == ""


def test_missing_sysdescr_and_sysuptime(agent: SnmpSim) -> None:
    r = _poll(agent, SQUID)
    assert r.ok and r.error == "", r.error
    assert (r.sys_name, r.sys_descr, r.uptime_cs) == ("DUMSYS-11", "", None)
    assert r.device == "DUMSYS-11"


def test_a_complete_agent_still_gives_every_scalar(agent: SnmpSim) -> None:
    r = _poll(agent, CISCO)
    assert r.ok and r.uptime_cs is not None and r.uptime_cs > 0 and "Cisco" in r.sys_descr
    assert len(r.interfaces) == 19
