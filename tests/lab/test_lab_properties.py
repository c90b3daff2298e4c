"""Invariants of the embedded lab, as properties over its hosts, seeds and scale presets."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlmodel import Session

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.lab.manage import init_lab
from netopsai.lab.noise import noise_rows
from netopsai.lab.spec import Scale, get_scale, load_spec
from netopsai.lab.topology import build_topology
from netopsai.store import tables as m
from netopsai.store.engine import engine_for
from netopsai.tools.registry import run_tool

SPEC = load_spec("default")
CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
CLASSES = ("rack", "pod", "site", "dci")
PROPS = settings(max_examples=40, deadline=None)


def network_devices(sc: Scale) -> int:
    """Network devices the spec's preset implies: per site leafs, spines, super-spines, borders, DCIs."""
    racks = sc.pods_per_site * sc.leafs_per_pod
    spines = sc.pods_per_site * sc.spines_per_pod
    superspines = sc.spines_per_pod * sc.superspines_per_plane
    return len(SPEC.sites) * (racks + spines + superspines + sc.borders + sc.dci)


def expected_ecmp(sc: Scale, kind: str) -> int:
    s, p = sc.spines_per_pod, sc.superspines_per_plane
    return {"rack": 1, "pod": s, "site": s * p,
            "dci": s * p * sc.borders * sc.dci * SPEC.circuits_per_provider * sc.borders * s * p}[kind]


def pair_class(a: dict[str, Any], b: dict[str, Any]) -> str:
    if a["tor"] == b["tor"]:
        return "rack"
    if a["pod"] == b["pod"]:
        return "pod"
    return "site" if a["site"] == b["site"] else "dci"


@pytest.fixture(scope="module")
def hosts(backends: Backends) -> list[dict[str, Any]]:
    ev = run_tool("metadata", {"query": "hosts"}, backends)
    assert ev.ok and ev.rows
    return ev.rows


@pytest.fixture(scope="module")
def wiring(lab_engine: Engine) -> dict[tuple[str, str], tuple[str, str]]:
    """(device, interface) -> (peer device, peer interface), from the store's Link table."""
    ends: dict[tuple[str, str], tuple[str, str]] = {}
    with Session(lab_engine) as s:
        for lk in s.execute(select(m.Link)).scalars():
            ends[(lk.a_device, lk.a_interface)] = (lk.b_device, lk.b_interface)
            ends[(lk.b_device, lk.b_interface)] = (lk.a_device, lk.a_interface)
    return ends


def draw_pair(data: st.DataObject, hosts: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A host pair of a drawn class, so every class is exercised, not only the common one."""
    kind = data.draw(st.sampled_from(CLASSES), label="class")
    a = data.draw(st.sampled_from(hosts), label="src")
    pool = [b for b in hosts if pair_class(a, b) == kind]
    b = data.draw(st.sampled_from(pool), label="dst")
    return a, b


def trace(backends: Backends, a: dict[str, Any], b: dict[str, Any]) -> Any:
    ev = run_tool("traceroute", {"src": a["ip"], "dst": b["ip"]}, backends)
    assert ev.ok, ev.errors
    return ev


@PROPS
@given(data=st.data())
def test_every_host_pair_is_reachable(backends, hosts, data):
    a, b = draw_pair(data, hosts)
    ev = trace(backends, a, b)
    assert ev.facts["reached"] is True, ev.summary
    assert ev.facts["stopped_at"] is None
    assert ev.rows[-1]["device"] == b["name"] and ev.rows[-1]["status"] == "reached"
    assert all(r["status"] in ("ok", "reached") for r in ev.rows)


@PROPS
@given(data=st.data())
def test_paths_are_loop_free(backends, hosts, data):
    a, b = draw_pair(data, hosts)
    devices = trace(backends, a, b).facts["path_devices"]
    assert len(devices) == len(set(devices)), devices
    assert a["name"] not in devices or a["name"] == b["name"]


@PROPS
@given(data=st.data())
def test_every_hop_is_wired_to_the_previous_one(backends, hosts, wiring, data):
    a, b = draw_pair(data, hosts)
    rows = trace(backends, a, b).rows
    # the first hop is the ToR port the source host's eth0 plugs into
    assert wiring[(a["name"], "eth0")] == (rows[0]["device"], rows[0]["interface"])
    for prev, cur in zip(rows, rows[1:], strict=False):
        if prev["out_interface"] is not None:  # the exact link the probe left by
            assert wiring[(prev["device"], prev["out_interface"])] == (cur["device"], cur["interface"])
        else:  # delivery to the host: some link joins the two
            assert wiring[(cur["device"], cur["interface"])][0] == prev["device"]


@PROPS
@given(data=st.data())
def test_ecmp_count_matches_the_topology(backends, hosts, data):
    a, b = draw_pair(data, hosts)
    f = trace(backends, a, b).facts
    want = expected_ecmp(get_scale(SPEC, "small"), pair_class(a, b))
    assert f["ecmp_paths"] == f["good_paths"] == want


@PROPS
@given(data=st.data())
def test_path_is_symmetric_in_shape(backends, hosts, data):
    a, b = draw_pair(data, hosts)
    there, back = trace(backends, a, b), trace(backends, b, a)
    assert there.facts["hops"] == back.facts["hops"]
    assert there.facts["ecmp_paths"] == back.facts["ecmp_paths"]


# ---------------------------------------------------------------- determinism

def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """The lab's rows that a seed decides, without autoincrement ids."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with Session(engine) as s:
        for table in (m.Site, m.Pod, m.Segment, m.Device, m.Interface, m.Link, m.HostAddress,
                      m.BgpSession, m.Alarm, m.Change, m.InterfaceEvent):
            rows = [tuple(sorted((k, str(v)) for k, v in r.model_dump().items() if k != "id"))
                    for r in s.execute(select(table)).scalars()]
            out[table.__name__] = sorted(rows)
    return out


def fresh(make_lab: Callable[..., Engine], seed: int) -> dict[str, list[tuple[Any, ...]]]:
    return dump(make_lab(seed=seed))


def test_same_seed_same_lab(make_lab):
    a, b = fresh(make_lab, 7), fresh(make_lab, 7)
    assert a.keys() == b.keys()
    for table in a:
        assert a[table] == b[table], table
    assert len(a["Device"]) > 0 and len(a["Alarm"]) > 0 and len(a["InterfaceEvent"]) > 0


def test_different_seed_same_wiring_different_noise(make_lab):
    a, b = fresh(make_lab, 7), fresh(make_lab, 8)

    def names(rows: list[tuple[Any, ...]], *keys: str) -> list[tuple[str, ...]]:
        return sorted(tuple(dict(r)[k] for k in keys) for r in rows)

    assert names(a["Device"], "name", "role") == names(b["Device"], "name", "role")
    assert names(a["Link"], "a_device", "a_interface", "b_device", "b_interface") == \
        names(b["Link"], "a_device", "a_interface", "b_device", "b_interface")
    assert a["Alarm"] != b["Alarm"]
    assert a["Change"] != b["Change"]
    assert a["InterfaceEvent"] != b["InterfaceEvent"]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_generator_is_a_function_of_the_seed(seed):
    """The pure generator behind init: equal for equal seeds, at any seed."""
    sc = get_scale(SPEC, "small")

    def gen() -> tuple[Any, ...]:
        topo = build_topology(SPEC, sc, seed, CLOCK)
        noise = noise_rows(random.Random(seed + 1), topo.devices, topo.links,
                           CLOCK.replace(day=1), CLOCK, alarms=5, changes=5, flaps=3)
        return topo.devices, topo.links, topo.interfaces, noise

    assert gen() == gen()
    devices = gen()[0]
    assert sum(d["role"] != "host" for d in devices) == network_devices(sc)
    for d in devices:  # booted before the clock, platforms from the spec
        assert d["booted_at"] < CLOCK
        assert any(p.model == d["model"] for p in SPEC.platforms[d["role"]])


# ---------------------------------------------------------------- scale presets

def sites_total(backends: Backends) -> tuple[int, int]:
    rows = run_tool("metadata", {"query": "sites"}, backends).rows
    return sum(r["network_devices"] for r in rows), sum(r["hosts"] for r in rows)


def test_small_preset_is_about_a_hundred_network_devices(backends):
    n, hosts = sites_total(backends)
    assert n == network_devices(get_scale(SPEC, "small"))
    assert 80 <= n <= 120
    assert run_tool("metadata", {"query": "devices"}, backends).facts["count"] == n
    assert hosts == len(run_tool("metadata", {"query": "hosts"}, backends).rows)


@pytest.mark.slow
def test_medium_preset_is_about_a_thousand_network_devices(tmp_path):
    engine = engine_for(f"sqlite:///{tmp_path / 'medium.db'}")
    init_lab(engine, "default", "medium", 7, CLOCK)
    b = lab_backends(engine)
    sc = get_scale(SPEC, "medium")
    n, _ = sites_total(b)
    assert n == network_devices(sc)
    assert 900 <= n <= 1100
    # the ECMP formula holds at this scale too, for the longest pair class
    src = run_tool("metadata", {"query": "hosts", "name": "dc1-host-001-1"}, b).rows[0]
    last = sc.pods_per_site * sc.leafs_per_pod
    dst = run_tool("metadata", {"query": "hosts", "name": f"dc2-host-{last}-1"}, b).rows[0]
    ev = run_tool("traceroute", {"src": src["ip"], "dst": dst["ip"]}, b)
    assert ev.facts["reached"] is True
    assert ev.facts["ecmp_paths"] == expected_ecmp(sc, "dci")
