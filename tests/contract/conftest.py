"""Which backends serve which interface: each suite's fixture is parametrised over them. A backend
whose peer cannot run here (no root, a missing binary) skips with the reason; one whose module is
not in the tree yet skips naming the module."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai_testkit.peers.postgres import fresh_database, pg_url  # noqa: F401  (session fixture)
from netopsai_testkit.peers.snmpsim import CISCO, SnmpSim, snmpsim  # noqa: F401  (session fixture)
from tests.contract import cases
from tests.contract.cases import Case

integration = pytest.mark.integration
PG = [pytest.param("pglab", marks=integration), pytest.param("pgstore", marks=integration)]
TELEMETRY = ["lab", "store", pytest.param("snmp", marks=integration),
             pytest.param("netns", marks=integration), pytest.param("prometheus", marks=integration),
             *PG]
PATHS = ["lab", pytest.param("system", marks=integration), pytest.param("napalm", marks=integration),
         PG[0]]
INVENTORY = ["lab", "store", pytest.param("napalm", marks=integration),
             pytest.param("netns", marks=integration), *PG]
ALARMS = ["lab", "store", pytest.param("netns", marks=integration), *PG]
# backends that read the targets themselves, so one target can fail to answer (the others read
# stored history, or a scraper that hides the agents)
POLLING = [pytest.param("snmp", marks=integration)]


def _needs_module(name: str) -> None:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not in this tree yet")


@pytest.fixture(scope="session")
def netns_case(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Case]:
    """One namespace lab for the whole contract session (built in well under a second)."""
    from netopsai_testkit.peers.netns import skip_reason

    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    yield from cases.netns_case(tmp_path_factory.mktemp("netns") / "home")


@pytest.fixture(scope="session")
def napalm_case(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Case]:
    from netopsai_testkit.peers.fakenos import FakeIosNetwork, IosDevice

    leaf, spine = IosDevice("ct-leaf-01"), IosDevice("ct-spine-01")
    leaf.add_port("GigabitEthernet0/0", ip="10.0.7.1/31", description="to ct-spine-01")
    leaf.add_port("GigabitEthernet0/1", up=False, description="spare")
    leaf.add_port("Loopback0", ip="10.254.7.1/32")
    spine.add_port("GigabitEthernet0/0", ip="10.0.7.0/31", description="to ct-leaf-01")
    spine.add_port("Loopback0", ip="10.254.7.2/32")
    leaf.lldp = [("Gi0/0", "ct-spine-01", "Gi0/0")]
    spine.lldp = [("Gi0/0", "ct-leaf-01", "Gi0/0")]
    leaf.traces = {"traceroute 10.254.7.2 source 10.254.7.1 ttl 0 30 timeout 2":
                   ["  1 10.0.7.0 1 msec 1 msec 2 msec", "  2 10.254.7.2 2 msec 2 msec 3 msec"],
                   "traceroute 10.254.7.9 source 10.254.7.1 ttl 0 30 timeout 2":
                   ["  1 10.0.7.0 1 msec 1 msec 2 msec", "  2  *  *  * ", "  3  *  *  * "]}
    net = FakeIosNetwork([leaf, spine], password="ct-fake-pass").start()
    try:
        yield cases.napalm_case(tmp_path_factory.mktemp("napalm"), net.ports, net.username,
                                net.password)
    finally:
        net.stop()


@pytest.fixture(scope="session")
def snmp_case(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Case:
    _needs_module("netopsai.backends.snmp.telemetry")
    sim: SnmpSim = request.getfixturevalue("snmpsim")
    return cases.snmp_case(tmp_path_factory.mktemp("snmp"), sim.port, CISCO)


@pytest.fixture(scope="session")
def prometheus_case(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest,
                    ) -> Iterator[Case]:
    _needs_module("netopsai.backends.prometheus.telemetry")
    from netopsai_testkit.peers.prometheus import start_stack

    sim: SnmpSim = request.getfixturevalue("snmpsim")
    gen = start_stack(f"127.0.0.1:{sim.port}", {cases.PROM_DEVICE: CISCO}, scrape_s=2)
    stack = next(gen)
    try:
        stack.wait_for(f'ifOperStatus{{device="{cases.PROM_DEVICE}"}}', 1)
        yield cases.prometheus_case(tmp_path_factory.mktemp("prom"), sim.port, CISCO, stack.url)
    finally:
        next(gen, None)


@pytest.fixture(scope="session")
def store_case(tmp_path_factory: pytest.TempPathFactory) -> Case:
    return cases.store_case(tmp_path_factory.mktemp("store"))


@pytest.fixture(scope="session")
def pgstore_case(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Case:
    """The real network's store, in PostgreSQL."""
    url = fresh_database(request.getfixturevalue("pg_url"), "pgstore")
    return cases.store_case(tmp_path_factory.mktemp("pgstore"), url)


@pytest.fixture(scope="session")
def pglab_case(request: pytest.FixtureRequest) -> Case:
    """The lab, built into PostgreSQL at the same clock and seed as the SQLite one."""
    from netopsai.lab.manage import init_lab
    from netopsai.store.engine import engine_for
    from tests.conftest import CLOCK

    engine = engine_for(fresh_database(request.getfixturevalue("pg_url"), "pglab"))
    init_lab(engine, "default", "small", 7, CLOCK)
    return cases.lab_case(engine, "pglab")


def _case(request: pytest.FixtureRequest, lab_engine: Engine) -> Case:
    name = request.param
    if name == "lab":
        return cases.lab_case(lab_engine)
    if name == "system":  # the system traceroute runs in the namespace lab
        name = "netns"
    case: Case = request.getfixturevalue(f"{name}_case")
    return case


def _suite(name: str, backends: list[Any]) -> Any:
    """A fixture `name` parametrised over the backends that serve one interface."""
    @pytest.fixture(params=backends, name=name)
    def fixture(request: pytest.FixtureRequest, lab_engine: Engine) -> Case:
        return _case(request, lab_engine)
    return fixture


telemetry_case = _suite("telemetry_case", TELEMETRY)
paths_case = _suite("paths_case", PATHS)
inventory_case = _suite("inventory_case", INVENTORY)
alarms_case = _suite("alarms_case", ALARMS)
polling_case = _suite("polling_case", POLLING)
