"""lab/trace.py plainly_delivered, the batch's walk for healthy pairs, against the full trace on a
lab with every kind of fault the forwarding model knows: it gives the full trace's hop and path
counts for every pair that plainly delivers, and None for every other pair."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from netopsai.lab.forwarding import Router, router_for
from netopsai.lab.info import lab_info
from netopsai.lab.inject import inject
from netopsai.lab.manage import init_lab
from netopsai.lab.scenario import Scenario
from netopsai.lab.trace import plainly_delivered, trace
from netopsai.store.engine import engine_for

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
DB: dict[str, str] = {}  # the module's lab store


def _faults(router: Router) -> list[dict[str, Any]]:
    """One fault of each forwarding kind, on links and devices read from the topology."""
    leaves = sorted(n for n, node in router.topo.nodes.items() if node.role == "leaf")
    spines = sorted(n for n, node in router.topo.nodes.items() if node.role == "spine")
    hosts = sorted(router.topo.hosts.values())

    def up(dev: str, i: int) -> str:
        return f"{dev}:{router.topo.up[dev][i].local_if}"
    far = next(ip for ip in sorted(router.topo.hosts) if router.topo.hosts[ip][1] == leaves[-1])
    return [{"kind": "acl_block", "at": "-25m", "target": {"device": spines[0]},
             "params": {"dst": f"{far.rsplit('.', 2)[0]}.0.0/16"}},
            {"kind": "device_down", "at": "-15m", "target": {"device": leaves[-2]}},
            {"kind": "link_down", "at": "-10m", "target": {"link": up(leaves[5], 0)}},
            {"kind": "mtu_mismatch", "at": "-10m", "target": {"link": up(leaves[2], 1)}},
            {"kind": "crc_errors", "at": "-10m", "target": {"link": up(leaves[3], 0)}},
            {"kind": "congestion", "at": "-10m", "target": {"link": up(spines[-1], 0)}},
            {"kind": "host_down", "at": "-10m", "target": {"device": hosts[0][0]}},
            {"kind": "bgp_down", "at": "-10m", "target": {"link": up(leaves[4], 2)}},
            {"kind": "blackhole", "at": "-10m",
             "target": {"device": spines[-2], "prefix": f"{far.rsplit('.', 1)[0]}.0/24"}}]


@pytest.fixture(scope="module")
def router(tmp_path_factory: pytest.TempPathFactory) -> Router:
    DB["url"] = f"sqlite:///{tmp_path_factory.mktemp('plain') / 'netopsai.db'}"
    engine = engine_for(DB["url"])
    init_lab(engine, "default", "small", 7, CLOCK)
    info = lab_info(engine)
    faults = _faults(router_for(engine, info.version, info.clock))
    inject(engine, Scenario.model_validate({"id": "plain", "now": "2025-11-04T20:00:00Z",
                                            "faults": faults}))
    info = lab_info(engine)
    return router_for(engine, info.version, info.clock)


def test_the_plain_walk_is_the_full_trace_for_every_pair(router: Router) -> None:
    rng = random.Random(20251127)
    hosts = sorted(router.topo.hosts)
    seen: Counter[str] = Counter()
    for _ in range(6000):
        src, dst, size = rng.choice(hosts), rng.choice(hosts), rng.choice([60, 60, 1600, 9000])
        t = trace(router, src, dst, size)
        plain = t.reached and t.failure is None and not any(h.loss_pct for h in t.hops)
        want = (len(t.hops), t.good_paths, t.ecmp_paths) if plain else None
        assert plainly_delivered(router, src, dst, size) == want, (src, dst, size)
        seen["plain" if plain else "not reached" if not t.reached
             else "lossy" if any(h.loss_pct for h in t.hops) else "failing member"] += 1
    # the faults are hit: every way of not being plain declined, and most pairs still plain
    assert set(seen) == {"plain", "not reached", "lossy", "failing member"}, seen
    assert seen["plain"] > 3000, seen


def test_an_address_that_is_no_host_is_left_to_the_full_trace(router: Router) -> None:
    host = sorted(router.topo.hosts)[1]
    device_ip = sorted(router.topo.owner)[0]
    assert trace(router, host, device_ip).reached  # delivered, yet not a host-to-host pair
    assert plainly_delivered(router, host, device_ip) is None
    assert plainly_delivered(router, host, "192.0.2.1") is None


def test_a_handed_over_router_serves_the_same_store_under_another_engine(
        router: Router, monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked batch worker opens the store again (another Engine): the driver's routes,
    handed over, serve it without a second load, and another moment of the same state
    version reads only its state, on the handed topology."""
    from datetime import timedelta

    from sqlalchemy import create_engine

    from netopsai.lab import fabric, forwarding

    monkeypatch.setattr(forwarding, "_HANDED", {})
    monkeypatch.setattr(fabric, "HANDED_TOPO", {})
    version, at = router.state_version, router.state.at
    assert version  # router_for names the state version it loaded
    forwarding.hand_over(router)
    other = create_engine(DB["url"])
    try:
        def no_read(*_: object) -> None:
            raise AssertionError("the topology was read again")
        monkeypatch.setattr(fabric, "load_topo", no_read)
        assert forwarding.router_for(other, version, at) is router
        earlier = forwarding.router_for(other, version, at - timedelta(minutes=20))
        assert earlier.topo is router.topo and earlier.state.at == fabric.as_utc(at - timedelta(minutes=20))
    finally:
        forwarding.router_for.cache_clear()
        other.dispose()
