"""The metadata tool through run_tool on the shared healthy small lab (read-only); expected
numbers come from the lab spec, not from a run."""

from __future__ import annotations

from datetime import datetime
from ipaddress import ip_address, ip_network

import pytest

from tests.tool_helpers import (
    HOSTS_PER_SITE,
    NET_PER_SITE,
    RACKS,
    SC,
    SITES,
    SPEC,
    SPINES,
    SUPERSPINES,
    clock,
    fails,
    host_of,
    hosts_fixture,  # noqa: F401  (registers the `hosts` fixture)
    ok,
    one,
)

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
