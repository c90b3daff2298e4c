"""The batch workers' shortcuts (issue 28 item 4) give the rows the plain path gives: a healthy
pair's row straight from the paths backend (copilot/batch/healthy.py), and the diagnosis of the
failing pairs over the store frozen at the batch's pin (copilot/batch/frozen.py), each compared
with the tool and the live store on every pair of a faulted lab."""

from __future__ import annotations

from dataclasses import asdict, replace
from datetime import UTC, datetime, timedelta

import pytest

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.backends.lab.paths import LabPaths
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import Window
from netopsai.copilot.batch.check import (
    SharedEvidence,
    diagnosed_result,
    needs_diagnosis,
    quick_result,
    trace,
)
from netopsai.copilot.batch.frozen import FrozenEvents, FrozenInventory, FrozenPaths, frozen
from netopsai.copilot.batch.healthy import healthy_result
from netopsai.copilot.batch.parse import Pair
from netopsai.copilot.batch.snapshot import Pin, pin_of, pinned
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
# the bench's three kinds of fault (bench/bench_batch.py) on the small lab, each with a past:
# an ACL on a spine (pairs through it stop, the others are degraded), a dead ToR, a host link
FAULTS = Scenario.model_validate({"id": "batch-frozen", "now": "2025-11-04T20:00:00Z", "faults": [
    {"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-spine-01"},
     "params": {"dst": "10.2.0.0/16"}},
    {"kind": "device_down", "at": "-15m", "target": {"device": "dc2-leaf-05"}},
    {"kind": "link_down", "at": "-10m", "target": {"link": "dc1-leaf-02:Ethernet1"}}]})


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> tuple[Backends, Pin, list[Pair]]:
    engine = engine_for(f"sqlite:///{tmp_path_factory.mktemp('frozen') / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7, CLOCK)
    inject(engine, FAULTS)
    b = lab_backends(engine)
    pin = pin_of(b)
    assert pin is not None
    hosts = b.inventory.hosts(None, None, None)
    # a host of each ToR to every 32nd host (the dead ToR's and the cut host's among the sources),
    # and to an address nobody holds (a tool error)
    srcs = list({h["tor"]: h["ip"] for h in reversed(hosts)}.values())
    dsts = [h["ip"] for h in hosts[::32]] + ["192.0.2.1"]
    pairs = [Pair(n, s, d) for n, (s, d) in enumerate([(s, d) for s in srcs for d in dsts if s != d], 1)]
    return b, pin, pairs


def test_a_healthy_row_from_the_backend_is_the_tools_row(lab: tuple[Backends, Pin, list[Pair]]) -> None:
    b, pin, pairs = lab
    traced = pinned(b, pin)
    failing = 0
    for p in pairs:
        ev = trace(traced, p)
        plain = quick_result(p, ev) if not ev.errors and not needs_diagnosis(ev) else None
        failing += plain is None
        assert healthy_result(traced, p) == plain, p  # None: the tool's way (a failure, an error)
    assert failing >= 30  # the faults are hit: the shortcut declined every pair that fails


def test_the_frozen_store_diagnoses_every_failing_pair_as_the_live_one(
        lab: tuple[Backends, Pin, list[Pair]]) -> None:
    b, pin, pairs = lab
    traced = pinned(b, pin)
    failing = [(p, ev) for p in pairs if not (ev := trace(traced, p)).errors and needs_diagnosis(ev)]
    live, fz = SharedEvidence(b), SharedEvidence(frozen(b, pin))
    assert type(fz.backends.inventory) is FrozenInventory and type(fz.backends.paths) is FrozenPaths
    plain = [asdict(diagnosed_result(p, ev, live)) for p, ev in failing]
    assert [asdict(diagnosed_result(p, ev, fz)) for p, ev in failing] == plain
    causes = {r["cause"] for r in plain}
    assert {"config.acl_block", "device.down", "link.down"} <= causes
    assert any(r["status"] == "degraded" for r in plain)


def test_frozen_reads_answer_as_the_store(lab: tuple[Backends, Pin, list[Pair]]) -> None:
    b, pin, _ = lab
    engine = b.paths.engine  # type: ignore[attr-defined]
    inv, paths, live = FrozenInventory(engine, pin), FrozenPaths(engine, pin), LabPaths(engine)
    assert inv.clock() == b.inventory.clock() == pin.clock
    names = [d["name"] for d in b.inventory.devices(None, None, None, None)][:5]
    assert inv.check_names(names) is None
    for ask in (lambda i: i.check_names([*names, "dc9-leaf-01"]), lambda i: i.check_names(None, "dc9"),
                lambda i: i.ip_owner("192.0.2.1")):
        with pytest.raises(NetopsError) as frozen_err:
            ask(inv)
        with pytest.raises(NetopsError) as store_err:
            ask(b.inventory)
        assert str(frozen_err.value) == str(store_err.value)
    host = b.inventory.hosts(None, None, None)[0]["ip"]
    owner = inv.ip_owner(host)
    owner["note"] = "changed by a caller"  # type: ignore[typeddict-unknown-key]
    assert inv.ip_owner(host) == b.inventory.ip_owner(host)
    past, later = CLOCK - timedelta(minutes=16), CLOCK + timedelta(minutes=1)
    then = paths.traceroute("10.1.1.20", "10.2.5.20", 60, past)  # before the ToR died
    assert then == live.traceroute("10.1.1.20", "10.2.5.20", 60, past)
    assert then != paths.traceroute("10.1.1.20", "10.2.5.20", 60, None)
    with pytest.raises(NetopsError) as frozen_err:
        paths.traceroute("10.1.1.20", "10.2.5.20", 60, later)
    with pytest.raises(NetopsError) as store_err:
        live.traceroute("10.1.1.20", "10.2.5.20", 60, later)
    assert str(frozen_err.value) == str(store_err.value)


def test_only_the_pins_clock_is_frozen(lab: tuple[Backends, Pin, list[Pair]],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A store whose clock is not the batch's lab clock (a real network's, which moves on) is
    read each time; the lab's is read once."""
    b, pin, _ = lab
    ticks = iter(CLOCK + timedelta(seconds=n) for n in range(100))
    monkeypatch.setattr(StoreInventory, "clock", lambda self: next(ticks))
    lab_clock = FrozenInventory(b.paths.engine, replace(pin, clock=CLOCK))  # type: ignore[attr-defined]
    assert [lab_clock.clock() for _ in range(3)] == [CLOCK] * 3
    moving = FrozenInventory(b.paths.engine, pin)  # type: ignore[attr-defined]
    assert len({moving.clock() for _ in range(3)}) == 3


def test_changes_and_alarms_of_named_devices_are_the_stores(lab: tuple[Backends, Pin, list[Pair]]) -> None:
    """Every pair of devices with alarms or changes, and each alone, in two windows: the rows
    cut from one read equal the store's own query's, in its order (alarms raised at one moment
    on two devices, as a dead ToR's neighbours raise them, included)."""
    b, _, _ = lab
    engine = b.paths.engine  # type: ignore[attr-defined]
    store, fz = StoreEvents(engine), FrozenEvents(engine)
    for hours in (1, 24):
        w = Window(start=CLOCK - timedelta(hours=hours), end=CLOCK)
        alarmed = sorted({a["device"] for a in store.alarms(None, "any", None, None, w)})
        changed = sorted({c["device"] for c in store.changes(None, None, None, w)})
        assert len(alarmed) >= 3 and changed
        for names in [[d] for d in alarmed] + [[a, b] for a in alarmed for b in alarmed if a < b]:
            assert fz.alarms(None, "any", names, None, w) == store.alarms(None, "any", names, None, w)
            assert fz.alarms(None, "open", names, None, w) == store.alarms(None, "open", names, None, w)
        for names in [[d] for d in changed] + [changed, [*changed, *alarmed]]:
            assert fz.changes(names, None, None, w) == store.changes(names, None, None, w)
    moments = [a["raised_at"] for a in store.alarms(None, "any", None, None, w)]
    assert len(set(moments)) < len(moments)  # the lab has alarms at one moment: the store's order kept


def test_every_address_owner_read_at_once_is_the_stores(lab: tuple[Backends, Pin, list[Pair]],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The frozen inventory reads every host's owner in one query (frozen.py _hosts): each is
    the store's answer, and only an address that is no host's goes to the store one by one."""
    b, pin, _ = lab
    inv = FrozenInventory(b.paths.engine, pin)  # type: ignore[attr-defined]
    hosts = [h["ip"] for h in b.inventory.hosts(None, None, None)]
    loopback = next(d["loopback"] for d in b.inventory.devices(None, None, None, None)
                    if d.get("loopback"))
    asked: list[str] = []
    one_by_one = StoreInventory.ip_owner
    monkeypatch.setattr(StoreInventory, "ip_owner",
                        lambda self, ip: asked.append(ip) or one_by_one(self, ip))
    got = {ip: inv.ip_owner(ip) for ip in [*hosts, loopback]}
    assert asked == [loopback]  # every host's from the one read
    monkeypatch.setattr(StoreInventory, "ip_owner", one_by_one)
    assert got == {ip: b.inventory.ip_owner(ip) for ip in [*hosts, loopback]}
