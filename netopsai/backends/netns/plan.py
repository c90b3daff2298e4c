"""The namespace lab's design: devices, veth links, addresses and static routes of a small
two-DC leaf-spine, plus the inventory rows that describe it. Pure data; netns.py builds it.

Addressing, all inside 198.18.0.0/15 (the benchmarking range): DC k's aggregate is
198.18.(16k).0/20, leaf l's host segment 198.18.(16k+l).0/24 (gateway .1, hosts .20, .60 ...),
point-to-point /31s come from 198.19.0.0/16. Routing is static and shaped like the fabric's
BGP: leaves send everything up to both spines (ECMP), spines send local segments down and the
rest to both borders (ECMP), borders reach the other DC over their DCI circuit (a backup via
the other border). A spine or leaf that loses the way down hits a `throw`/`unreachable` route
and answers !N/!H at once instead of bouncing the probe back up the fabric.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address
from typing import Any

from netopsai.common.errors import unknown

P2P_BASE = int(IPv4Address("198.19.0.0"))
LAB_NET = "198.18.0.0/15"


@dataclass(frozen=True)
class NsSpec:
    dcs: int = 2
    spines: int = 2
    leaves: int = 3
    hosts_per_leaf: int = 2
    addrs_per_host: int = 1  # extra addresses give benchmarks many targets with few namespaces
    borders: int = 2


SPECS = {"small": NsSpec(), "tiny": NsSpec(leaves=2, hosts_per_leaf=1),
         "bench": NsSpec(addrs_per_host=19)}


def get_spec(name: str) -> NsSpec:
    if name not in SPECS:
        raise unknown("netns lab spec", name, SPECS)
    return SPECS[name]


@dataclass
class NsLink:
    id: int
    a: str
    a_if: str
    b: str
    b_if: str
    kind: str  # host | fabric | backbone | dci
    a_ip: str | None = None  # address/prefixlen
    b_ip: str | None = None


@dataclass
class NsDevice:
    name: str
    role: str  # host | leaf | spine | border
    site: str
    pod: str | None
    addrs: list[tuple[str, str]] = field(default_factory=list)  # (interface, address/len)
    routes: list[str] = field(default_factory=list)  # `ip route add` arguments
    bridge: str | None = None  # leaves: the host segment's bridge (its gateway interface)


@dataclass
class Plan:
    spec: NsSpec
    devices: dict[str, NsDevice] = field(default_factory=dict)
    links: list[NsLink] = field(default_factory=list)
    segments: list[dict[str, Any]] = field(default_factory=list)
    hosts: list[dict[str, Any]] = field(default_factory=list)  # HostAddress rows

    def add(self, name: str, role: str, site: str, pod: str | None = None) -> NsDevice:
        dev = self.devices[name] = NsDevice(name, role, site, pod)
        return dev

    def port(self, dev: str) -> str:
        """The device's next free port name (Linux interface names: no '/', <= 15 chars)."""
        if self.devices[dev].role == "host":
            return "eth0"
        used = sum(1 for lk in self.links if dev in (lk.a, lk.b))
        return f"Ethernet{used + 1}"

    def link(self, a: str, b: str, kind: str) -> NsLink:
        lk = NsLink(len(self.links) + 1, a, self.port(a), b, self.port(b), kind)
        if kind != "host":
            base = P2P_BASE + 2 * sum(1 for x in self.links if x.kind != "host")
            lk.a_ip, lk.b_ip = f"{IPv4Address(base)}/31", f"{IPv4Address(base + 1)}/31"
            self.devices[a].addrs.append((lk.a_if, lk.a_ip))
            self.devices[b].addrs.append((lk.b_if, lk.b_ip))
        self.links.append(lk)
        return lk

    def peer_ip(self, lk: NsLink, me: str) -> str:
        return str((lk.b_ip if lk.a == me else lk.a_ip) or "").split("/")[0]


def _ecmp(prefix: str, via: list[str], metric: int | None = None) -> str:
    hops = " ".join(f"nexthop via {v}" for v in via)
    tail = f" metric {metric}" if metric else ""
    return f"{prefix}{tail} {hops}" if len(via) > 1 else f"{prefix}{tail} via {via[0]}"


def dc_net(k: int) -> str:
    return f"198.18.{16 * k}.0/20"


def build_plan(spec: NsSpec) -> Plan:
    plan = Plan(spec)
    borders = {k: _build_dc(plan, k) for k in range(1, spec.dcs + 1)}
    _build_dci(plan, borders)
    return plan


def _build_dc(plan: Plan, k: int) -> list[str]:
    sp, site = plan.spec, f"ns-dc{k}"
    pod = f"{site}-pod1"
    spines = [plan.add(f"{site}-spine-{i:02d}", "spine", site, pod).name
              for i in range(1, sp.spines + 1)]
    borders = [plan.add(f"{site}-border-{i:02d}", "border", site).name
               for i in range(1, sp.borders + 1)]
    for leaf_no in range(1, sp.leaves + 1):
        _build_leaf(plan, k, site, pod, leaf_no, spines)
    uplinks = {s: [plan.link(s, b, "fabric") for b in borders] for s in spines}
    for s in spines:  # spines: the DC's own aggregate ends here (no bounce), the rest goes up
        plan.devices[s].routes += [f"throw {dc_net(k)}",
                                   _ecmp("198.18.0.0/15", [plan.peer_ip(lk, s) for lk in uplinks[s]])]
    for b in borders:
        down = [plan.peer_ip(lk, b) for s in spines for lk in uplinks[s] if lk.b == b]
        plan.devices[b].routes.append(_ecmp(dc_net(k), down))
    for a, b in zip(borders, borders[1:], strict=False):
        plan.link(a, b, "backbone")
    return borders


def _build_leaf(plan: Plan, k: int, site: str, pod: str, n: int, spines: list[str]) -> None:
    sp = plan.spec
    leaf = plan.add(f"{site}-leaf-{n:02d}", "leaf", site, pod)
    net = f"198.18.{16 * k + n}"
    cidr = f"{net}.0/24"
    leaf.bridge = f"Vlan{100 + n}"
    leaf.addrs.append((leaf.bridge, f"{net}.1/24"))
    plan.segments.append({"cidr": cidr, "name": f"{pod}-rack{n:02d}", "vlan": 100 + n,
                          "vrf": "default", "gateway": f"{net}.1", "site": site, "pod": pod,
                          "tor": leaf.name})
    for h in range(sp.hosts_per_leaf):
        host = plan.add(f"{site}-host-{n:02d}-{h + 1}", "host", site, pod)
        lk = plan.link(leaf.name, host.name, "host")
        for i in range(sp.addrs_per_host):
            ip = f"{net}.{20 + 40 * h + i}"
            host.addrs.append(("eth0", f"{ip}/24"))
            plan.hosts.append({"ip": ip, "device": host.name, "interface": "eth0",
                               "segment": cidr, "tor": leaf.name, "tor_interface": lk.a_if,
                               "pod": pod, "site": site})
        host.routes.append(f"default via {net}.1")
    ups = [plan.link(leaf.name, s, "fabric") for s in spines]
    leaf.routes += [f"unreachable {cidr} metric 4000",  # the segment's last resort: !H, no bounce
                    _ecmp(LAB_NET, [plan.peer_ip(lk, leaf.name) for lk in ups])]
    for lk in ups:
        plan.devices[lk.b].routes.append(f"{cidr} via {plan.peer_ip(lk, lk.b)}")


def _build_dci(plan: Plan, borders: dict[int, list[str]]) -> None:
    """Border i of every DC pairs with border i of every other DC over one DCI circuit; the
    other border of its own DC is the backup way out."""
    for k, mine in borders.items():
        for j, theirs in borders.items():
            if j <= k:
                continue
            for a, b in zip(mine, theirs, strict=False):
                plan.link(a, b, "dci")
    lateral = {(lk.a, lk.b): lk for lk in plan.links if lk.kind == "backbone"}
    for mine in borders.values():
        for b in mine:
            dci = [lk for lk in plan.links if lk.kind == "dci" and b in (lk.a, lk.b)]
            side = next((lk for (x, y), lk in lateral.items() if b in (x, y)), None)
            for lk in dci:
                other = lk.b if lk.a == b else lk.a
                remote = int(plan.devices[other].site.removeprefix("ns-dc"))
                plan.devices[b].routes.append(f"{dc_net(remote)} metric 10 via {plan.peer_ip(lk, b)}")
                if side:
                    plan.devices[b].routes.append(
                        f"{dc_net(remote)} metric 20 via {plan.peer_ip(side, b)}")
