"""Fault injection end to end (shared/specs/scenario.md): every fault kind leaves its symptoms in
every data source, read through the real tools over the lab backends.

Targets are not hard-coded: they come from the healthy trace SRC -> DST and the metadata tool,
looked up once on the shared read-only lab (same spec, scale and seed as `make_lab`)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from netopsai.backends.base import Backends
from tests.fault_helpers import (
    AT,
    Lab,
    Route,
    alarms,
    assert_quiet,
    call,
    changes,
    counter,
    crosses,
    device,
    hop_of,
    interface,
    kinds,
    lab_fixture,  # noqa: F401  (registers the `lab` fixture)
    neighbor,
    path_fixture,  # noqa: F401  (registers the `path` fixture)
    port_history,
    worst,
)


def test_targets_come_from_a_cross_dc_path(path: Route) -> None:
    # the tests below rely on the path having these parts
    assert [h.kind for h in path.links].count("dci") >= 1
    assert path.devices[0] == path.src_tor and path.devices[-2] == path.dst_tor
    assert path.devices[-1] == path.dst_host
    assert path.uplink.dev == path.src_tor


# -- one test per fault kind ---------------------------------------------------------------------
def test_link_down_on_a_fabric_uplink(lab: Lab, path: Route) -> None:
    up = path.uplink
    lab.inject({"kind": "link_down", "target": {"link": up.near}})
    b = lab.b
    hist = port_history(b, up.dev, up.peer)
    assert set(hist) == {up.near, up.far}
    assert all(r["state_at_start"] == "up" and r["state_at_end"] == "down" for r in hist.values())
    open_ = alarms(b, state="open")
    assert kinds(open_) == {("LINK_DOWN", up.dev, up.ifname), ("LINK_DOWN", up.peer, up.peer_if),
                            ("BGP_DOWN", up.dev, None), ("BGP_DOWN", up.peer, None)}
    assert {r["category"] for r in open_ if r["kind"] == "LINK_DOWN"} == {"link"}
    assert not any(r["impact"] == "traffic_lost" for r in open_)  # ECMP carries the traffic
    assert neighbor(b, up.near)["status"] == "down" and interface(b, up.far)["oper_status"] == "down"
    assert device(b, up.dev)["links_down"] == 1
    assert changes(b, up.dev, up.peer) == []
    ev = lab.trace()  # the fabric reroutes around the dead link
    assert ev.facts["reached"] and not crosses(ev, up)
    assert ev.facts["good_paths"] == ev.facts["ecmp_paths"] < path.ecmp


def test_link_down_on_the_destination_host_link(lab: Lab, path: Route) -> None:
    lab.inject({"kind": "link_down", "target": {"link": path.dst_port}})
    b = lab.b
    open_ = alarms(b, state="open")
    assert kinds(open_) == {("LINK_DOWN", path.dst_tor, path.dst_port.split(":")[1]),
                            ("LINK_DOWN", path.dst_host, "eth0")}  # no BGP on a host link
    assert all(r["impact"] == "traffic_lost" for r in open_)
    assert port_history(b, path.dst_tor)[path.dst_port]["state_at_end"] == "down"
    assert neighbor(b, path.dst_port)["status"] == "down"
    ev = lab.trace()
    assert not ev.facts["reached"] and ev.facts["stopped_at"] == path.dst_tor
    assert ev.rows[-1]["status"] == "!H"
    assert ev.facts["good_paths"] == 0  # no path delivers to a host whose link is down


def test_link_flap(lab: Lab, path: Route) -> None:
    up = path.uplink
    lab.inject({"kind": "link_flap", "target": {"link": up.near}, "params": {"count": 5}})
    b = lab.b
    flaps = port_history(b, up.dev, up.peer, metric="flaps")
    assert {k: (r["flaps"], r["state_at_end"]) for k, r in flaps.items()} == {
        up.near: (5, "up"), up.far: (5, "up")}
    open_ = alarms(b, state="open")
    assert kinds(open_) == {("LINK_FLAP", up.dev, up.ifname), ("LINK_FLAP", up.peer, up.peer_if)}
    assert neighbor(b, up.near)["status"] == "up"  # up between flaps
    assert changes(b, up.dev, up.peer) == []
    ev = lab.trace()  # intermittent loss: the link is up now but lossy
    assert ev.facts["reached"] and crosses(ev, up)
    assert hop_of(ev, up.dev)["loss_pct"] == 0 < hop_of(ev, up.peer)["loss_pct"]
    # while it is down (10 s after the first down transition) paths avoid it
    first_down = flaps[up.near]["events"].split(";")[0].removesuffix(" down").strip()
    at = datetime.fromisoformat(first_down).replace(tzinfo=lab.clock.tzinfo) + timedelta(seconds=10)
    ev = lab.trace(at=at.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert ev.facts["reached"] and not crosses(ev, up) and ev.facts["ecmp_paths"] < path.ecmp


@pytest.mark.parametrize("kind", ["crc_errors", "optic_degraded"])
def test_link_errors(lab: Lab, path: Route, backends: Backends, kind: str) -> None:
    up = path.uplink  # errors counted where they are received: the spine's port
    lab.inject({"kind": kind, "target": {"interface": up.far}})
    b = lab.b
    healthy, faulty = counter(backends, "errors", up.far), counter(b, "errors", up.far)
    assert faulty["total"] > 100 * max(healthy["total"], 1) and faulty["crc_total"] > 0
    assert faulty["last_5min"] > 0 and worst(b, "errors") == up.far
    if kind == "crc_errors":
        expect = ("INTERFACE_ERRORS", "link")
        assert counter(b, "rx_power", up.far)["min_dbm"] == counter(backends, "rx_power", up.far)["min_dbm"]
    else:
        expect = ("OPTICS_RX_LOW", "optics")
        low = counter(b, "rx_power", up.far)["min_dbm"]
        assert counter(backends, "rx_power", up.far)["min_dbm"] > -10 >= low
        assert worst(b, "rx_power") == up.far
    open_ = alarms(b, state="open")
    assert [(r["kind"], r["category"], r["device"], r["interface"], r["impact"]) for r in open_] == [
        (*expect, up.peer, up.peer_if, "degraded")]
    assert port_history(b, up.dev, up.peer) == {} and neighbor(b, up.far)["status"] == "up"
    assert changes(b, up.dev, up.peer) == []
    ev = lab.trace()  # loss appears at the hop behind the bad link, not before
    assert ev.facts["reached"] and ev.facts["good_paths"] == ev.facts["ecmp_paths"] == path.ecmp
    assert hop_of(ev, up.dev)["loss_pct"] == 0 < hop_of(ev, up.peer)["loss_pct"]


def test_congestion(lab: Lab, path: Route, backends: Backends) -> None:
    up = path.uplink  # the ToR's egress towards the spine
    lab.inject({"kind": "congestion", "target": {"interface": up.near}, "params": {"util": 0.95}})
    b = lab.b
    util = counter(b, "utilization", up.near)
    assert util["max_pct"] == pytest.approx(95, abs=1) and worst(b, "utilization") == up.near
    assert counter(backends, "utilization", up.near)["max_pct"] < 80
    assert counter(b, "discards", up.near)["total"] > 0 == counter(backends, "discards", up.near)["total"]
    open_ = alarms(b, state="open")
    assert [(r["kind"], r["category"], r["device"], r["interface"]) for r in open_] == [
        ("HIGH_UTILIZATION", "capacity", up.dev, up.ifname)]
    assert port_history(b, up.dev, up.peer) == {} and changes(b, up.dev) == []
    ev = lab.trace()  # queueing: loss and added latency behind the congested port
    assert ev.facts["reached"] and crosses(ev, up)
    assert hop_of(ev, up.peer)["loss_pct"] > 0 and ev.rows[-1]["rtt_ms"] > path.rtt


def test_mtu_mismatch_on_a_fabric_link(lab: Lab, path: Route) -> None:
    up = path.uplink
    lab.inject({"kind": "mtu_mismatch", "target": {"interface": up.near}, "params": {"mtu": 1500}})
    b = lab.b
    assert interface(b, up.near)["mtu"] == 1500 != interface(b, up.far)["mtu"]
    big = lab.trace(size=9000)  # large probes stop where the small MTU is ...
    assert not big.facts["reached"] and big.facts["stopped_at"] == up.dev
    assert big.rows[-1]["status"] == "!F-1500"
    assert 0 < big.facts["good_paths"] < big.facts["ecmp_paths"] == path.ecmp
    small = lab.trace(size=1400)  # ... small ones pass on the same path
    assert small.facts["reached"] and crosses(small, up)
    assert small.facts["good_paths"] == path.ecmp
    assert alarms(b) == [] and port_history(b, up.dev, up.peer) == {}  # no alarm, link up
    assert changes(b, up.dev, up.peer) == []


@pytest.mark.parametrize("end", ["src", "dst"])
def test_mtu_mismatch_on_a_host_port(lab: Lab, path: Route, end: str) -> None:
    port = path.src_port if end == "src" else path.dst_port
    lab.inject({"kind": "mtu_mismatch", "target": {"interface": port}, "params": {"mtu": 1500}})
    assert interface(lab.b, port)["mtu"] == 1500
    big = lab.trace(size=9000)
    assert not big.facts["reached"] and big.rows[-1]["status"] == "!F-1500"
    assert big.facts["good_paths"] == 0  # every path ends on that one host link
    assert lab.trace(size=1400).facts["reached"]


def test_dci_link_down_reroutes(lab: Lab, path: Route) -> None:
    dci = path.first("dci")
    lab.inject({"kind": "dci_link_down", "target": {"link": dci.near}})
    b = lab.b
    circuit = neighbor(b, dci.near)["circuit_id"]
    assert circuit and neighbor(b, dci.near)["status"] == "down"
    open_ = alarms(b, state="open", category="dci")
    assert kinds(open_) == {("LINK_DOWN", dci.dev, dci.ifname), ("LINK_DOWN", dci.peer, dci.peer_if)}
    assert all(circuit in r["message"] and r["severity"] == "critical" for r in open_)
    # a DCI circuit, not a fabric link; "link alarms" count it too, as an on-call means them
    link = alarms(b, category="link")
    assert {r["category"] for r in link} == {"dci"} and kinds(link) == kinds(open_)
    assert {r["state_at_end"] for r in port_history(b, dci.dev, dci.peer).values()} == {"down"}
    assert changes(b, dci.dev, dci.peer) == []
    ev = lab.trace()  # the other circuits carry inter-DC traffic
    assert ev.facts["reached"] and not crosses(ev, dci) and ev.facts["ecmp_paths"] < path.ecmp


def test_dci_link_down_on_every_circuit_cuts_the_sites_apart(lab: Lab, path: Route) -> None:
    routers = [r["name"] for r in call(lab.b, "metadata", query="devices", role="dci",
                                       site=path.src_tor.split("-")[0]).rows]
    circuits = [f"{d}:{n['interface']}" for d in routers
                for n in call(lab.b, "metadata", query="neighbors", name=d).rows if n["kind"] == "dci"]
    assert len(circuits) > 1
    lab.inject(*({"kind": "dci_link_down", "target": {"link": c}} for c in circuits))
    ev = lab.trace()
    assert not ev.facts["reached"] and ev.rows[-1]["status"] == "!N"
    assert ev.facts["ecmp_paths"] == ev.facts["good_paths"] == 0
    assert len(alarms(lab.b, state="open", category="dci")) == 2 * len(circuits)
    assert lab.trace(dst=path.local_dst).facts["reached"]  # same DC still works


def test_device_down(lab: Lab, path: Route) -> None:
    spine = path.spine
    lab.inject({"kind": "device_down", "target": {"device": spine}})
    b = lab.b
    nbrs = call(b, "metadata", query="neighbors", name=spine).rows
    info = device(b, spine)
    assert info["status"] == "down" and info["links_down"] == len(nbrs) > 1
    assert {n["status"] for n in nbrs} == {"down"}
    hist = port_history(b, spine)
    assert len(hist) == len(nbrs) and {r["state_at_end"] for r in hist.values()} == {"down"}
    open_ = alarms(b, state="open")
    dev = [r for r in open_ if r["category"] == "device"]
    assert [(r["kind"], r["device"]) for r in dev] == [("DEVICE_UNREACHABLE", spine)]
    link_down = {(r["device"], r["interface"]) for r in open_ if r["kind"] == "LINK_DOWN"}
    # a dead device reports nothing: only its neighbours raise link (and BGP) alarms
    assert {(n["neighbor"], n["neighbor_interface"]) for n in nbrs} == link_down
    assert not [r for r in open_ if r["device"] == spine and r["category"] != "device"]
    assert changes(b, spine) == []
    ev = lab.trace()
    assert ev.facts["reached"] and spine not in ev.facts["path_devices"]
    assert ev.facts["good_paths"] == ev.facts["ecmp_paths"] < path.ecmp


def test_device_reboot(lab: Lab, path: Route, backends: Backends) -> None:
    spine = path.spine
    lab.inject({"kind": "device_reboot", "target": {"device": spine}})
    b = lab.b
    info = device(b, spine)
    booted = datetime.fromisoformat(info["booted_at"].replace("Z", "+00:00"))
    assert info["status"] == "up" and lab.clock - AT < booted < lab.clock  # uptime reset
    assert device(backends, spine)["booted_at"] < info["booted_at"]
    assert alarms(b, state="open") == []  # everything cleared ...
    closed = alarms(b, state="closed")  # ... after a burst of link alarms
    assert ("DEVICE_REBOOT", spine, None) in kinds(closed)
    nbrs = call(b, "metadata", query="neighbors", name=spine).rows
    # reloading, the spine itself reports nothing; each neighbour reports its end
    link_down = [r for r in closed if r["kind"] == "LINK_DOWN"]
    assert {(r["device"], r["interface"]) for r in link_down} == {
        (n["neighbor"], n["neighbor_interface"]) for n in nbrs}
    hist = port_history(b, spine)
    assert len(hist) == len(nbrs)
    assert all(r["transitions"] == 2 and r["state_at_end"] == "up" for r in hist.values())
    assert {n["status"] for n in nbrs} == {"up"}
    assert changes(b, spine) == []
    now = lab.trace()  # healthy again now ...
    assert now.facts["reached"] and now.facts["path_devices"] == path.devices
    during = lab.trace(at=lab.at(-AT + timedelta(minutes=1)))  # ... avoided while it reloaded
    assert during.facts["reached"] and spine not in during.facts["path_devices"]


def test_host_down(lab: Lab, path: Route) -> None:
    lab.inject({"kind": "host_down", "target": {"device": path.dst_host}})
    b = lab.b
    assert device(b, path.dst_host)["status"] == "unreachable"
    ev = lab.trace()  # the path reaches the ToR; the host does not answer
    assert not ev.facts["reached"] and ev.facts["stopped_at"] == path.dst_tor
    assert ev.facts["path_devices"] == path.devices[:-1]
    assert [r["status"] for r in ev.rows[-3:]] == ["*", "*", "*"]
    assert ev.facts["good_paths"] == 0
    # the host's link stays up: no alarm, no port change, neighbours up
    assert neighbor(b, path.dst_port)["status"] == "up"
    assert_quiet(b, path.dst_tor, path.dst_host)


def test_acl_block_with_its_change(lab: Lab, path: Route) -> None:
    tor = path.src_tor
    lab.inject({"kind": "acl_block", "target": {"device": tor}, "params": {"dst": path.dst_segment}},
               {"kind": "change", "at": "-27m", "target": {"device": tor},
                "params": {"summary": "Apply new ACL set", "ticket": "CHG-1042"}})
    b = lab.b
    ev = lab.trace()
    assert not ev.facts["reached"] and ev.facts["stopped_at"] == tor
    assert ev.rows[-1]["status"] == "!X" and ev.facts["good_paths"] == 0
    assert lab.trace(dst=path.other_dst).facts["reached"]  # only the denied prefix
    assert alarms(b) == []  # no link fault, no alarm of any kind
    assert port_history(b, tor) == {} and device(b, tor)["links_down"] == 0
    assert [(c["ticket"], c["summary"]) for c in changes(b, tor)] == [("CHG-1042", "Apply new ACL set")]


def test_blackhole_defaults_to_the_question_destination(lab: Lab, path: Route) -> None:
    spine = path.spine  # one spine of several: only the paths through it are lost
    lab.inject({"kind": "blackhole", "target": {"device": spine}})
    ev = lab.trace()
    assert not ev.facts["reached"] and ev.facts["stopped_at"] == spine
    assert [r["status"] for r in ev.rows[-3:]] == ["*", "*", "*"]
    assert 0 < ev.facts["good_paths"] < ev.facts["ecmp_paths"] == path.ecmp
    assert lab.trace(dst=path.other_dst).facts["reached"]  # another segment is unaffected
    assert_quiet(lab.b, spine)
    assert {n["status"] for n in call(lab.b, "metadata", query="neighbors", name=spine).rows} == {"up"}


def test_bgp_down_on_one_link(lab: Lab, path: Route) -> None:
    up = path.uplink
    lab.inject({"kind": "bgp_down", "target": {"link": up.near}})
    b = lab.b
    open_ = alarms(b, state="open")
    assert kinds(open_) == {("BGP_DOWN", up.dev, None), ("BGP_DOWN", up.peer, None)}
    assert {r["category"] for r in open_} == {"bgp"}
    # the session is down, the link is not
    assert neighbor(b, up.near)["status"] == "up" and interface(b, up.near)["oper_status"] == "up"
    assert port_history(b, up.dev, up.peer) == {} and changes(b, up.dev, up.peer) == []
    ev = lab.trace()
    assert ev.facts["reached"] and not crosses(ev, up) and ev.facts["ecmp_paths"] < path.ecmp


def test_bgp_down_on_a_device_withdraws_the_route(lab: Lab, path: Route) -> None:
    tor = path.src_tor
    lab.inject({"kind": "bgp_down", "target": {"device": tor}})
    uplinks = call(lab.b, "metadata", query="upstream", name=tor).rows
    open_ = alarms(lab.b, state="open", devices=[tor])
    assert [r["kind"] for r in open_] == ["BGP_DOWN"] * len(uplinks)
    ev = lab.trace()
    assert not ev.facts["reached"] and ev.facts["stopped_at"] == tor
    assert ev.rows[-1]["status"] == "!N" and ev.facts["ecmp_paths"] == 0
    assert port_history(lab.b, tor) == {}


def test_change_only_adds_a_record(lab: Lab, path: Route) -> None:
    tor = path.src_tor
    lab.inject({"kind": "change", "at": "-27m", "target": {"device": tor},
                "params": {"summary": "Raise BGP maximum-paths", "ticket": "CHG-2001",
                           "author": "jdoe"}})
    (c,) = call(lab.b, "changelog", ticket="CHG-2001").rows
    assert (c["device"], c["summary"], c["author"]) == (tor, "Raise BGP maximum-paths", "jdoe")
    assert c["start"] == lab.at(-timedelta(minutes=27))
    ev = lab.trace()  # a change alone breaks nothing
    assert ev.facts["reached"] and ev.facts["path_devices"] == path.devices
    assert ev.facts["good_paths"] == path.ecmp
    assert alarms(lab.b) == [] and port_history(lab.b, tor) == {}
