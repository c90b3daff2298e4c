"""The issue 25 item 5 failure on a leaf/spine capture served by a real Prometheus
(testkit/netopsai_testkit/peers/prom_capture.py): asked in PST which ports went down or came back, the answer
names the two ports that changed, not the 163 unused ports that are down all the time; ports
shut on purpose are counted apart; "leaf4 uplinks" reads leaf4's three uplinks only."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.backends.prometheus.telemetry import PrometheusTelemetry
from netopsai.copilot.evidence import Evidence
from netopsai.planner import Vocabulary, plan
from netopsai.store.engine import create_all, engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.tools.registry import run_tool
from netopsai_testkit.peers.prom_capture import DAY, PEER, SHUT, capture, serve, store_inventory

pytestmark = pytest.mark.integration
ZONE = "America/Los_Angeles"
CLOCK = DAY.replace(day=DAY.day + 1, hour=12)  # the next day: "yesterday" is the capture's day


@pytest.fixture(scope="module")
def prom() -> Iterator[str]:
    gen = serve(capture())
    yield next(gen).url
    next(gen, None)


@pytest.fixture(scope="module")
def store() -> Engine:
    engine = engine_for(f"sqlite:///{Path(tempfile.mkdtemp()) / 'capture.db'}")
    create_all(engine)
    store_inventory(engine, capture())
    return engine


def ask(question: str, engine: Engine, url: str) -> Evidence:
    """The offline planner's telemetry call for the question, run against Prometheus."""
    events = StoreEvents(engine)
    b = Backends(inventory=StoreInventory(engine), telemetry=PrometheusTelemetry(url, timeout=10),
                 paths=LabPaths(engine), changes=events, alarms=events, zone=ZONE)
    p = plan(question, Vocabulary.from_inventory(b.inventory), CLOCK, zone=ZONE)
    calls = [c for c in p.calls if c.tool == "telemetry"]
    assert len(calls) == 1, p
    ev = run_tool("telemetry", calls[0].args, b)
    assert not ev.errors, ev.errors
    return ev


def named(port: tuple[str, str]) -> str:
    return f"{port[0]} {port[1]}"


def test_went_down_names_the_two_ports_that_changed(prom: str, store: Engine) -> None:
    ev = ask("which ports went down between 09:40 and 09:45 yesterday?", store, prom)
    head = ev.summary.split(". ")[0]
    assert f"went down: {named(SHUT)} at 09:41:20 PST (admin shut), {named(PEER)} at 09:41:20 PST" in head
    assert [(r["device"], r["interface"]) for r in ev.rows[:2]] == [SHUT, PEER]
    c = capture()
    always = [p for p in c.ports if p.oper == 2]
    assert len(always) == 163
    assert ev.facts["changed"] == 2 and ev.facts["newly_down"] == 2
    assert ev.facts["admin_down"] == sum(p.admin == 2 for p in always)
    assert ev.facts["never_up"] == sum(p.admin == 1 for p in always)
    assert ev.rows[0]["changes"] == "2026-11-20 09:41:20 PST down"


def test_came_back_names_them_too(prom: str, store: Engine) -> None:
    ev = ask("which ports came back up between 09:45 and 09:50 yesterday?", store, prom)
    assert f"came back up: {named(SHUT)} at 09:47:30 PST, {named(PEER)} at 09:47:30 PST" in ev.summary
    assert ev.rows[0]["admin_status"] == "up"  # no shut: admin up again


def test_leaf4_uplinks_are_its_three_spine_ports(prom: str, store: Engine) -> None:
    for q in ("utilisation of leaf4 uplinks between 09:30 and 09:40 yesterday",
              "utilisation of leaf4 ports towards the spines between 09:30 and 09:40 yesterday"):
        ev = ask(q, store, prom)
        assert ev.facts["ports"] == 3 and ev.facts["flagged"] == 0
        assert {r["interface"] for r in ev.rows} == {f"HundredGigE0/0/0/{i}" for i in range(3)}
        assert "Worst: leaf4 HundredGigE0/0/0/2 (max_pct 35.0)" in ev.summary


def test_utilisation_is_the_rate_the_counters_show(prom: str, store: Engine) -> None:
    # the capture's busiest host port carries 88% of 10G: never the 880% a one-step bucket at
    # the window's end made of one 10-second scrape's increase
    ev = ask("utilisation of leaf4 host ports between 09:30 and 09:40 yesterday", store, prom)
    busiest = max(capture().ports, key=lambda p: p.load if p.device == "leaf4" else 0)
    assert ev.rows[0]["interface"] == busiest.name
    assert ev.rows[0]["max_pct"] == pytest.approx(busiest.load * 100, abs=0.5)
    assert ev.facts["ports"] == 8
