"""The lab's forwarding model: valley-free BGP routing over the Clos (RFC 7938 style) with
ECMP, honouring link/device state, BGP sessions, ACLs, blackhole routes, MTU and lossy links.

A device has a route to a destination when it can reach it going down the fabric, or when a
usable neighbour above it (or, for DCI routers, across a DCI circuit) has one. Routes are
memoised per destination, so after the first trace to a rack the next ones cost microseconds.
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from ipaddress import IPv4Address
from typing import Any

from sqlalchemy import Engine

from netopsai.lab import fabric
from netopsai.lab.fabric import Edge, NetState, Topo, load_state, topo_for

LATENCY_MS = {"host": 0.02, "fabric": 0.05, "backbone": 0.4, "dci": 6.5}
MAX_HOPS = 30


@dataclass
class Hop:
    hop: int
    ip: str | None
    device: str | None
    interface: str | None
    out_interface: str | None = None
    rtt_ms: float | None = None
    loss_pct: float = 0.0
    status: str = "ok"  # ok | * | !N | !H | !X | !F-<mtu> | reached

    def row(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Trace:
    src: str
    dst: str
    hops: list[Hop] = field(default_factory=list)
    reached: bool = False
    stopped_at: str | None = None
    reason: str = ""
    ecmp_paths: int = 0
    good_paths: int = 0
    path_devices: list[str] = field(default_factory=list)
    ecmp_devices: list[str] = field(default_factory=list)  # on any equal-cost path of the flow
    failure: tuple[str, str | None, str] | None = None  # where failing ECMP members fail


class Router:
    """Routes for one topology and state; memoised per destination device."""

    def __init__(self, topo: Topo, state: NetState, version: str = "") -> None:
        self.topo, self.state, self.state_version = topo, state, version
        self._down: dict[str, dict[str, bool]] = {}
        self._reach: dict[str, dict[str, bool]] = {}
        self._paths: dict[tuple[str, int, tuple[tuple[str, str], ...]], dict[str, tuple[int, int]]] = {}
        self._filters = sorted({*state.acl_deny, *state.blackholes})  # devices whose drops() may answer
        self._nh: dict[tuple[str, str], list[Edge]] = {}
        # the state is fixed for this Router: the links it cannot use, each device's usable
        # links by direction and each link's MTU are read once, not on every step of every trace
        self._unusable = state.down_links | state.bgp_down
        self._filtering = frozenset(self._filters)
        bad = self._unusable
        self._usable: tuple[dict[str, list[Edge]], ...] = tuple(  # down, lateral, up
            {dev: [e for e in edges if e.link_id not in bad] for dev, edges in bucket.items()}
            for bucket in (topo.down, topo.lateral, topo.up))
        self._link_mtu: dict[int, int] = {}
        # no link's MTU is below this: a probe no bigger never needs its path's MTUs
        self._mtu_floor = min([9214, *topo.iface_mtu.values(), *state.link_mtu.values()])
        # the memos hold in-progress markers while filling: one trace at a time per router
        self.lock = threading.RLock()

    def usable(self, edge: Edge) -> bool:
        return edge.link_id not in self._unusable

    def _ok(self, way: int, dev: str) -> list[Edge]:
        """dev's usable links down (0), lateral (1) or up (2), in the topology's order."""
        return self._usable[way].get(dev, [])

    def reach_down(self, dev: str, dst: str) -> bool:
        memo = self._down.get(dst)
        if memo is None:
            memo = self._down[dst] = {}
        got = memo.get(dev)
        if got is None:
            got = memo[dev] = self._reach_down(dev, dst)
        return got

    def _reach_down(self, dev: str, dst: str) -> bool:
        if dev == dst:
            return True
        n, d = self.topo.nodes[dev], self.topo.nodes[dst]
        if n.tier <= d.tier or n.site != d.site or (n.tier == 2 and d.tier < 2 and n.pod != d.pod):
            return False
        memo = self._down[dst]  # made by reach_down, the only caller
        for e in self._ok(0, dev):  # memo hits inline: a super-spine asks its every spine per rack
            got = memo.get(e.peer)
            if got or (got is None and self.reach_down(e.peer, dst)):
                return True
        return False

    def same_as(self, dev: str, dst: str) -> bool:
        """eBGP drops a route whose AS path holds its own AS: a device never learns a route
        to another device of its AS (the pod's spines, a site's super-spines)."""
        a, b = self.topo.nodes[dev].asn, self.topo.nodes[dst].asn
        return dev != dst and a is not None and a == b

    def reach(self, dev: str, dst: str) -> bool:
        memo = self._reach.setdefault(dst, {})
        if dev not in memo:
            memo[dev] = False  # guards against cycles while computing
            memo[dev] = not self.same_as(dev, dst) and (self.reach_down(dev, dst)
                         or any(self.reach_down(e.peer, dst) for e in self._ok(1, dev))
                         or any((r := memo.get(e.peer)) or (r is None and self.reach(e.peer, dst))
                                for e in self._ok(2, dev)))
        return memo[dev]

    def next_hops(self, dev: str, dst: str) -> list[Edge]:
        """Equal-cost next hops (one per usable link) from dev towards dst's device; memoised,
        as a router keeps its FIB: the state is fixed for this Router."""
        key = (dev, dst)
        hops = self._nh.get(key)
        if hops is None:
            hops = self._nh[key] = self._next_hops(dev, dst)
        return hops

    def _next_hops(self, dev: str, dst: str) -> list[Edge]:
        if dev == dst:
            return []
        # each peer's memoised answer read inline, the method called only for a new one
        if self.reach_down(dev, dst):
            down = self._down[dst]
            return [e for e in self._ok(0, dev)
                    if (r := down.get(e.peer)) or (r is None and self.reach_down(e.peer, dst))]
        down = self._down[dst]
        lateral = [e for e in self._ok(1, dev)
                   if (r := down.get(e.peer)) or (r is None and self.reach_down(e.peer, dst))]
        if lateral:
            return lateral
        far = self._reach.setdefault(dst, {})
        return [e for e in self._ok(2, dev)
                if (r := far.get(e.peer)) or (r is None and self.reach(e.peer, dst))]

    def drops(self, dev: str, src: IPv4Address, dst: IPv4Address) -> str | None:
        """'!X' for an ACL deny, '*' for a blackhole route, None when dev forwards."""
        if dev not in self._filtering:  # nearly every device: no ACL, no null route
            return None
        for s_net, d_net in self.state.acl_deny.get(dev, []):
            if src in s_net and dst in d_net:
                return "!X"
        if any(dst in net for net in self.state.blackholes.get(dev, [])):
            return "*"
        return None

    def mtu(self, dev: str, edge: Edge) -> int:
        """The link's MTU: the smaller of its two ends' (and a fault's override). The same from
        either end, so kept per link."""
        got = self._link_mtu.get(edge.link_id)
        if got is None:
            override = self.state.link_mtu.get(edge.link_id)
            mtus = [self.topo.iface_mtu.get((dev, edge.local_if), 9214),
                    self.topo.iface_mtu.get((edge.peer, edge.peer_if), 9214)]
            got = self._link_mtu[edge.link_id] = min([*mtus, override] if override else mtus)
        return got

    def paths_memo(self, dst: str, size: int, src: IPv4Address,
                   dip: IPv4Address) -> dict[str, tuple[int, int]]:
        """A memo for count_paths (and find_failure). The counts depend on the addresses only
        through which devices drop them and how (drops(): an ACL deny, a null route), so traces to
        the same device and probe size whose addresses are dropped at the same devices share it:
        without ACLs or blackholes, every such trace (a batch with one ACL in the lab used to
        count every trace's paths afresh, a third of its trace time)."""
        dropped = tuple((dev, why) for dev in self._filters if (why := self.drops(dev, src, dip)))
        return self._paths.setdefault((dst, size, dropped), {})

    def count_paths(self, dev: str, dst: str, src: IPv4Address, dip: IPv4Address, size: int,
                    memo: dict[str, tuple[int, int]]) -> tuple[int, int]:
        """(all ECMP paths, paths that deliver) from dev to dst's device."""
        if dev in memo:
            return memo[dev]
        memo[dev] = (0, 0)
        if dev == dst:
            result = (1, 0 if self.drops(dev, src, dip) else 1)
        else:
            total = good = 0
            dropped = self.drops(dev, src, dip) is not None
            sized = size > self._mtu_floor  # else every link takes the probe
            for e in self.next_hops(dev, dst):
                got = memo.get(e.peer)  # most often counted already: no call to pay for
                t, g = got if got is not None else self.count_paths(e.peer, dst, src, dip, size, memo)
                total += t
                good += 0 if dropped or (sized and self.mtu(dev, e) < size) else g
            result = (total, good)
        memo[dev] = result
        return result


    def find_failure(self, dev: str, dst: str, src: IPv4Address, dip: IPv4Address, size: int,
                     memo: dict[str, tuple[int, int]]) -> tuple[str, str | None, str] | None:
        """Where some equal-cost paths fail although the traced one may not: follow the
        branches that lose paths down to the device that drops them. Returns (device,
        interface or None, why) using count_paths' memo."""
        total, good = memo.get(dev, (0, 0))
        if good >= total:
            return None
        drop = self.drops(dev, src, dip)
        if drop:
            return dev, None, "ACL deny (!X)" if drop == "!X" else "dropped by a null route"
        for e in self.next_hops(dev, dst):
            if self.mtu(dev, e) < size:
                return dev, e.local_if, f"MTU {self.mtu(dev, e)} towards {e.peer} {e.peer_if}"
            found = self.find_failure(e.peer, dst, src, dip, size, memo)
            if found:
                return found
        return None

    def ecmp_devices(self, start: str, dst: str) -> list[str]:
        """Every device on some equal-cost path from start to dst: where a fault on another
        ECMP member than the traced one can hide."""
        seen, stack = {start}, [start]
        while stack:
            dev = stack.pop()
            for e in self.next_hops(dev, dst):
                if e.peer not in seen:
                    seen.add(e.peer)
                    stack.append(e.peer)
        return sorted(seen)


@lru_cache(maxsize=16)
def router_for(engine: Engine, version: str, at: datetime) -> Router:
    handed = _HANDED.get((version, at))
    if handed is not None:
        return handed
    topo = topo_for(engine, version)
    return Router(topo, load_state(engine, version, at), version)


# Routers a forked batch worker got from its driver (hand_over), by state version and moment.
# A worker opens the driver's store again under another Engine, which router_for's cache does
# not know; the version (a new uuid for every state of a lab) names the same state there.
_HANDED: dict[tuple[str, datetime], Router] = {}


def hand_over(router: Router) -> None:
    """Use `router` (loaded by the parent of this forked process from the same store) for its
    state version and moment, and its topology for other moments of that version: the batch's
    workers then start with the lab's routes loaded once, by the driver, before the fork."""
    version = router.state_version
    _HANDED[(version, router.state.at)] = router
    fabric.HANDED_TOPO[version] = router.topo


def flow_pick(edges: list[Edge], src: str, dst: str, dev: str) -> Edge:
    """A deterministic flow hash, as a switch hashes a 5-tuple onto its ECMP group."""
    return edges[zlib.crc32(f"{src}|{dst}|{dev}".encode()) % len(edges)]
