"""The Prometheus telemetry backend against a real Prometheus scraping snmpsim through Debian's
prometheus-snmp-exporter: what it reads must be what the agents serve."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.prometheus.telemetry import PrometheusTelemetry
from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget
from netopsai.backends.snmp.poller import poll_and_store
from netopsai.common.timewin import Window
from netopsai.store.engine import create_all, engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.process import free_port
from netopsai_testkit.peers.prometheus import PromStack, start_stack
from netopsai_testkit.peers.snmpsim import CISCO, GENERATED, Agent, SnmpSim, snmpsim  # noqa: F401

pytestmark = pytest.mark.integration
PROM = "netopsai/prom"


def prom_agent() -> Agent:
    a = copy.deepcopy(GENERATED[PROM])
    a.ports[2].oper = 2  # Ethernet3 down
    a.ports[0].in_errors = 100
    a.ports[1].in_discards, a.ports[1].out_discards = 7, 3
    return a


@pytest.fixture(scope="module")
def stack(snmpsim: SnmpSim) -> Iterator[PromStack]:  # noqa: F811
    snmpsim.write(PROM, prom_agent())
    gen = start_stack(f"127.0.0.1:{snmpsim.port}", {"gen-prom": PROM, "DUMSYS-90": CISCO}, scrape_s=2)
    st = next(gen)
    st.wait_for('ifOperStatus{device="gen-prom"}', 4)
    st.wait_for('ifOperStatus{device="DUMSYS-90"}', 19)
    yield st
    next(gen, None)


def last(minutes: float) -> Window:
    end = datetime.now(UTC)
    return Window(start=end - timedelta(minutes=minutes), end=end)


def recorded_down(sim: SnmpSim, community: str) -> set[str]:
    """ifName of every interface whose recorded ifOperStatus is down, from the file itself."""
    text = sim.path(community).read_text()
    names = {i: bytes.fromhex(v).decode() if tag == "4x" else v for i, tag, v in re.findall(
        r"^1\.3\.6\.1\.2\.1\.31\.1\.1\.1\.1\.(\d+)\|(4x?)\|(.*)$", text, re.M)}
    return {names[i] for i, v in re.findall(r"^1\.3\.6\.1\.2\.1\.2\.2\.1\.8\.(\d+)\|2\|(\d+)$", text, re.M)
            if v in ("2", "7") and i in names}


def test_oper_status_matches_the_agents(stack: PromStack, snmpsim: SnmpSim) -> None:  # noqa: F811
    prom = PrometheusTelemetry(stack.url)
    rows, total = prom.oper_status({"devices": ["gen-prom"]}, last(5))
    assert total == 4
    assert [(r["interface"], r["state_at_end"], r["transitions"]) for r in rows] == [("Ethernet3", "down", 0)]
    rows, total = prom.oper_status({"devices": ["DUMSYS-90"]}, last(5))
    down = {r["interface"] for r in rows if r["state_at_end"] == "down"}
    assert total == 19 and down == recorded_down(snmpsim, CISCO) and down


def test_counters_are_the_agents_increases(stack: PromStack, snmpsim: SnmpSim) -> None:  # noqa: F811
    a = prom_agent()
    a.ports[0].in_errors += 15
    a.ports[1].in_discards += 4
    snmpsim.write(PROM, a)
    stack.wait_for('ifInErrors{device="gen-prom",ifName="Ethernet1"} == 115', 1)
    stack.wait_for('ifInDiscards{device="gen-prom",ifName="Ethernet2"} == 11', 1)
    prom = PrometheusTelemetry(stack.url)
    rows, total, flagged = prom.counters({"devices": ["gen-prom"]}, last(10), "errors")
    assert (total, flagged) == (4, 1)
    assert (rows[0]["interface"], rows[0]["total"]) == ("Ethernet1", 15)
    rows, _, flagged = prom.counters({"devices": ["gen-prom"]}, last(10), "discards")
    assert flagged == 1 and (rows[0]["interface"], rows[0]["total"]) == ("Ethernet2", 4)
    rows, _, _ = prom.counters({"devices": ["gen-prom"]}, last(10), "utilization")
    assert {r["interface"] for r in rows} == {f"Ethernet{i}" for i in range(1, 5)}
    assert all(r["max_pct"] == 0 for r in rows)  # the recording's octet counters do not move


@pytest.fixture
def store(tmp_path: Path, snmpsim: SnmpSim) -> Engine:  # noqa: F811
    """A real store that knows gen-prom (the tool checks device names against the inventory)."""
    engine = engine_for(f"sqlite:///{tmp_path / 'real.db'}")
    create_all(engine)
    t = SnmpTarget(host="127.0.0.1", port=snmpsim.port, auth=SnmpAuth(community=SecretStr(PROM)))
    assert not poll_and_store(engine, [t], timeout=10, retries=0).failures
    return engine


def backends(engine: Engine, url: str) -> Backends:
    events = StoreEvents(engine)
    return Backends(inventory=StoreInventory(engine), telemetry=PrometheusTelemetry(url, timeout=2),
                    paths=LabPaths(engine), changes=events, alarms=events)


def test_telemetry_tool_over_prometheus(stack: PromStack, store: Engine) -> None:
    ev = run_tool("telemetry", {"metric": "oper_status", "devices": ["gen-prom"], "window": "5m"},
                  backends(store, stack.url))
    assert not ev.errors and ev.facts["ports"] == 4 and ev.facts["down_now"] == 1
    assert "gen-prom Ethernet3" in ev.summary


def test_down_prometheus_is_a_clear_error(store: Engine) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    ev = run_tool("telemetry", {"metric": "errors", "devices": ["gen-prom"]}, backends(store, url))
    assert ev.errors == [f"Prometheus at {url} did not answer: ConnectError"]
    assert not ev.rows
