"""The lab's topology graph and its state at a point in time, loaded from the store and cached
per state version (every inject/reset makes a new version)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from ipaddress import IPv4Address, IPv4Network, ip_address
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Engine, and_, func, or_, select

from netopsai.common.roles import TIERS
from netopsai.common.timewin import as_utc
from netopsai.store import tables as m


class Node(NamedTuple):
    name: str
    role: str
    tier: int
    site: str
    pod: str | None
    asn: int | None = None


class Edge(NamedTuple):
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
    host_if: dict[str, str] = field(default_factory=dict)  # ip -> host's interface, if not eth0
    gateway: dict[str, str] = field(default_factory=dict)  # tor -> its first gateway IP
    segments: dict[str, str] = field(default_factory=dict)  # cidr -> tor
    # (device, interface) -> its link's id: filled by the first load_state of this graph
    iface_link: dict[tuple[str, str], int] = field(default_factory=dict)

    def edges(self, dev: str) -> list[Edge]:
        return self.up.get(dev, []) + self.down.get(dev, []) + self.lateral.get(dev, [])

    def segment_tor(self, ip: IPv4Address) -> tuple[IPv4Network, str] | None:
        for plen in range(32, 7, -1):
            net = IPv4Network(f"{ip}/{plen}", strict=False)
            if str(net) in self.segments:
                return net, self.segments[str(net)]
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


def _rows(engine: Engine, sql: str) -> list[Any]:
    """Raw driver rows: the ORM's per-row overhead is most of the cost at the large preset."""
    conn = engine.raw_connection()
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return list(cur.fetchall())
    finally:
        conn.close()


@lru_cache(maxsize=4)
def load_topo(engine: Engine, version: str) -> Topo:
    """The graph for one state version (the version is only the cache key)."""
    topo = Topo()
    for name, role, site, pod, loopback, asn in _rows(
            engine, "SELECT name, role, site, pod, loopback, asn FROM device"):
        topo.nodes[name] = Node(name, role, TIERS.get(role, 1), site, pod, asn)
        if loopback:
            topo.owner[loopback] = (name, "Loopback0")
    for dev, ifname, ip, mtu in _rows(engine, "SELECT device, name, ip, mtu FROM interface"):
        topo.iface_mtu[(dev, ifname)] = mtu
        if ip:
            addr = ip.split("/")[0]
            topo.iface_ip[(dev, ifname)] = addr
            topo.owner[addr] = (dev, ifname)
            if ifname.startswith("Vlan"):
                topo.gateway.setdefault(dev, addr)
    host_link: dict[tuple[str, str], int] = {}  # a GPU host has a link per NIC
    for row in _rows(engine, "SELECT id, a_device, a_interface, b_device, b_interface, kind FROM link"):
        _add_link(topo, *row)
        if row[5] == "host":
            host_link[(row[1], row[2])] = row[0]
    for ip, host, ifname, tor in _rows(engine, "SELECT ip, device, interface, tor FROM hostaddress"):
        topo.hosts[ip] = (host, tor, host_link.get((host, ifname), 0))
        if ifname != "eth0":
            topo.host_if[ip] = ifname
    for cidr, tor in _rows(engine, "SELECT cidr, tor FROM segment"):
        if tor:
            topo.segments[cidr] = tor
    return topo


# Topologies a forked batch worker got from its driver, by state version (lab/forwarding.py
# hand_over): the worker's own Engine for the same store is not load_topo's cache key.
HANDED_TOPO: dict[str, Topo] = {}


def topo_for(engine: Engine, version: str) -> Topo:
    """The graph for one state version: the one handed over for it, else load_topo's."""
    return HANDED_TOPO.get(version) or load_topo(engine, version)


def _add_link(topo: Topo, lid: int, a: str, a_if: str, b: str, b_if: str, kind: str) -> None:
    ta, tb = topo.nodes[a].tier, topo.nodes[b].tier
    for x, x_if, y, y_if, tx, ty in ((a, a_if, b, b_if, ta, tb), (b, b_if, a, a_if, tb, ta)):
        edge = Edge(lid, kind, x_if, y, y_if)
        bucket = topo.up if ty > tx else topo.down if ty < tx else topo.lateral
        bucket.setdefault(x, []).append(edge)


def _active(start: Any, end: Any, at: datetime) -> ColumnElement[bool]:
    """Rows in force at `at`: started (or undated) and not yet ended."""
    return and_(or_(start.is_(None), start <= at), or_(end.is_(None), end > at))


def _table(model: Any) -> Any:
    return model.__table__.c


@lru_cache(maxsize=32)
def load_state(engine: Engine, version: str, at: datetime) -> NetState:
    """What is broken at `at`. Core statements over the tables' columns, not ORM ones: the same
    SQL, typed by the same columns, without the ORM's per-statement compile (~8 ms of a cold
    diagnosis `ask`, which loads one state; RESULTS "cold-ask-21")."""
    at = as_utc(at)
    topo = topo_for(engine, version)
    st = NetState(at=at)
    if not topo.iface_link:  # the graph's, the same at every moment: built once
        topo.iface_link.update({(e_dev, e.local_if): e.link_id
                                for e_dev in topo.nodes for e in topo.edges(e_dev)})
    iface_link = topo.iface_link
    ev, bgp, acl, route, fault = (_table(t) for t in (m.InterfaceEvent, m.BgpSession, m.AclEntry,
                                                      m.StaticRoute, m.LabFault))
    with engine.connect() as c:
        # each port's latest event at `at` (ties: the later row), in SQL both databases speak
        rank = func.row_number().over(partition_by=(ev.device, ev.interface),
                                      order_by=(ev.at.desc(), ev.id.desc()))
        ranked = select(ev.device, ev.interface, ev.state, rank.label("rank")).where(
            ev.at <= at).subquery()
        last = select(ranked.c.device, ranked.c.interface, ranked.c.state).where(ranked.c.rank == 1)
        for dev, ifname, state in c.execute(last):
            if state == "down" and (dev, ifname) in iface_link:
                st.down_links.add(iface_link[(dev, ifname)])
        for (lid,) in c.execute(select(bgp.link_id).where(bgp.state != "established", bgp.since <= at)):
            st.bgp_down.add(lid)
        for dev, src, dst in c.execute(select(acl.device, acl.src, acl.dst).where(
                acl.action == "deny", _active(acl.created_at, acl.removed_at, at))):
            st.acl_deny.setdefault(dev, []).append((IPv4Network(src), IPv4Network(dst)))
        for dev, prefix in c.execute(select(route.device, route.prefix).where(
                route.next_hop == "Null0", _active(route.created_at, route.removed_at, at))):
            st.blackholes.setdefault(dev, []).append(IPv4Network(prefix))
        for row in c.execute(select(*fault).where(_active(fault.start, fault.end, at))):
            _apply_fault(st, row.kind, row.device, row.link_id, row.params)
    return st


def _apply_fault(st: NetState, kind: str, device: str | None, lid: int | None,
                 params: dict[str, Any] | None) -> None:
    p = params or {}
    if kind in ("host_down", "gpu_host_down") and device:
        st.hosts_down.add(device)
    elif lid is None:
        return
    elif kind == "mtu_mismatch":
        st.link_mtu[lid] = int(p.get("mtu", 1500))
    elif kind in ("crc_errors", "optic_degraded", "link_flap", "congestion", "nic_flap",
                  "pfc_storm", "ecmp_collision"):
        st.link_loss[lid] = max(st.link_loss.get(lid, 0.0), float(p.get("loss_pct", 0.0)))
        st.link_delay[lid] = st.link_delay.get(lid, 0.0) + float(p.get("delay_ms", 0.0))


def owner_of(topo: Topo, ip: str) -> tuple[str, str] | None:
    """(device, interface) that holds an address: a host, an interface IP or a loopback."""
    if ip in topo.hosts:
        return topo.hosts[ip][0], topo.host_if.get(ip, "eth0")
    return topo.owner.get(ip)


@lru_cache(maxsize=65536)  # a batch parses each of its few thousand addresses on every trace
def parse_ip(text: str) -> IPv4Address:
    addr = ip_address(text.strip())
    if not isinstance(addr, IPv4Address):
        raise ValueError("only IPv4 is modelled")
    return addr
