"""The telemetry and traceroute tools through run_tool on the shared healthy small lab; expected
counts (ports, ECMP paths) come from the lab spec, not from a run."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.common.timewin import iso
from tests.tool_helpers import (
    PORTS_PER_SITE,
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


def test_a_trace_stopped_at_the_first_hop_counts_one_answering_hop(backends, hosts):
    a = host_of(hosts, name="dc1-host-03-1")
    ev = ok(backends, "traceroute", {"src": a["ip"], "dst": "10.1.3.250"})  # its own segment, unassigned
    assert ev.facts["reached"] is False and len(ev.facts["path_devices"]) == 1, ev.facts
    assert "after 1 answering hop." in ev.summary, ev.summary
    assert ev.facts["ecmp_paths"] or "ECMP" not in ev.summary, ev.summary  # not "0 of 0 paths"
