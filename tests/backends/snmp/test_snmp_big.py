"""SNMP on big chassis and slow agents (real networks §8): recordings of a Juniper MX960 and a
Huawei S12704 (a Ruijie N18010 too, measured by hand) served by snmpsim straight from .bz2 — an
agent that needs about a second per column asked — read completely with a 2 s timeout, where
one wide GETBULK per request timed out and read nothing. A walk past its deadline keeps what it
read, marked partial."""

from __future__ import annotations

import bz2
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from netopsai.backends.snmp import walk
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.walk import poll_targets
from netopsai_testkit.peers.snmpsim import SnmpSim, real_recording, start_snmpsim

pytestmark = pytest.mark.integration
# (the Ruijie N18010, 395 interfaces, reads the same way in ~40 s: left out to keep CI short)
BIG = ("network/router/juniper-mx960-16-1r6-7-a", "network/switch/huawei-s12704")
IF_DESCR = "1.3.6.1.2.1.2.2.1.2."


@pytest.fixture(scope="module")
def slow_agent() -> Iterator[SnmpSim]:
    # start_snmpsim opens each recording with one GET first, so the 2 s timeouts below measure
    # the walk on a slow agent, not snmpsim's start
    yield from start_snmpsim(BIG, compressed=True)


def _recorded_interfaces(community: str) -> set[int]:
    """The ifIndex values the recording holds (its ifDescr rows): the reference, read from
    the file, not from an agent."""
    text = bz2.decompress(real_recording(community).read_bytes()).decode(errors="replace")
    return {int(line.split("|")[0].rsplit(".", 1)[1]) for line in text.splitlines()
            if line.startswith(IF_DESCR)}


def _target(sim: SnmpSim, community: str) -> SnmpTarget:
    return SnmpTarget(host="127.0.0.1", port=sim.port, auth=SnmpAuth(community=SecretStr(community)))


@pytest.mark.parametrize("community", BIG)
def test_every_interface_of_a_big_chassis_on_a_slow_agent(slow_agent: SnmpSim, community: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # What is tested is that short per-request timeouts still read every column, not how fast:
    # this agent decompresses its file from the start on each request, so a loaded CI machine
    # can take past the production deadline (120 s). The deadline itself has its own test below.
    monkeypatch.setattr(walk, "WALK_DEADLINE_S", 1800.0)
    reading = poll_targets([_target(slow_agent, community)], timeout=2.0, retries=1)[0]
    assert reading.ok, reading.error
    assert reading.partial == ""
    want = _recorded_interfaces(community)
    assert len(want) >= 50 and set(reading.interfaces) == want
    assert all(i.descr for i in reading.interfaces.values())


def test_a_walk_past_its_deadline_keeps_what_it_read(slow_agent: SnmpSim,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # 10 s: well short of the whole walk (~90-120 s here), long enough that a loaded machine
    # still reads a column or two first (at 3 s a CI run once read none)
    monkeypatch.setattr(walk, "WALK_DEADLINE_S", 10.0)
    reading = poll_targets([_target(slow_agent, BIG[0])], timeout=2.0, retries=1)[0]
    assert reading.ok and "interface walk stopped after 10 s" in reading.partial, reading.partial
    rows = list(reading.interfaces.values())
    assert rows and any(r.descr for r in rows)  # what was read is kept ...
    assert any(r.oper == "unknown" or r.in_octets is None for r in rows)  # ... and it is not all

