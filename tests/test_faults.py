"""Fault injection end to end (shared/specs/scenario.md): every fault kind leaves its symptoms in
every data source, read through the real tools over the lab backends; `lab reset` brings the
healthy lab back; bad scenarios fail with one line and change nothing; noise stays off the path.

Targets are not hard-coded: they come from the healthy trace SRC -> DST and the metadata tool,
looked up once on the shared read-only lab (same spec, scale and seed as `make_lab`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlmodel import Session

from netopsai import models as m
from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.errors import NetopsError
from netopsai.evidence import Evidence
from netopsai.lab.inject import Injected, inject
from netopsai.lab.manage import lab_info, reset_lab
from netopsai.lab.scenario import Scenario, load_scenario
from netopsai.store import get_meta
from netopsai.tools.registry import run_tool

SRC, DST = "10.1.3.20", "10.2.1.40"
QUESTION = f"{SRC} to {DST} not communicating"
AT = timedelta(minutes=25)  # every fault starts 25 minutes before the lab clock


# -- helpers -------------------------------------------------------------------------------------
def call(b: Backends, tool: str, **args: Any) -> Evidence:
    """One real tool call; a tool error is a test failure, not an empty answer."""
    ev = run_tool(tool, args, b)
    assert not ev.errors, ev.errors
    return ev


@dataclass(frozen=True)
class PathLink:
    """A link the healthy trace crosses: `dev:ifname` sends, `peer:peer_if` receives."""

    dev: str
    ifname: str
    peer: str
    peer_if: str
    kind: str

    @property
    def near(self) -> str:
        return f"{self.dev}:{self.ifname}"

    @property
    def far(self) -> str:
        return f"{self.peer}:{self.peer_if}"


@dataclass(frozen=True)
class Route:
    """The healthy SRC -> DST trace and the names the tests target."""

    devices: list[str]
    links: list[PathLink]
    ecmp: int
    rtt: float
    src_tor: str
    dst_tor: str
    dst_host: str
    dst_port: str  # the dst host's port on its ToR
    src_port: str
    dst_segment: str
    other_dst: str  # a host in another segment of DST's site
    local_dst: str  # a host in another segment of SRC's site

    def first(self, kind: str) -> PathLink:
        return next(h for h in self.links if h.kind == kind)

    @property
    def uplink(self) -> PathLink:  # src ToR -> spine
        return self.first("fabric")

    @property
    def spine(self) -> str:
        return self.uplink.peer


@dataclass
class Lab:
    engine: Engine
    b: Backends
    clock: datetime

    def inject(self, *faults: dict[str, Any], noise: dict[str, int] | None = None,
               sid: str = "t") -> Injected:
        return inject(self.engine, scenario(self.clock, *faults, noise=noise, sid=sid))

    def trace(self, dst: str = DST, **kw: Any) -> Evidence:
        return call(self.b, "traceroute", src=SRC, dst=dst, **kw)

    def at(self, delta: timedelta) -> str:
        """An ISO time relative to the lab clock, for traceroute's `at`."""
        return (self.clock + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def scenario(now: datetime, *faults: dict[str, Any], noise: dict[str, int] | None = None,
             sid: str = "t") -> Scenario:
    """`now` equals the lab's init clock, so inject resets the lab rather than re-initialising."""
    return Scenario.model_validate({"id": sid, "now": now, "question": QUESTION,
                                    "faults": [{"at": "-25m", **f} for f in faults],
                                    "noise": noise or {}})


def neighbor(b: Backends, end: str) -> dict[str, Any]:
    dev, ifname = end.split(":")
    return next(r for r in call(b, "metadata", query="neighbors", name=dev).rows
                if r["interface"] == ifname)


def interface(b: Backends, end: str) -> dict[str, Any]:
    dev, ifname = end.split(":")
    return next(r for r in call(b, "metadata", query="interfaces", name=dev).rows
                if r["name"] == ifname)


def device(b: Backends, name: str) -> dict[str, Any]:
    return call(b, "metadata", query="device", name=name).rows[0]


def port_history(b: Backends, *devices: str, metric: str = "oper_status",
                 window: str = "1h") -> dict[str, dict[str, Any]]:
    """'dev:ifname' -> oper-status row, for ports that were not simply up all along."""
    ev = call(b, "telemetry", metric=metric, devices=list(devices), top=1000, window=window)
    return {f"{r['device']}:{r['interface']}": r for r in ev.rows}


def counter(b: Backends, metric: str, end: str) -> dict[str, Any]:
    dev, ifname = end.split(":")
    return call(b, "telemetry", metric=metric, devices=[dev], interface=ifname).rows[0]


def worst(b: Backends, metric: str) -> str:
    """The worst port of the whole lab for a counter metric."""
    r = call(b, "telemetry", metric=metric, top=1).rows[0]
    return f"{r['device']}:{r['interface']}"


def alarms(b: Backends, **args: Any) -> list[dict[str, Any]]:
    return call(b, "alarms", **args).rows


def kinds(rows: list[dict[str, Any]]) -> set[tuple[str, str, str | None]]:
    return {(r["kind"], r["device"], r["interface"]) for r in rows}


def changes(b: Backends, *devices: str, window: str = "1h") -> list[dict[str, Any]]:
    return call(b, "changelog", devices=list(devices), window=window).rows


def crosses(ev: Evidence, hop: PathLink) -> bool:
    """Whether a trace sends over the link `hop` (the near end's out_interface)."""
    return any(r["device"] == hop.dev and r["out_interface"] == hop.ifname for r in ev.rows)


def hop_of(ev: Evidence, dev: str) -> dict[str, Any]:
    return next(r for r in ev.rows if r["device"] == dev)


def assert_quiet(b: Backends, *devices: str) -> None:
    """No alarm, no port change and no change record on these devices in the last hour."""
    assert alarms(b, devices=list(devices)) == []
    assert port_history(b, *devices) == {}
    assert changes(b, *devices) == []


def host_elsewhere(b: Backends, owner: dict[str, Any]) -> str:
    """A host in the same site as an address (a metadata `ip` row) but another segment."""
    return next(h["ip"] for h in call(b, "metadata", query="hosts", site=owner["site"]).rows
                if h["segment"] != owner["segment"])


def fingerprint(engine: Engine) -> dict[str, Any]:
    """What an inject would touch: the state version and the row counts of its tables."""
    with Session(engine) as s:
        fp: dict[str, Any] = {"version": get_meta(s, "version"), "clock": get_meta(s, "clock")}
        for t in (m.Alarm, m.Change, m.InterfaceEvent, m.CounterSample, m.LabFault, m.AclEntry,
                  m.StaticRoute):
            fp[t.__name__] = s.execute(select(func.count()).select_from(t)).scalar_one()
        fp["down"] = s.execute(select(func.count()).select_from(m.Link).where(
            m.Link.status != "up")).scalar_one()
    return fp


# -- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def path(backends: Backends) -> Route:
    """Read the healthy trace and name its links through metadata (the shared healthy lab)."""
    ev = call(backends, "traceroute", src=SRC, dst=DST)
    assert ev.facts["reached"] and ev.facts["good_paths"] == ev.facts["ecmp_paths"] > 1
    rows = ev.rows
    links = []
    for a, z in zip(rows, rows[1:], strict=False):
        if a["out_interface"]:
            nbr = neighbor(backends, f"{a['device']}:{a['out_interface']}")
            assert (nbr["neighbor"], nbr["neighbor_interface"]) == (z["device"], z["interface"])
            links.append(PathLink(a["device"], a["out_interface"], z["device"], z["interface"],
                                  nbr["kind"]))
    dst = call(backends, "metadata", query="ip", ip=DST).rows[0]
    src = call(backends, "metadata", query="ip", ip=SRC).rows[0]
    return Route(devices=ev.facts["path_devices"], links=links, ecmp=ev.facts["ecmp_paths"],
                 rtt=rows[-1]["rtt_ms"], src_tor=src["tor"], dst_tor=dst["tor"],
                 dst_host=dst["device"], dst_port=f"{dst['tor']}:{dst['tor_interface']}",
                 src_port=f"{src['tor']}:{src['tor_interface']}", dst_segment=dst["segment"],
                 other_dst=host_elsewhere(backends, dst),
                 local_dst=host_elsewhere(backends, src))


@pytest.fixture
def lab(make_lab: Any) -> Lab:
    engine = make_lab()
    return Lab(engine, lab_backends(engine), lab_info(engine).clock)


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
    assert alarms(b, category="link") == []  # a DCI circuit, not a fabric link
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


# -- re-init and reset ---------------------------------------------------------------------------
def test_inject_at_the_init_clock_does_not_reinit_but_another_clock_does(lab: Lab) -> None:
    assert lab.inject().reinit is False
    later = lab.clock + timedelta(hours=1)
    done = inject(lab.engine, scenario(later))
    assert done.reinit is True and lab_info(lab.engine).clock == later


@pytest.mark.parametrize("kind", ["device_down", "acl_block", "mtu_mismatch"])
def test_reset_restores_the_healthy_lab(lab: Lab, path: Route, backends: Backends, kind: str) -> None:
    fault = {"device_down": {"kind": kind, "target": {"device": path.spine}},
             "acl_block": {"kind": kind, "target": {"device": path.src_tor}},
             "mtu_mismatch": {"kind": kind, "target": {"interface": path.uplink.near}}}[kind]
    lab.inject(fault, noise={"alarms": 5, "changes": 3, "flaps": 1})
    assert not lab.trace(size=9000).facts["reached"] or alarms(lab.b, state="open")
    injected = lab_info(lab.engine).version
    reset_lab(lab.engine)
    assert lab_info(lab.engine).version != injected  # caches keyed by version are dropped
    ev = lab.trace(size=9000)
    assert ev.facts["reached"] and ev.facts["path_devices"] == path.devices
    assert ev.facts["good_paths"] == path.ecmp
    assert alarms(lab.b, state="open") == []
    for tool, args in (("alarms", {"window": "7d"}), ("changelog", {"window": "7d"}),
                       ("metadata", {"query": "devices"})):
        assert call(lab.b, tool, **args).rows == call(backends, tool, **args).rows
    assert interface(lab.b, path.uplink.near) == interface(backends, path.uplink.near)
    assert device(lab.b, path.spine) == device(backends, path.spine)


# -- bad input -----------------------------------------------------------------------------------
BAD_FAULTS = [  # (fault, words the one-line message must contain)
    ({"kind": "device_down", "target": {"device": "dc1-leaf-3"}},
     ["unknown device", "'dc1-leaf-3'", "dc1-leaf-03"]),
    ({"kind": "link_down", "target": {"link": "dc1-leaf-03:Ethernt52"}},
     ["unknown interface", "'Ethernt52'", "Ethernet52"]),
    ({"kind": "link_dwn", "target": {"link": "dc1-leaf-03:Ethernet52"}},
     ["unknown fault kind", "'link_dwn'", "link_down"]),
    ({"kind": "link_down", "target": {"device": "dc1-leaf-03"}}, ["link_down", "link or interface"]),
    ({"kind": "crc_errors", "target": {"interface": "dc1-leaf-03:Vlan103"}}, ["crc_errors", "link"]),
    ({"kind": "dci_link_down", "target": {"link": "dc1-leaf-03:Ethernet52"}}, ["DCI", "fabric"]),
    ({"kind": "host_down", "target": {"device": "dc1-leaf-03"}}, ["host", "dc1-leaf-03", "leaf"]),
    ({"kind": "acl_block", "target": {"device": "dc1-leaf-03"}, "params": {"dst": "10.2.1.0/33"}},
     ["bad prefix", "10.2.1.0/33"]),
    ({"kind": "link_down", "at": "-25x", "target": {"link": "dc1-leaf-03:Ethernet52"}}, ["25x"]),
    ({"kind": "link_flap", "target": {"link": "dc1-leaf-03:Ethernet52"}, "params": {"count": "lots"}},
     ["count", "lots"]),
]


@pytest.mark.parametrize(("fault", "words"), BAD_FAULTS, ids=[f["kind"] + str(i)
                                                               for i, (f, _) in enumerate(BAD_FAULTS)])
def test_bad_fault_fails_with_one_line_and_changes_nothing(lab: Lab, path: Route, fault: dict[str, Any],
                                                          words: list[str]) -> None:
    # a fault is already in: a bad inject must neither reset it away nor add anything
    lab.inject({"kind": "link_down", "target": {"link": path.first("dci").near}})
    before = fingerprint(lab.engine)
    with pytest.raises(NetopsError) as err:
        lab.inject({"kind": "change", "target": {"device": path.src_tor}}, fault)
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    assert fingerprint(lab.engine) == before
    assert len(alarms(lab.b, state="open", category="dci")) == 2


def test_bad_target_on_a_scenario_that_needs_a_new_lab_changes_nothing(lab: Lab) -> None:
    # another clock means a re-init; the bad target must be found before that happens
    before = fingerprint(lab.engine)
    bad = scenario(lab.clock + timedelta(hours=3), {"kind": "device_down",
                                                   "target": {"device": "dc1-leaf-3"}})
    with pytest.raises(NetopsError, match="unknown device 'dc1-leaf-3'"):
        inject(lab.engine, bad)
    assert fingerprint(lab.engine) == before
    assert lab_info(lab.engine).clock == lab.clock


BAD_FILES = [  # (YAML text, words the message must contain)
    ("id: x\nfaults: [{kind: link_down, target: {link: dc1-leaf-03:Ethernet52}\n",
     ["malformed YAML", "line"]),
    ("- just\n- a list\n", ["YAML mapping"]),
    ("id: x\nfaults:\n  - {kind: link_dwon, target: {device: dc1-leaf-03}}\n",
     ["unknown fault kind", "link_down"]),
    ("id: x\nfaults:\n  - {kind: link_down, targt: {device: dc1-leaf-03}}\n", ["faults.0.targt"]),
    ("id: Bad_Id\n", ["id"]),
    ("id: x\nexpect: {root_cause: link.dwn}\n", ["root-cause label", "link.down"]),
]


@pytest.mark.parametrize(("text", "words"), BAD_FILES, ids=range(len(BAD_FILES)))
def test_bad_scenario_file(lab: Lab, tmp_path: Path, text: str, words: list[str]) -> None:
    before = fingerprint(lab.engine)
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(NetopsError) as err:
        load_scenario(f)
    msg = str(err.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    assert fingerprint(lab.engine) == before


def test_good_scenario_file_loads_and_injects(lab: Lab, tmp_path: Path) -> None:
    f = tmp_path / "ok.yaml"
    f.write_text(f"id: leaf-acl-01\nnow: '{lab.at(timedelta())}'\nquestion: {QUESTION}\n"
                 "faults:\n  - {kind: acl_block, at: -25m, target: {device: dc1-leaf-03}}\n"
                 "expect: {root_cause: config.acl_block, device: dc1-leaf-03}\n")
    done = inject(lab.engine, load_scenario(f))
    assert done.faults == ["acl_block"] and not done.reinit
    assert lab.trace().rows[-1]["status"] == "!X"


def test_missing_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(NetopsError, match="not found"):
        load_scenario(tmp_path / "nope.yaml")


# -- noise ---------------------------------------------------------------------------------------
NOISE = {"alarms": 30, "changes": 10, "flaps": 2}
WINDOW = "7h"  # noise lies in the 6 hours before the clock


def _events(lab: Lab) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]], dict[str, int]]:
    b = lab.b
    al = {(r["kind"], r["device"], r["interface"], r["raised_at"], r["state"])
          for r in alarms(b, window=WINDOW)}
    ch = {(r["ticket"], r["device"], r["status"]) for r in call(b, "changelog", window=WINDOW).rows}
    fl = {k: r["flaps"] for k, r in port_history(b, metric="flaps", window=WINDOW).items()}
    return al, ch, fl


@pytest.mark.parametrize("fault", ["acl_block", "link_down"])
def test_noise_stays_off_the_path_and_the_target(lab: Lab, path: Route, fault: str) -> None:
    target = ({"kind": "acl_block", "target": {"device": path.src_tor}} if fault == "acl_block"
              else {"kind": "link_down", "target": {"link": path.uplink.near}})
    lab.inject(target, sid=f"noise-{fault.replace('_', '-')}")
    quiet = _events(lab)
    lab.inject(target, noise=NOISE, sid=f"noise-{fault.replace('_', '-')}")
    noisy = _events(lab)
    new_alarms, new_changes = noisy[0] - quiet[0], noisy[1] - quiet[1]
    new_flaps = {k: n - quiet[2].get(k, 0) for k, n in noisy[2].items() if n != quiet[2].get(k, 0)}
    # as many as asked: every flap shows on both ends and raises a (cleared) alarm on each
    assert len(new_alarms) == NOISE["alarms"] + 2 * NOISE["flaps"]
    assert {a[4] for a in new_alarms} == {"closed"}
    assert len(new_changes) == NOISE["changes"] and {c[2] for c in new_changes} == {"completed"}
    assert len(new_flaps) == 2 * NOISE["flaps"]
    # none of it on the fault's devices or on the path the question's trace takes now
    off = set(path.devices) | set(lab.trace().facts["path_devices"]) | {path.src_tor}
    if fault == "link_down":
        off.add(path.uplink.peer)
    noisy_devices = ({a[1] for a in new_alarms} | {c[1] for c in new_changes}
                     | {k.split(":")[0] for k in new_flaps})
    assert noisy_devices and not noisy_devices & off, noisy_devices & off
