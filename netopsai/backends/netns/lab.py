"""A real routed lab of Linux network namespaces (`netopsai lab netns up|down|inject`).

Every device of the plan (netns_plan.py) is a namespace named PREFIX + its name without the
leading 'ns-' (nx-dc1-leaf-01 ...); links are veth pairs; routers forward, answer ICMP without
rate limits, hash ECMP flows on ports (so traceroute with fixed ports sees one path per flow)
and answer from the interface a probe came in on (so hop addresses map to the right
interface). The lab is registered in the store's inventory and recorded under the Meta key
'netns_lab', so `down` removes exactly what `up` made.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.netns.plan import NsDevice, Plan, build_plan, get_spec
from netopsai.backends.netns.sh import delete_ns, ip_batch, namespaces, require_root, run
from netopsai.backends.netns.store import forget_lab, register_lab
from netopsai.common.errors import NetopsError
from netopsai.store.engine import create_all, get_meta

META_KEY = "netns_lab"
DEFAULT_PREFIX = "nx-"
MTU = 9216
ROUTER_SYSCTLS = ("net.ipv4.ip_forward=1", "net.ipv4.icmp_ratelimit=0",
                  "net.ipv4.icmp_errors_use_inbound_ifaddr=1",
                  # ECMP on the 5-tuple, dissected from the packet: policy 1 would reuse the hash
                  # a veth carries over from the sender's socket, which is random per socket
                  "net.ipv4.fib_multipath_hash_policy=3",
                  "net.ipv4.fib_multipath_hash_fields=0x0037",
                  "net.ipv4.conf.all.ignore_routes_with_linkdown=1",
                  "net.ipv4.conf.default.ignore_routes_with_linkdown=1",
                  "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0")
HOST_SYSCTLS = ("net.ipv4.icmp_ratelimit=0", "net.ipv4.conf.all.rp_filter=0")
# machine-wide ICMP budget where the kernel keeps it per namespace (newer kernels); best effort
ICMP_BUDGET = ("net.ipv4.icmp_msgs_per_sec=100000", "net.ipv4.icmp_msgs_burst=100000")


@dataclass(frozen=True)
class NetnsLab:
    """What `up` made, as recorded in the store."""

    prefix: str
    spec: str
    namespaces: dict[str, str]  # device -> namespace
    record: dict[str, Any]

    def ns(self, device: str) -> str:
        if device not in self.namespaces:
            raise NetopsError(f"{device} is not a device of the namespace lab")
        return self.namespaces[device]


def ns_name(prefix: str, device: str) -> str:
    return prefix + device.removeprefix("ns-")


def read_lab(engine: Engine) -> NetnsLab | None:
    create_all(engine)
    with Session(engine) as s:
        raw = get_meta(s, META_KEY)
    if not raw:
        return None
    rec = json.loads(raw)
    return NetnsLab(rec["prefix"], rec["spec"], rec["namespaces"], rec)


def up(engine: Engine, spec: str = "small", prefix: str = DEFAULT_PREFIX) -> NetnsLab:
    require_root("lab netns up")
    plan = build_plan(get_spec(spec))
    if read_lab(engine) is not None:
        raise NetopsError("a namespace lab is already up in this store; run "
                          "'netopsai lab netns down' first")
    names = {d: ns_name(prefix, d) for d in plan.devices}
    clash = sorted(set(names.values()) & namespaces())
    if clash:
        raise NetopsError(f"namespace {clash[0]} already exists; pick another --prefix or "
                          f"delete it ('ip netns del {clash[0]}')")
    t0 = time.perf_counter()
    try:
        _build(plan, names)
    except BaseException:
        delete_ns(list(names.values()))
        raise
    record = {"prefix": prefix, "spec": spec, "namespaces": names,
              "build_s": round(time.perf_counter() - t0, 3)}
    try:
        register_lab(engine, plan, record, META_KEY)
    except BaseException:
        delete_ns(list(names.values()))
        raise
    lab = read_lab(engine)
    assert lab is not None
    return lab


def down(engine: Engine) -> tuple[int, int]:
    """Delete the lab's namespaces and inventory rows: (namespaces, devices) removed."""
    require_root("lab netns down")
    lab = read_lab(engine)
    if lab is None:
        raise NetopsError("no namespace lab is up in this store (nothing to take down)")
    gone = delete_ns(list(lab.namespaces.values()))
    forget_lab(engine, lab.record, META_KEY)
    return gone, len(lab.namespaces)


def _build(plan: Plan, names: dict[str, str]) -> None:
    for dev, ns in names.items():
        run(["ip", "netns", "add", ns])
        router = plan.devices[dev].role != "host"
        _sysctls(ns, ROUTER_SYSCTLS if router else HOST_SYSCTLS)
    for lk in plan.links:
        run(["ip", "link", "add", lk.a_if, "netns", names[lk.a], "type", "veth", "peer", "name",
             lk.b_if, "netns", names[lk.b]])
    for node in plan.devices.values():
        ip_batch(names[node.name], _config(plan, node))
        if node.bridge:  # an unanswered ARP (host link down) fails in ~0.1 s with !H, inside
            # a traceroute's short wait, rather than after the default 3 s
            run(["ip", "netns", "exec", names[node.name], "sysctl", "-q", "-w",
                 f"net.ipv4.neigh.{node.bridge}.mcast_solicit=1",
                 f"net.ipv4.neigh.{node.bridge}.retrans_time_ms=100"])


def _sysctls(ns: str, settings: tuple[str, ...]) -> None:
    run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *settings])
    run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", *ICMP_BUDGET], check=False)


def _config(plan: Plan, dev: NsDevice) -> list[str]:
    """The `ip` batch that configures one namespace: bridge, links up, addresses, routes."""
    ports = [lk.a_if if lk.a == dev.name else lk.b_if for lk in plan.links
             if dev.name in (lk.a, lk.b)]
    lines = ["link set lo up"]
    if dev.bridge:
        lines.append(f"link add {dev.bridge} type bridge")
        host_ports = [lk.a_if for lk in plan.links if lk.a == dev.name and lk.kind == "host"]
        lines += [f"link set {p} master {dev.bridge}" for p in host_ports]
        lines.append(f"link set {dev.bridge} mtu {MTU} up")
    # jumbo frames as in a data centre: the copilot's 9000-byte MTU probe must pass when healthy
    lines += [f"link set {p} mtu {MTU} up" for p in ports]
    lines += [f"addr add {addr} dev {ifname}" for ifname, addr in dev.addrs]
    lines += [f"route add {r}" for r in dev.routes]
    return lines
