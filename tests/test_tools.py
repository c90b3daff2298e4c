"""The five tools through run_tool, against the shared healthy small lab (read-only).

Expected numbers come from the lab spec (inventory/default.yaml, small scale), not from a run.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from ipaddress import ip_address, ip_network
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from netopsai.backends.base import Backends
from netopsai.evidence import Evidence
from netopsai.lab.spec import load_spec
from netopsai.timewin import iso
from netopsai.tools.registry import REGISTRY, run_tool

SPEC = load_spec("default")
SC = SPEC.scales["small"]
SITES = [s.name for s in SPEC.sites]
RACKS = SC.pods_per_site * SC.leafs_per_pod  # per site
SPINES = SC.pods_per_site * SC.spines_per_pod  # per site
SUPERSPINES = SC.spines_per_pod * SC.superspines_per_plane  # per site: one plane per pod spine
NET_PER_SITE = RACKS + SPINES + SUPERSPINES + SC.borders + SC.dci
HOSTS_PER_SITE = RACKS * SC.hosts_per_rack
# switch ports with a link, per site: leaf (uplinks + hosts), spine (leafs + its plane),
# superspine (one spine per PoD + borders), border (superspines + DCIs), DCI (borders + circuits)
PORTS_PER_SITE = (RACKS * (SC.spines_per_pod + SC.hosts_per_rack)
                  + SPINES * (SC.leafs_per_pod + SC.superspines_per_plane)
                  + SUPERSPINES * (SC.pods_per_site + SC.borders)
                  + SC.borders * (SUPERSPINES + SC.dci)
                  + SC.dci * (SC.borders + SPEC.circuits_per_provider * (len(SITES) - 1)))
SNAPSHOT = Path(__file__).parent / "data_snapshots" / "tool_schemas.json"
EVIDENCE_KEYS = {"id", "tool", "args", "window", "summary", "columns", "rows", "facts", "partial",
                 "errors"}


def ok(backends: Backends, name: str, args: dict[str, Any]) -> Evidence:
    ev = run_tool(name, args, backends)
    assert ev.errors == [], ev.errors
    assert ev.tool == name and ev.summary
    return ev


def fails(backends: Backends, name: str, args: Any, *needles: str) -> str:
    ev = run_tool(name, args, backends)
    assert len(ev.errors) == 1, ev
    msg = ev.errors[0]
    assert msg and "\n" not in msg
    assert ev.rows == [] and not ev.ok
    for needle in needles:
        assert needle in msg, msg
    return msg


def clock(backends: Backends) -> datetime:
    return backends.inventory.clock()


def one(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    hits = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    assert len(hits) == 1, (match, hits)
    return hits[0]


@pytest.fixture(scope="module")
def hosts(backends: Backends) -> list[dict[str, Any]]:
    return ok(backends, "metadata", {"query": "hosts"}).rows


def host_of(hosts: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    return next(h for h in hosts if all(h[k] == v for k, v in match.items()))


# ---------------------------------------------------------------- metadata

def test_sites_match_the_spec(backends):
    ev = ok(backends, "metadata", {"query": "sites"})
    assert [r["site"] for r in ev.rows] == sorted(SITES)
    for r in ev.rows:
        assert r["pods"] == SC.pods_per_site
        assert r["network_devices"] == NET_PER_SITE
        assert r["hosts"] == HOSTS_PER_SITE
        assert r["site"] in ev.summary
    assert ev.facts == {"count": len(SITES), "query": "sites"}


def test_pods_of_dc1_with_their_segments(backends):
    ev = ok(backends, "metadata", {"query": "pods", "site": "dc1"})
    assert [r["pod"] for r in ev.rows] == [f"dc1-pod{p}" for p in range(1, SC.pods_per_site + 1)]
    seen: set[str] = set()
    for r in ev.rows:
        assert r["site"] == "dc1"
        assert (r["leafs"], r["spines"]) == (SC.leafs_per_pod, SC.spines_per_pod)
        assert len(r["segments"]) == SC.leafs_per_pod
        assert not seen & set(r["segments"])
        seen |= set(r["segments"])
        assert r["segments"][0] in r["segment_range"] and r["segments"][-1] in r["segment_range"]
        assert r["pod"] in ev.summary and r["segment_range"] in ev.summary
        segs = ok(backends, "metadata", {"query": "segments", "pod": r["pod"]}).rows
        assert [s["cidr"] for s in segs] == r["segments"]
    site_segs = ok(backends, "metadata", {"query": "segments", "site": "dc1"}).rows
    assert {s["cidr"] for s in site_segs} == seen
    assert len(ok(backends, "metadata", {"query": "pods"}).rows) == SC.pods_per_site * len(SITES)


def test_segments_of_a_pod_have_gateway_and_tor_inside_the_pod(backends):
    pod = "dc2-pod2"
    segs = ok(backends, "metadata", {"query": "segments", "pod": pod}).rows
    leafs = {d["name"] for d in ok(backends, "metadata",
                                   {"query": "devices", "pod": pod, "role": "leaf"}).rows}
    assert len(segs) == SC.leafs_per_pod
    assert {s["tor"] for s in segs} == leafs
    for s in segs:
        net = ip_network(s["cidr"])
        assert s["pod"] == pod and s["site"] == "dc2" and net.prefixlen == 24
        assert ip_address(s["gateway"]) in net
    everything = ok(backends, "metadata", {"query": "segments"})
    assert everything.facts["count"] == RACKS * len(SITES)


@pytest.mark.parametrize(("args", "count", "check"), [
    ({"role": "spine", "site": "dc1"}, SPINES, {"role": "spine", "site": "dc1"}),
    ({"role": "leaf", "pod": "dc1-pod2"}, SC.leafs_per_pod, {"role": "leaf", "pod": "dc1-pod2"}),
    ({"role": "tor", "pod": "dc1-pod2"}, SC.leafs_per_pod, {"role": "leaf", "pod": "dc1-pod2"}),
    ({"role": "superspine"}, SUPERSPINES * len(SITES), {"role": "superspine"}),
    ({"name": "dc1-spine-*"}, SPINES, {"role": "spine", "site": "dc1"}),
    ({"name": "dc?-border-0*"}, SC.borders * len(SITES), {"role": "border"}),
    ({"name": "dc2-dci-*", "site": "dc2"}, SC.dci, {"role": "dci", "site": "dc2"}),
    ({"site": "dc2"}, NET_PER_SITE, {"site": "dc2"}),
    ({}, NET_PER_SITE * len(SITES), {}),
])
def test_devices_by_role_site_pod_and_glob(backends, args, count, check):
    ev = ok(backends, "metadata", {"query": "devices", **args})
    assert len(ev.rows) == count == ev.facts["count"]
    assert f"{count} devices match" in ev.summary
    for r in ev.rows:
        assert r["role"] != "host"
        for k, v in check.items():
            assert r[k] == v
    assert [r["name"] for r in ev.rows] == sorted(r["name"] for r in ev.rows)


def test_devices_glob_that_matches_nothing_is_empty_not_an_error(backends):
    ev = ok(backends, "metadata", {"query": "devices", "name": "dc1-router-*"})
    assert ev.rows == [] and ev.facts["count"] == 0


def test_device_detail_agrees_with_interfaces_neighbors_and_ip_owner(backends):
    name = "dc1-leaf-03"
    ev = ok(backends, "metadata", {"query": "device", "name": name})
    d = ev.rows[0]
    assert (d["name"], d["role"], d["site"], d["pod"]) == (name, "leaf", "dc1", "dc1-pod1")
    assert d["status"] == "up" and d["links_down"] == 0
    ifaces = ok(backends, "metadata", {"query": "interfaces", "name": name}).rows
    assert d["interfaces"] == len(ifaces) == SC.spines_per_pod + SC.hosts_per_rack + 1  # + SVI
    assert d["loopback"] in ev.summary and d["mgmt_ip"] in ev.summary
    for addr, itf in ((d["loopback"], "Loopback0"), (d["mgmt_ip"], "Management0")):
        owner = ok(backends, "metadata", {"query": "ip", "ip": addr}).rows[0]
        assert (owner["device"], owner["interface"]) == (name, itf)
    boot = datetime.fromisoformat(d["booted_at"].replace("Z", "+00:00"))
    assert boot < clock(backends)


def test_hosts_list_ip_name_pod_segment_and_tor(backends, hosts):
    assert len(hosts) == HOSTS_PER_SITE * len(SITES)
    tor_of_segment = {s["cidr"]: s["tor"] for s in ok(backends, "metadata", {"query": "segments"}).rows}
    for h in hosts:
        assert {"ip", "name", "pod", "segment", "tor"} <= set(h)
        assert ip_address(h["ip"]) in ip_network(h["segment"])
        assert tor_of_segment[h["segment"]] == h["tor"]
    pod = ok(backends, "metadata", {"query": "hosts", "pod": "dc1-pod1"}).rows
    assert len(pod) == SC.leafs_per_pod * SC.hosts_per_rack
    assert all(h["pod"] == "dc1-pod1" for h in pod)
    rack = ok(backends, "metadata", {"query": "hosts", "name": "dc1-host-03-*"}).rows
    assert len(rack) == SC.hosts_per_rack and {h["tor"] for h in rack} == {"dc1-leaf-03"}


def test_ip_owner_of_a_host(backends, hosts):
    h = host_of(hosts, name="dc1-host-03-1")
    ev = ok(backends, "metadata", {"query": "ip", "ip": h["ip"]})
    r = ev.rows[0]
    assert (r["device"], r["role"], r["interface"]) == (h["name"], "host", "eth0")
    assert (r["tor"], r["tor_interface"], r["segment"]) == (h["tor"], h["tor_interface"], h["segment"])
    assert h["tor"] in ev.summary and h["segment"] in ev.summary


def test_ip_owner_of_interface_addresses(backends):
    svi = ok(backends, "metadata", {"query": "segments", "pod": "dc1-pod1"}).rows[2]
    r = ok(backends, "metadata", {"query": "ip", "ip": svi["gateway"]}).rows[0]
    assert r["device"] == svi["tor"] and r["interface"].startswith("Vlan")
    uplinks = [i for i in ok(backends, "metadata", {"query": "interfaces", "name": "dc1-leaf-03"}).rows
               if i["ip"] and i["ip"].endswith("/31")]
    assert len(uplinks) == SC.spines_per_pod
    nbrs = {n["interface"]: n for n in ok(backends, "metadata",
                                          {"query": "neighbors", "name": "dc1-leaf-03"}).rows}
    for itf in uplinks:
        mine = itf["ip"].split("/")[0]
        r = ok(backends, "metadata", {"query": "ip", "ip": mine}).rows[0]
        assert (r["device"], r["interface"], r["role"]) == ("dc1-leaf-03", itf["name"], "leaf")
        # the other address of the /31 belongs to the neighbour across that link
        peer_ip = str(next(a for a in ip_network(itf["ip"], strict=False) if str(a) != mine))
        peer = ok(backends, "metadata", {"query": "ip", "ip": peer_ip}).rows[0]
        n = nbrs[itf["name"]]
        assert (peer["device"], peer["interface"]) == (n["neighbor"], n["neighbor_interface"])


def test_ip_owner_of_a_loopback(backends):
    spine = ok(backends, "metadata", {"query": "devices", "role": "spine", "site": "dc2"}).rows[0]
    r = ok(backends, "metadata", {"query": "ip", "ip": spine["loopback"]}).rows[0]
    assert (r["device"], r["interface"], r["role"]) == (spine["name"], "Loopback0", "spine")


def test_ip_unassigned_in_a_segment_names_the_segment_and_tor(backends, hosts):
    h = host_of(hosts, tor="dc2-leaf-05")
    net = ip_network(h["segment"])
    taken = {x["ip"] for x in hosts if x["segment"] == h["segment"]} | {str(net[1])}
    free = next(str(a) for a in net.hosts() if str(a) not in taken)
    ev = ok(backends, "metadata", {"query": "ip", "ip": free})
    r = ev.rows[0]
    assert r["device"] is None and (r["segment"], r["tor"]) == (h["segment"], "dc2-leaf-05")
    assert "not assigned" in ev.summary


@pytest.mark.parametrize("addr", ["192.168.7.7", "10.200.1.1", "8.8.8.8"])
def test_ip_outside_every_segment_is_an_error(backends, addr):
    fails(backends, "metadata", {"query": "ip", "ip": addr}, addr, "not in the inventory")


def test_neighbors_are_symmetric(backends):
    for name in ("dc1-leaf-03", "dc1-spine-01", "dc1-superspine-01", "dc1-border-01", "dc1-dci-01"):
        ev = ok(backends, "metadata", {"query": "neighbors", "name": name})
        assert ev.rows and all(r["status"] == "up" for r in ev.rows)
        for r in ev.rows:
            back = ok(backends, "metadata", {"query": "neighbors", "name": r["neighbor"]}).rows
            one(back, interface=r["neighbor_interface"], neighbor=name, neighbor_interface=r["interface"])
    leaf = ok(backends, "metadata", {"query": "neighbors", "name": "dc1-leaf-03"}).rows
    assert sum(r["kind"] == "fabric" for r in leaf) == SC.spines_per_pod
    assert sum(r["kind"] == "host" for r in leaf) == SC.hosts_per_rack
    dci = ok(backends, "metadata", {"query": "neighbors", "name": "dc1-dci-01"}).rows
    circuits = [r for r in dci if r["kind"] == "dci"]
    assert len(circuits) == SPEC.circuits_per_provider
    assert all(r["neighbor"] == "dc2-dci-01" and r["circuit_id"] and r["provider"] for r in circuits)


def test_upstream_by_ip_is_the_tor_port(backends, hosts):
    h = host_of(hosts, name="dc2-host-07-2")
    ev = ok(backends, "metadata", {"query": "upstream", "ip": h["ip"]})
    assert [(r["neighbor"], r["neighbor_interface"], r["role"]) for r in ev.rows] == [
        (h["tor"], h["tor_interface"], "leaf")]


def test_upstream_by_name_goes_one_tier_up(backends):
    leaf = ok(backends, "metadata", {"query": "upstream", "name": "dc1-leaf-20"}).rows
    assert len(leaf) == SC.spines_per_pod
    assert {r["role"] for r in leaf} == {"spine"}
    pod2_spines = {d["name"] for d in ok(backends, "metadata",
                                         {"query": "devices", "role": "spine", "pod": "dc1-pod2"}).rows}
    assert {r["neighbor"] for r in leaf} == pod2_spines
    spine = ok(backends, "metadata", {"query": "upstream", "name": "dc1-spine-05"}).rows
    assert len(spine) == SC.superspines_per_plane and {r["role"] for r in spine} == {"superspine"}
    border = ok(backends, "metadata", {"query": "upstream", "name": "dc1-border-01"}).rows
    assert len(border) == SC.dci and {r["role"] for r in border} == {"dci"}
    top = ok(backends, "metadata", {"query": "upstream", "name": "dc1-dci-01"})
    assert top.rows == [] and "no upstream" in top.summary


def test_interfaces_of_a_spine(backends):
    rows = ok(backends, "metadata", {"query": "interfaces", "name": "dc1-spine-02"}).rows
    assert len(rows) == SC.leafs_per_pod + SC.superspines_per_plane
    assert all(r["device"] == "dc1-spine-02" and r["oper_status"] == "up" for r in rows)
    assert all(r["ip"].endswith("/31") for r in rows)


@pytest.mark.parametrize(("args", "needles"), [
    ({"query": "device", "name": "dc1-leaf-3"}, ["'dc1-leaf-3'", "dc1-leaf-03"]),
    ({"query": "neighbors", "name": "dc1-spine-1"}, ["'dc1-spine-1'", "dc1-spine-01"]),
    ({"query": "interfaces", "name": "dc2-bordr-01"}, ["dc2-bordr-01", "dc2-border-01"]),
    ({"query": "upstream", "name": "dc1-leaf-300"}, ["dc1-leaf-300", "did you mean"]),
    ({"query": "pods", "site": "dc3"}, ["'dc3'", "dc1"]),
    ({"query": "segments", "pod": "dc1-pod9"}, ["'dc1-pod9'", "dc1-pod1"]),
    ({"query": "hosts", "pod": "dc2-pd1"}, ["dc2-pd1", "dc2-pod1"]),
    ({"query": "devices", "role": "spien"}, ["'spien'", "spine"]),
    ({"query": "devices", "site": "dc-1"}, ["dc-1", "dc1"]),
])
def test_unknown_names_come_back_with_close_matches(backends, args, needles):
    msg = fails(backends, "metadata", args, *needles)
    assert msg.startswith("unknown ")


@pytest.mark.parametrize(("args", "needles"), [
    ({"query": "device"}, ["needs name"]),
    ({"query": "ip"}, ["needs ip"]),
    ({"query": "neighbors"}, ["needs name"]),
    ({"query": "upstream"}, ["name or an ip"]),
    ({"query": "inventory"}, ["query", "sites"]),
    ({"query": "ip", "ip": "10.1.3.300"}, ["10.1.3.300", "IPv4"]),
    ({"query": "upstream", "ip": "10.1.3.99"}, ["10.1.3.99", "not assigned"]),
])
def test_metadata_bad_queries(backends, args, needles):
    fails(backends, "metadata", args, *needles)


# ---------------------------------------------------------------- telemetry

def test_oper_status_of_every_switch_port_over_24h(backends):
    ev = ok(backends, "telemetry", {"metric": "oper_status", "window": "24h", "top": 1000})
    now = clock(backends)
    assert ev.window == {"start": iso(now - timedelta(hours=24)), "end": iso(now)}
    f = ev.facts
    assert f["ports"] == PORTS_PER_SITE * len(SITES)
    assert f["up_throughout"] + len(ev.rows) == f["ports"]
    assert f["down_now"] == 0 and f["changed"] == len(ev.rows) and not ev.partial
    for r in ev.rows:  # a healthy lab: only background flaps that came back up
        assert r["state_at_start"] == r["state_at_end"] == "up"
        assert r["transitions"] == len(r["events"].split("; ")) == 2 * r["flaps"]
    assert f"{f['ports']} ports" in ev.summary


def test_oper_status_by_role_counts_that_roles_ports(backends):
    ev = ok(backends, "telemetry", {"metric": "oper_status", "role": "spine", "window": "24h"})
    assert ev.facts["ports"] == SPINES * len(SITES) * (SC.leafs_per_pod + SC.superspines_per_plane)
    pod = ok(backends, "telemetry", {"metric": "oper_status", "pod": "dc1-pod1", "role": "tor"})
    assert pod.facts["ports"] == SC.leafs_per_pod * (SC.spines_per_pod + SC.hosts_per_rack)


def test_oper_status_of_one_interface(backends):
    ev = ok(backends, "telemetry", {"metric": "oper_status", "devices": ["dc1-leaf-03"],
                                    "interface": "Ethernet49", "window": "24h"})
    assert ev.facts["ports"] == 1 and ev.facts["up_throughout"] == 1 and ev.rows == []
    assert "dc1-leaf-03 Ethernet49" in ev.summary


def test_flaps_over_the_history_agree_with_link_alarms(backends):
    ev = ok(backends, "telemetry", {"metric": "flaps", "window": "7d", "top": 1000})
    rows = ev.rows
    # every background flap takes both ends of one link down once
    assert sum(r["flaps"] for r in rows) == 2 * SPEC.history.flaps
    assert ev.facts["changed"] == len(rows) and not ev.partial
    assert [r["flaps"] for r in rows] == sorted((r["flaps"] for r in rows), reverse=True)
    assert all(r["flaps"] >= 1 for r in rows)
    alarms = ok(backends, "alarms", {"window": "7d", "category": "link"}).rows
    for r in rows:
        down_at = r["events"].split("; ")[0].removesuffix(" down").replace(" ", "T") + "Z"
        one(alarms, device=r["device"], interface=r["interface"], kind="LINK_DOWN", raised_at=down_at)


def test_counters_errors_rank_worst_first_and_count_flagged_ports(backends):
    ev = ok(backends, "telemetry", {"metric": "errors", "top": 1000})
    assert ev.facts["ports"] == PORTS_PER_SITE * len(SITES) == len(ev.rows)
    assert {"device", "interface", "total", "crc_total"} <= set(ev.columns)
    totals = [r["total"] for r in ev.rows]
    assert totals == sorted(totals, reverse=True)
    assert ev.facts["flagged"] == sum(t > 0 for t in totals)
    assert all(r["max_per_5min"] <= r["total"] for r in ev.rows)
    top3 = ok(backends, "telemetry", {"metric": "errors", "top": 3}).rows
    assert [r["total"] for r in top3] == totals[:3]


def test_utilization_is_a_percentage_and_flags_80(backends):
    ev = ok(backends, "telemetry", {"metric": "utilization", "window": "6h", "top": 1000})
    assert len(ev.rows) == ev.facts["ports"]
    for r in ev.rows:
        assert 0 <= r["avg_pct"] <= r["max_pct"] <= 100
    assert ev.facts["flagged"] == sum(r["max_pct"] >= 80 for r in ev.rows)
    top = ok(backends, "telemetry", {"metric": "utilization", "window": "6h", "top": 5})
    assert len(top.rows) == 5
    assert [r["max_pct"] for r in top.rows] == [r["max_pct"] for r in ev.rows[:5]]


def test_rx_power_ranks_lowest_first(backends):
    ev = ok(backends, "telemetry", {"metric": "rx_power", "site": "dc2", "top": 1000})
    assert ev.facts["ports"] == PORTS_PER_SITE == len(ev.rows)
    mins = [r["min_dbm"] for r in ev.rows]
    assert mins == sorted(mins)
    assert all(r["min_dbm"] <= r["avg_dbm"] for r in ev.rows)
    assert ev.facts["flagged"] == sum(m <= -10 for m in mins)


def test_discards_of_one_device(backends):
    ev = ok(backends, "telemetry", {"metric": "discards", "devices": ["dc1-border-01"], "window": "2h"})
    assert ev.facts["ports"] == SUPERSPINES + SC.dci
    assert {r["device"] for r in ev.rows} == {"dc1-border-01"}
    assert all(r["total"] >= 0 for r in ev.rows)


def test_top_marks_truncated_status_as_partial(backends):
    full = ok(backends, "telemetry", {"metric": "oper_status", "window": "7d", "top": 1000})
    assert len(full.rows) >= 2
    cut = ok(backends, "telemetry", {"metric": "oper_status", "window": "7d", "top": 1})
    assert cut.rows == full.rows[:1] and cut.partial and not full.partial


@pytest.mark.parametrize(("args", "needles"), [
    ({"metric": "errors", "devices": ["dc1-leaf-99"]}, ["'dc1-leaf-99'", "dc1-leaf-09"]),
    ({"metric": "flaps", "site": "dc7"}, ["dc7", "dc1"]),
    ({"metric": "flaps", "pod": "dc1-pod7"}, ["dc1-pod7", "dc1-pod1"]),
    ({"metric": "flaps", "role": "spines"}, ["spines", "spine"]),
    ({"metric": "oper_status", "devices": ["dc1-leaf-03"], "interface": "Ethernet94"},
     ["Ethernet94", "Ethernet49"]),
    ({"metric": "errors", "interface": "Ethernet999"}, ["Ethernet999"]),
    ({"metric": "latency"}, ["metric"]),
    ({"metric": "errors", "top": 0}, ["top"]),
    ({"metric": "errors", "devices": "dc1-leaf-03"}, ["devices"]),
    ({"metric": "errors", "window": "yesterday"}, ["yesterday"]),
])
def test_telemetry_bad_arguments(backends, args, needles):
    fails(backends, "telemetry", args, *needles)


# ---------------------------------------------------------------- traceroute

def expected_ecmp(a: dict[str, Any], b: dict[str, Any]) -> int:
    """Equal-cost paths a Clos of the small preset offers between two hosts."""
    s, p = SC.spines_per_pod, SC.superspines_per_plane
    if a["tor"] == b["tor"]:
        return 1
    if a["pod"] == b["pod"]:
        return s  # ToR -> any pod spine -> ToR
    if a["site"] == b["site"]:
        return s * p  # ToR -> spine -> each super-spine of its plane -> spine -> ToR
    up = s * p * SC.borders * SC.dci * SPEC.circuits_per_provider
    return up * SC.borders * s * p  # remote DCI -> border -> any super-spine -> spine -> ToR


PAIRS = {  # class: (src host name, dst host name, hops: devices on the path incl. the dst host)
    "rack": ("dc1-host-03-1", "dc1-host-03-4", 2),
    "pod": ("dc1-host-03-1", "dc1-host-05-2", 4),
    "site": ("dc1-host-03-1", "dc1-host-20-2", 6),
    "dci": ("dc1-host-03-1", "dc2-host-01-3", 11),
}


@pytest.mark.parametrize("kind", list(PAIRS))
def test_trace_classes_reach_with_the_topologys_ecmp(backends, hosts, kind):
    src_name, dst_name, n_hops = PAIRS[kind]
    a, b = host_of(hosts, name=src_name), host_of(hosts, name=dst_name)
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": b["ip"]})
    f = ev.facts
    assert f["reached"] is True and f["stopped_at"] is None
    assert f["ecmp_paths"] == f["good_paths"] == expected_ecmp(a, b)
    assert f["hops"] == len(ev.rows) == n_hops
    assert [r["hop"] for r in ev.rows] == list(range(1, n_hops + 1))
    assert ev.rows[0]["device"] == a["tor"] and ev.rows[0]["interface"] == a["tor_interface"]
    assert ev.rows[-1]["device"] == b["name"] and ev.rows[-1]["ip"] == b["ip"]
    assert ev.rows[-1]["status"] == "reached"
    assert f["path_devices"] == [r["device"] for r in ev.rows]
    assert ev.rows[-2]["device"] == b["tor"]
    rtts = [r["rtt_ms"] for r in ev.rows]
    assert rtts == sorted(rtts) and all(r["loss_pct"] == 0 for r in ev.rows)
    assert set(ev.columns) >= {"hop", "ip", "device", "interface", "rtt_ms", "loss_pct", "status"}
    assert ev.window == {"start": iso(clock(backends)), "end": iso(clock(backends))}
    assert f"{f['ecmp_paths']} of {f['ecmp_paths']} ECMP paths" in ev.summary


def test_trace_hops_map_to_the_devices_metadata_names(backends, hosts):
    a, b = host_of(hosts, name="dc2-host-30-4"), host_of(hosts, name="dc1-host-11-1")
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": b["ip"]})
    owner = ok(backends, "metadata", {"query": "ip", "ip": a["ip"]}).rows[0]
    assert ev.rows[0]["device"] == owner["tor"]  # metadata's ToR for the IP is the first hop
    for hop in ev.rows:
        r = ok(backends, "metadata", {"query": "ip", "ip": hop["ip"]}).rows[0]
        assert r["device"] == hop["device"]
        if hop["hop"] > 1:  # hop 1 answers from its gateway SVI, later hops from the ingress port
            assert r["interface"] == hop["interface"]
        ok(backends, "metadata", {"query": "device", "name": hop["device"]})
    # the ToRs on the path are the upstream of each end
    up = ok(backends, "metadata", {"query": "upstream", "ip": b["ip"]}).rows
    assert ev.rows[-2]["device"] == up[0]["neighbor"]


def test_trace_to_a_device_address_stops_at_that_device(backends, hosts):
    a = host_of(hosts, name="dc1-host-03-1")
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": "10.1.5.1"})  # dc1-leaf-05's SVI
    assert ev.facts["reached"] is True
    assert ev.rows[-1]["device"] == "dc1-leaf-05" and ev.rows[-1]["status"] == "reached"


def test_trace_to_a_super_spine_loopback_takes_only_its_plane(backends, hosts):
    a = host_of(hosts, name="dc1-host-03-1")
    ss = ok(backends, "metadata", {"query": "device", "name": "dc1-superspine-01"}).rows[0]
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": ss["loopback"]})
    plane = ok(backends, "metadata", {"query": "upstream", "name": "dc1-spine-01"}).rows
    assert "dc1-superspine-01" in {r["neighbor"] for r in plane}
    assert ev.facts["path_devices"] == ["dc1-leaf-03", "dc1-spine-01", "dc1-superspine-01"]
    assert ev.facts["ecmp_paths"] == 1


def test_trace_to_an_unassigned_address_stops_at_the_tor(backends, hosts):
    a = host_of(hosts, name="dc1-host-03-1")
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": "10.1.9.99"})
    f = ev.facts
    assert f["reached"] is False and f["stopped_at"] == "dc1-leaf-09"
    assert ev.rows[-1]["status"] == "!H" and "not assigned" in f["reason"]
    assert f["good_paths"] == 0
    assert "did NOT reach" in ev.summary


def test_trace_probe_larger_than_the_dci_mtu_stops_at_a_dci_router(backends):
    loopback = ok(backends, "metadata", {"query": "device", "name": "dc1-leaf-03"}).rows[0]["loopback"]
    args = {"src": loopback, "dst": "10.2.1.1"}  # leaf to leaf across the DCI, no host links
    assert SPEC.mtu["dci"] < min(SPEC.mtu["fabric"], SPEC.mtu["backbone"])
    ev = ok(backends, "traceroute", {**args, "size": SPEC.mtu["dci"] + 50})
    f = ev.facts
    assert f["reached"] is False and f["good_paths"] == 0
    assert ev.rows[-1]["status"] == f"!F-{SPEC.mtu['dci']}"
    assert ok(backends, "metadata", {"query": "device", "name": f["stopped_at"]}).rows[0]["role"] == "dci"
    assert f"MTU {SPEC.mtu['dci']}" in f["reason"]
    fits = ok(backends, "traceroute", {**args, "size": SPEC.mtu["dci"]})
    assert fits.facts["reached"] is True and fits.rows[-1]["device"] == "dc2-leaf-01"


def test_trace_probe_larger_than_the_host_mtu_does_not_reach(backends, hosts):
    a, b = host_of(hosts, name="dc1-host-03-1"), host_of(hosts, name="dc1-host-03-2")
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": b["ip"], "size": SPEC.mtu["host"] + 100})
    assert ev.facts["reached"] is False
    assert f"!F-{SPEC.mtu['host']}" in {r["status"] for r in ev.rows}
    small = ok(backends, "traceroute", {"src": a["ip"], "dst": b["ip"], "size": SPEC.mtu["host"]})
    assert small.facts["reached"] is True


def _leaf_uplink_flap(backends: Backends) -> tuple[str, str, datetime, datetime]:
    """A background flap of a leaf's uplink (device, interface, down, up), from telemetry."""
    rows = ok(backends, "telemetry", {"metric": "flaps", "window": "7d", "top": 1000}).rows
    for r in rows:
        nbr = one(ok(backends, "metadata", {"query": "neighbors", "name": r["device"]}).rows,
                  interface=r["interface"])
        if "-leaf-" in r["device"] and nbr["kind"] == "fabric":
            down, up = (datetime.fromisoformat(e.rsplit(" ", 1)[0] + "+00:00")
                        for e in r["events"].split("; ")[:2])
            return r["device"], r["interface"], down, up
    pytest.fail("the seed-7 small lab has no background flap on a leaf uplink")


def test_trace_at_a_past_time_sees_the_links_of_that_time(backends, hosts):
    leaf, ifname, down, up = _leaf_uplink_flap(backends)
    a = host_of(hosts, tor=leaf)
    b = next(h for h in hosts if h["pod"] == a["pod"] and h["tor"] != leaf)
    args = {"src": a["ip"], "dst": b["ip"]}
    during = ok(backends, "traceroute", {**args, "at": iso(down + (up - down) / 2)})
    assert during.facts["reached"] is True
    assert during.facts["ecmp_paths"] == SC.spines_per_pod - 1
    assert during.rows[0]["out_interface"] != ifname
    assert during.window["start"] == iso(down + (up - down) / 2)
    after = ok(backends, "traceroute", {**args, "at": iso(up + timedelta(seconds=1))})
    assert after.facts["ecmp_paths"] == SC.spines_per_pod
    rel = ok(backends, "traceroute", {**args, "at": "-30m"})
    assert rel.window["start"] == iso(clock(backends) - timedelta(minutes=30))


@pytest.mark.parametrize(("args", "needles"), [
    ({"src": "10.1.3.256", "dst": "10.2.1.40"}, ["src", "10.1.3.256"]),
    ({"src": "10.1.3.20", "dst": "not-an-ip"}, ["dst", "not-an-ip"]),
    ({"src": "fe80::1", "dst": "10.2.1.40"}, ["fe80::1", "IPv4"]),
    ({"src": "10.1.3.20"}, ["dst", "required"]),
    ({"src": "10.9.9.9", "dst": "10.2.1.40"}, ["10.9.9.9", "source"]),
    ({"src": "10.1.3.20", "dst": "192.168.0.1"}, ["192.168.0.1"]),
    ({"src": "10.1.3.20", "dst": "10.2.1.40", "size": 10}, ["size"]),
    ({"src": "10.1.3.20", "dst": "10.2.1.40", "size": "big"}, ["size"]),
    ({"src": "10.1.3.20", "dst": "10.2.1.40", "at": "2030-01-01T00:00:00Z"}, ["after the lab clock"]),
    ({"src": "10.1.3.20", "dst": "10.2.1.40", "at": "+1h"}, ["after the lab clock"]),
    ({"src": "10.1.3.20", "dst": "10.2.1.40", "at": "last tuesday"}, ["last tuesday"]),
    ({"src": "10.1.3.20", "dst": "10.2.1.40", "at": "-99999999d"}, ["too long"]),
])
def test_traceroute_bad_arguments(backends, args, needles):
    fails(backends, "traceroute", args, *needles)


# ---------------------------------------------------------------- changelog

def test_changelog_history_and_window_filtering(backends):
    week = ok(backends, "changelog", {"window": "7d"})
    assert len(week.rows) == SPEC.history.changes == week.facts["changes"]
    assert week.facts["devices"] == sorted({r["device"] for r in week.rows})
    hour = ok(backends, "changelog", {"window": "1h"})
    assert {r["ticket"] for r in hour.rows} <= {r["ticket"] for r in week.rows}
    c = week.rows[len(week.rows) // 2]
    start, end = (datetime.fromisoformat(c[k].replace("Z", "+00:00")) for k in ("start", "end"))
    inside = ok(backends, "changelog", {"window": {"start": c["start"], "end": c["end"]}})
    assert c["ticket"] in {r["ticket"] for r in inside.rows}
    before = ok(backends, "changelog", {"window": {"start": iso(start - timedelta(minutes=10)),
                                                   "end": iso(start - timedelta(seconds=1))}})
    assert c["ticket"] not in {r["ticket"] for r in before.rows}
    after = ok(backends, "changelog", {"window": {"start": iso(end + timedelta(seconds=1)),
                                                  "end": iso(end + timedelta(minutes=10))}})
    assert c["ticket"] not in {r["ticket"] for r in after.rows}
    for r in week.rows:  # every record overlaps the window
        assert r["start"] <= week.window["end"] and r["end"] >= week.window["start"]


def test_changelog_site_device_and_ticket_filters(backends):
    week = ok(backends, "changelog", {"window": "7d"}).rows
    per_site = {s: ok(backends, "changelog", {"window": "7d", "site": s}).rows for s in SITES}
    assert sum(len(v) for v in per_site.values()) == len(week)
    for s, rows in per_site.items():
        assert all(r["site"] == s for r in rows)
    dev = week[0]["device"]
    by_dev = ok(backends, "changelog", {"window": "7d", "devices": [dev]}).rows
    assert by_dev and all(r["device"] == dev for r in by_dev)
    assert len(by_dev) == sum(r["device"] == dev for r in week)
    t = ok(backends, "changelog", {"window": "7d", "ticket": week[-1]["ticket"]})
    assert [r["ticket"] for r in t.rows] == [week[-1]["ticket"]]
    assert f"ticket {week[-1]['ticket']}" in t.summary


@pytest.mark.parametrize(("args", "needles"), [
    ({"devices": ["dc1-leaf-3"]}, ["dc1-leaf-3", "dc1-leaf-03"]),
    ({"site": "dc9"}, ["dc9", "dc1"]),
    ({"window": {"start": "2025-11-04T20:00:00Z", "end": "2025-11-04T10:00:00Z"}}, ["precedes"]),
    ({"window": {"start": "2025-11-04T10:00:00Z", "end": "2025-11-04T10:00:00Z"}}, ["empty"]),
    ({"window": {"end": "2025-11-04T10:00:00Z"}}, ["start"]),
    ({"window": {"start": "2025-11-04T10:00:00Z", "stop": "x"}}, ["'stop'"]),
    ({"window": "0h"}, ["empty"]),
    ({"window": "fortnight"}, ["fortnight"]),
    ({"window": "99999999d"}, ["too long"]),
    ({"window": 5}, ["window"]),
    ({"ticket": 1042}, ["ticket"]),
])
def test_changelog_bad_arguments(backends, args, needles):
    fails(backends, "changelog", args, *needles)


# ---------------------------------------------------------------- alarms

def test_alarms_history_is_all_closed_and_categorised(backends):
    week = ok(backends, "alarms", {"window": "7d"})
    rows = week.rows
    # background: device/bgp/optics/capacity alarms plus one LINK_DOWN from each end of each flap
    assert len(rows) == SPEC.history.alarms + 2 * SPEC.history.flaps == week.facts["alarms"]
    assert week.facts["open"] == 0 and week.facts["closed"] == len(rows)
    assert week.facts["traffic_lost"] == 0
    assert ok(backends, "alarms", {"window": "7d", "state": "open"}).rows == []
    assert len(ok(backends, "alarms", {"window": "7d", "state": "closed"}).rows) == len(rows)
    by_cat = {}
    for cat in ("link", "device", "bgp", "dci", "backbone", "optics", "capacity"):
        by_cat[cat] = ok(backends, "alarms", {"window": "7d", "category": cat}).rows
        assert all(r["category"] == cat for r in by_cat[cat])
    assert sum(len(v) for v in by_cat.values()) == len(rows)
    raised = [r["raised_at"] for r in rows]
    assert raised == sorted(raised, reverse=True)


def test_alarms_window_is_active_at_any_time_in_it(backends):
    rows = ok(backends, "alarms", {"window": "7d"}).rows
    a = rows[len(rows) // 2]
    raised = datetime.fromisoformat(a["raised_at"].replace("Z", "+00:00"))
    cleared = datetime.fromisoformat(a["cleared_at"].replace("Z", "+00:00"))
    assert raised < cleared

    def ids(start: datetime, end: datetime) -> set[int]:
        ev = ok(backends, "alarms", {"window": {"start": iso(start), "end": iso(end)}})
        return {r["id"] for r in ev.rows}

    assert a["id"] in ids(raised - timedelta(minutes=5), raised + timedelta(seconds=1))
    assert a["id"] in ids(cleared - timedelta(seconds=1), cleared + timedelta(minutes=5))
    mid = raised + (cleared - raised) / 2
    assert a["id"] in ids(mid, mid + timedelta(seconds=1))  # window inside the alarm
    assert a["id"] not in ids(raised - timedelta(minutes=10), raised - timedelta(seconds=1))
    assert a["id"] not in ids(cleared + timedelta(seconds=1), cleared + timedelta(minutes=10))


def test_alarms_site_and_device_filters(backends):
    rows = ok(backends, "alarms", {"window": "7d"}).rows
    per_site = {s: ok(backends, "alarms", {"window": "7d", "site": s}).rows for s in SITES}
    assert sum(len(v) for v in per_site.values()) == len(rows)
    for s, site_rows in per_site.items():
        assert all(r["device"].startswith(f"{s}-") for r in site_rows)
    dev = rows[0]["device"]
    mine = ok(backends, "alarms", {"window": "7d", "devices": [dev]})
    assert mine.facts["devices"] == [dev]
    assert len(mine.rows) == sum(r["device"] == dev for r in rows)
    link = ok(backends, "alarms", {"window": "7d", "category": "link", "site": "dc1"}).rows
    assert all(r["category"] == "link" and r["device"].startswith("dc1-") for r in link)


@pytest.mark.parametrize(("args", "needles"), [
    ({"category": "wifi"}, ["category", "dci"]),
    ({"state": "active"}, ["state", "open"]),
    ({"site": "dc3"}, ["dc3", "dc1"]),
    ({"devices": ["dc2-dci-1"]}, ["dc2-dci-1", "dc2-dci-01"]),
    ({"window": {"start": "2025-11-04T20:00:00Z", "end": "2025-11-03T20:00:00Z"}}, ["precedes"]),
    ({"window": {"start": "2025-11-04T19:00:00Z", "end": "2025-11-04T19:00:00Z"}}, ["empty"]),
    ({"window": "-1h"}, ["-1h"]),
])
def test_alarms_bad_arguments(backends, args, needles):
    fails(backends, "alarms", args, *needles)


# ---------------------------------------------------------------- no tool ever raises

@pytest.mark.parametrize(("name", "args", "needles"), [
    ("metadatx", {"query": "sites"}, ["unknown tool", "metadata"]),
    ("", {}, ["unknown tool"]),
    ("metadata", "{bad json", ["malformed JSON"]),
    ("metadata", '{"query": "sites"', ["malformed JSON"]),
    ("telemetry", "[1, 2]", ["JSON object"]),
    ("alarms", "null", ["JSON object"]),
    ("alarms", None, ["JSON object"]),
    ("alarms", 42, ["JSON object"]),
    ("traceroute", ["10.1.3.20", "10.2.1.40"], ["JSON object"]),
    ("metadata", {}, ["query"]),
    ("metadata", {"query": "sites", "bogus": 1}, ["unknown argument 'bogus'"]),
    ("metadata", {"query": 3}, ["query"]),
    ("metadata", {"query": "device", "name": ["dc1-leaf-03"]}, ["name"]),
    ("telemetry", {"metric": "errors", "top": "many"}, ["top"]),
    ("telemetry", {"metric": "errors", "top": 10**9}, ["top"]),
    ("changelog", {"devices": [1, 2]}, ["devices"]),
    ("alarms", {"correlate": "maybe"}, ["correlate"]),
    ("traceroute", {"src": None, "dst": "10.2.1.40"}, ["src"]),
    ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40", "size": 1.5}, ["size"]),
])
def test_bad_calls_come_back_as_evidence(backends, name, args, needles):
    msg = fails(backends, name, args, *needles)
    assert "Traceback" not in msg


def test_string_arguments_are_parsed_as_json(backends):
    ev = run_tool("metadata", '{"query": "device", "name": "dc1-leaf-03"}', backends, evidence_id="E7")
    assert ev.ok and ev.id == "E7" and ev.rows[0]["name"] == "dc1-leaf-03"
    assert ev.args == {"query": "device", "name": "dc1-leaf-03"}
    assert run_tool("alarms", "", backends).ok  # empty string: no arguments, the defaults


def test_evidence_json_has_the_spec_keys(backends):
    for name, args in (("metadata", {"query": "sites"}), ("telemetry", {"metric": "flaps"}),
                       ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}),
                       ("changelog", {}), ("alarms", {"window": "2h"}),
                       ("metadata", {"query": "device", "name": "nope"})):
        doc = json.loads(run_tool(name, args, backends).to_json())
        assert set(doc) >= EVIDENCE_KEYS
        assert doc["tool"] == name and isinstance(doc["rows"], list)


class _Broken:
    """A backend whose every call fails, as a real source can."""

    def __getattr__(self, name: str) -> Any:
        def fail(*_a: Any, **_k: Any) -> Any:
            raise ConnectionError("device timed out")
        return fail


@pytest.mark.parametrize(("name", "args"), [
    ("metadata", {"query": "sites"}), ("telemetry", {"metric": "errors"}),
    ("traceroute", {"src": "10.1.3.20", "dst": "10.2.1.40"}), ("changelog", {}), ("alarms", {}),
])
def test_a_failing_backend_comes_back_as_evidence(name, args):
    b = _Broken()
    ev = run_tool(name, args, Backends(inventory=b, telemetry=b, paths=b, changes=b, alarms=b))
    assert ev.errors == ["backend error: ConnectionError: device timed out"]
    assert ev.summary == f"{name} failed: backend error: ConnectionError: device timed out"
    assert ev.rows == [] and ev.tool == name


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3),
    max_leaves=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(REGISTRY)), args=st.dictionaries(
    st.sampled_from(["query", "metric", "src", "dst", "window", "devices", "site", "pod", "role",
                     "name", "ip", "top", "size", "at", "category", "state", "ticket", "interface",
                     "x"]), _JSONISH, max_size=4))
def test_fuzzed_arguments_never_raise(backends, name, args):
    ev = run_tool(name, args, backends)
    assert isinstance(ev, Evidence) and ev.tool == name
    assert all(isinstance(e, str) and e and "\n" not in e for e in ev.errors)
    assert ev.ok or ev.rows == []


# ---------------------------------------------------------------- the LLM contract

def current_schemas() -> dict[str, Any]:
    return {name: REGISTRY[name].schema() for name in sorted(REGISTRY)}


def test_tool_schemas_match_the_snapshot():
    """A change to a tool's name, arguments, descriptions or docstring must be deliberate:
    regenerate with NETOPSAI_UPDATE_SNAPSHOTS=1 and review the diff."""
    schemas = current_schemas()
    if os.environ.get("NETOPSAI_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(schemas, indent=2, sort_keys=True) + "\n")
    assert json.loads(SNAPSHOT.read_text()) == json.loads(json.dumps(schemas))


def test_schemas_cover_the_spec_arguments_with_descriptions():
    spec_args = {  # shared/specs/cli-and-evidence.md, "Tool arguments"
        "metadata": {"query", "site", "pod", "role", "name", "ip"},
        "telemetry": {"metric", "devices", "role", "site", "pod", "interface", "window", "top"},
        "traceroute": {"src", "dst", "size", "at"},
        "changelog": {"devices", "site", "ticket", "window"},
        "alarms": {"category", "state", "devices", "site", "window", "correlate"},
    }
    schemas = current_schemas()
    assert set(schemas) == set(spec_args)
    for name, want in spec_args.items():
        s = schemas[name]
        assert s["name"] == name and len(s["description"]) > 40
        props = s["parameters"]["properties"]
        assert want <= set(props), (name, want - set(props))
        assert all(p.get("description") for p in props.values()), name
    assert set(schemas["metadata"]["parameters"]["required"]) == {"query"}
    assert set(schemas["traceroute"]["parameters"]["required"]) == {"src", "dst"}


def test_alarms_correlate_groups_both_ends_of_a_flap(backends):
    ev = ok(backends, "alarms", {"window": "7d", "correlate": True})
    assert "group" in ev.columns
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in ev.rows:
        groups.setdefault(r["group"], []).append(r)
    assert ev.facts["groups"] == len(groups) == SPEC.history.alarms + SPEC.history.flaps
    for members in groups.values():
        if members[0]["kind"] == "LINK_DOWN":
            assert len(members) == 2 and len({m["device"] for m in members}) == 2
            assert len({m["raised_at"] for m in members}) == 1
    plain = ok(backends, "alarms", {"window": "7d"})
    assert "group" not in plain.columns and "groups" not in plain.facts
