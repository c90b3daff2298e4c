"""The lab's topology graph and its state at a point in time, loaded from the store and cached
per state version (every inject/reset makes a new version)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from ipaddress import IPv4Address, IPv4Network, ip_address, ip_network

from sqlalchemy import Engine, and_, func, or_, select
from sqlmodel import Session

from netopsai import models as m
from netopsai.lab.topology import TIERS
from netopsai.timewin import as_utc


@dataclass(frozen=True)
class Node:
    name: str
    role: str
    tier: int
    site: str
    pod: str | None


@dataclass(frozen=True)
class Edge:
    link_id: int
    kind: str
    local_if: str
    peer: str
    peer_if: str


@dataclass
class Topo:
    nodes: dict[str, Node] = field(default_factory=dict)
    up: dict[str, list[Edge]] = field(default_factory=dict)
    down: dict[str, list[Edge]] = field(default_factory=dict)
    lateral: dict[str, list[Edge]] = field(default_factory=dict)
    iface_ip: dict[tuple[str, str], str] = field(default_factory=dict)
    iface_mtu: dict[tuple[str, str], int] = field(default_factory=dict)
    owner: dict[str, tuple[str, str]] = field(default_factory=dict)  # ip -> (device, interface)
    hosts: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # ip -> host, tor, link
    gateway: dict[str, str] = field(default_factory=dict)  # tor -> its first gateway IP
    segments: dict[IPv4Network, str] = field(default_factory=dict)  # cidr -> tor

    def edges(self, dev: str) -> list[Edge]:
        return self.up.get(dev, []) + self.down.get(dev, []) + self.lateral.get(dev, [])

    def segment_tor(self, ip: IPv4Address) -> tuple[IPv4Network, str] | None:
        for plen in range(32, 7, -1):
            net = ip_network(f"{ip}/{plen}", strict=False)
            if net in self.segments:
                return net, self.segments[net]
        return None


@dataclass
class NetState:
    """What is broken at time `at`: the forwarding model's input besides the topology."""

    at: datetime
    down_links: set[int] = field(default_factory=set)
    bgp_down: set[int] = field(default_factory=set)
    acl_deny: dict[str, list[tuple[IPv4Network, IPv4Network]]] = field(default_factory=dict)
    blackholes: dict[str, list[IPv4Network]] = field(default_factory=dict)
    hosts_down: set[str] = field(default_factory=set)
    link_mtu: dict[int, int] = field(default_factory=dict)
    link_loss: dict[int, float] = field(default_factory=dict)
    link_delay: dict[int, float] = field(default_factory=dict)


@lru_cache(maxsize=4)
def load_topo(engine: Engine, version: str) -> Topo:
    """The graph for one state version (the version is only the cache key)."""
    topo = Topo()
    with Session(engine) as s:
        for name, role, site, pod in s.execute(
                select(m.Device.name, m.Device.role, m.Device.site, m.Device.pod)):
            topo.nodes[name] = Node(name, role, TIERS.get(role, 1), site, pod)
        for dev, ifname, ip, mtu in s.execute(
                select(m.Interface.device, m.Interface.name, m.Interface.ip, m.Interface.mtu)):
            topo.iface_mtu[(dev, ifname)] = mtu
            if ip:
                addr = ip.split("/")[0]
                topo.iface_ip[(dev, ifname)] = addr
                topo.owner[addr] = (dev, ifname)
                if ifname.startswith("Vlan"):
                    topo.gateway.setdefault(dev, addr)
        for name, loopback in s.execute(select(m.Device.name, m.Device.loopback)):
            if loopback:
                topo.owner[loopback] = (name, "Loopback0")
        for row in s.execute(select(m.Link.id, m.Link.a_device, m.Link.a_interface,
                                    m.Link.b_device, m.Link.b_interface, m.Link.kind)):
            _add_link(topo, *row)
        for ip, host, tor, seg in s.execute(select(m.HostAddress.ip, m.HostAddress.device,
                                                   m.HostAddress.tor, m.HostAddress.segment)):
            topo.hosts[ip] = (host, tor, 0)
        for cidr, tor in s.execute(select(m.Segment.cidr, m.Segment.tor)):
            if tor:
                topo.segments[ip_network(cidr)] = tor
    for ip, (host, tor, _) in list(topo.hosts.items()):
        link = next((e.link_id for e in topo.edges(host) if e.peer == tor), 0)
        topo.hosts[ip] = (host, tor, link)
    return topo


def _add_link(topo: Topo, lid: int, a: str, a_if: str, b: str, b_if: str, kind: str) -> None:
    ta, tb = topo.nodes[a].tier, topo.nodes[b].tier
    for x, x_if, y, y_if, tx, ty in ((a, a_if, b, b_if, ta, tb), (b, b_if, a, a_if, tb, ta)):
        edge = Edge(lid, kind, x_if, y, y_if)
        bucket = topo.up if ty > tx else topo.down if ty < tx else topo.lateral
        bucket.setdefault(x, []).append(edge)


def _active(col_start, col_end, at: datetime):  # type: ignore[no-untyped-def]
    return and_(or_(col_start.is_(None), col_start <= at), or_(col_end.is_(None), col_end > at))


@lru_cache(maxsize=32)
def load_state(engine: Engine, version: str, at: datetime) -> NetState:
    at = as_utc(at)
    topo = load_topo(engine, version)
    st = NetState(at=at)
    iface_link = {(e_dev, e.local_if): e.link_id
                  for e_dev in topo.nodes for e in topo.edges(e_dev)}
    with Session(engine) as s:
        last = (select(m.InterfaceEvent.device, m.InterfaceEvent.interface,
                       m.InterfaceEvent.state, func.max(m.InterfaceEvent.at))
                .where(m.InterfaceEvent.at <= at)
                .group_by(m.InterfaceEvent.device, m.InterfaceEvent.interface))
        for dev, ifname, state, _t in s.execute(last):
            if state == "down" and (dev, ifname) in iface_link:
                st.down_links.add(iface_link[(dev, ifname)])
        for (lid,) in s.execute(select(m.BgpSession.link_id).where(
                m.BgpSession.state != "established", m.BgpSession.since <= at)):
            st.bgp_down.add(lid)
        for dev, src, dst in s.execute(
                select(m.AclEntry.device, m.AclEntry.src, m.AclEntry.dst).where(
                    m.AclEntry.action == "deny",
                    _active(m.AclEntry.created_at, m.AclEntry.removed_at, at))):
            st.acl_deny.setdefault(dev, []).append((ip_network(src), ip_network(dst)))
        for dev, prefix in s.execute(
                select(m.StaticRoute.device, m.StaticRoute.prefix).where(
                    m.StaticRoute.next_hop == "Null0",
                    _active(m.StaticRoute.created_at, m.StaticRoute.removed_at, at))):
            st.blackholes.setdefault(dev, []).append(ip_network(prefix))
        for fault in s.execute(select(m.LabFault).where(
                _active(m.LabFault.start, m.LabFault.end, at))).scalars():
            _apply_fault(st, fault)
    return st


def _apply_fault(st: NetState, fault: m.LabFault) -> None:
    p, lid = fault.params or {}, fault.link_id
    if fault.kind == "host_down" and fault.device:
        st.hosts_down.add(fault.device)
    elif lid is None:
        return
    elif fault.kind == "mtu_mismatch":
        st.link_mtu[lid] = int(p.get("mtu", 1500))
    elif fault.kind in ("crc_errors", "optic_degraded", "link_flap", "congestion"):
        st.link_loss[lid] = max(st.link_loss.get(lid, 0.0), float(p.get("loss_pct", 0.0)))
        st.link_delay[lid] = st.link_delay.get(lid, 0.0) + float(p.get("delay_ms", 0.0))


def owner_of(topo: Topo, ip: str) -> tuple[str, str] | None:
    """(device, interface) that holds an address: a host, an interface IP or a loopback."""
    if ip in topo.hosts:
        return topo.hosts[ip][0], "eth0"
    return topo.owner.get(ip)


def parse_ip(text: str) -> IPv4Address:
    addr = ip_address(text.strip())
    if not isinstance(addr, IPv4Address):
        raise ValueError("only IPv4 is modelled")
    return addr
