"""Real faults in the namespace lab, from the scenario format (shared/specs/scenario.md).

Only what namespaces can really show: a link down (both ends set down, as a cut cable), an ACL
(an iptables REJECT with admin-prohibited, or a silent DROP with params.action=drop), a null
route (blackhole, or unreachable/prohibit with params.type), CRC errors as random loss
(iptables statistic on both ends' inbound traffic) and a device down (all its links down).
A `change` is written as a change record. Every target is checked before anything changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from ipaddress import ip_network

from sqlalchemy import Engine, and_, or_
from sqlmodel import Session, col, select

from netopsai.backends.netns.lab import NetnsLab, read_lab
from netopsai.backends.netns.plan import LAB_NET
from netopsai.backends.netns.sh import in_ns, ip_batch, require_root
from netopsai.common.errors import NetopsError, unknown
from netopsai.lab.scenario import FaultSpec, Scenario
from netopsai.store import tables as m

SUPPORTED = ("link_down", "acl_block", "blackhole", "crc_errors", "device_down", "change")
DEFAULT_LOSS = 0.3
ROUTE_TYPES = ("blackhole", "unreachable", "prohibit")
LOSS_TABLE = "nxloss"  # the nft bridge table of random drops on bridged ports


@dataclass(frozen=True)
class Action:
    """One checked fault, ready to apply."""

    kind: str
    where: str  # what it touches, for the report line
    apply: Callable[[], None]


def inject(engine: Engine, scenario: Scenario) -> list[str]:
    """Apply the scenario's faults to the running lab; returns one line per fault."""
    require_root("lab netns inject")
    lab = read_lab(engine)
    if lab is None:
        raise NetopsError("no namespace lab is up in this store; run 'netopsai lab netns up' first")
    actions = [_plan(engine, lab, f) for f in scenario.faults]  # all checked before any applies
    for a in actions:
        a.apply()
    return [f"{a.kind} {a.where}" for a in actions]


def _plan(engine: Engine, lab: NetnsLab, f: FaultSpec) -> Action:
    if f.kind not in SUPPORTED:
        raise NetopsError(f"the namespace lab cannot inject {f.kind!r}; it supports "
                          f"{', '.join(SUPPORTED)}")
    if f.kind in ("link_down", "crc_errors"):
        ends = _link_ends(engine, lab, f)
        where = " <-> ".join(f"{d}:{i}" for d, i in ends)
        if f.kind == "link_down":
            return Action(f.kind, where, lambda: _links_down(lab, ends))
        p = _probability(f)
        return Action(f.kind, f"{where} ({p:.0%} loss)", lambda: _loss(lab, ends, p))
    dev = _device(engine, lab, f)
    if f.kind == "device_down":
        ends = _device_ends(engine, dev)
        return Action(f.kind, dev, lambda: _links_down(lab, ends))
    if f.kind == "change":
        return Action(f.kind, dev, lambda: _change(engine, dev, f))
    dst = _dst(f)
    if f.kind == "acl_block":
        action = str(f.params.get("action", "reject"))
        if action not in ("reject", "drop"):
            raise unknown("acl_block action", action, ("reject", "drop"))
        return Action(f.kind, f"{dev} {action} to {dst}", lambda: _acl(lab, dev, dst, action))
    kind = str(f.params.get("type", "blackhole"))
    if kind not in ROUTE_TYPES:
        raise unknown("blackhole type", kind, ROUTE_TYPES)
    return Action(f.kind, f"{dev} {kind} {dst}",
                  lambda: ip_batch(lab.ns(dev), [f"route replace {kind} {dst}"]))


def _device(engine: Engine, lab: NetnsLab, f: FaultSpec) -> str:
    name = f.target.device
    if not name:
        raise NetopsError(f"{f.kind} needs target: {{device: NAME}}")
    if name not in lab.namespaces:
        raise unknown("device of the namespace lab", name, lab.namespaces)
    return name


def _link_ends(engine: Engine, lab: NetnsLab, f: FaultSpec) -> list[tuple[str, str]]:
    """Both ends of the link named by target link or interface ('DEVICE:IFNAME')."""
    ref = f.target.link or f.target.interface
    if not ref or ":" not in ref:
        raise NetopsError(f"{f.kind} needs target: {{link: \"DEVICE:IFNAME\"}}")
    dev, ifname = ref.split(":", 1)
    if dev not in lab.namespaces:
        raise unknown("device of the namespace lab", dev, lab.namespaces)
    with Session(engine) as s:
        lk = s.exec(select(m.Link).where(or_(
            and_(col(m.Link.a_device) == dev, col(m.Link.a_interface) == ifname),
            and_(col(m.Link.b_device) == dev, col(m.Link.b_interface) == ifname)))).first()
        if lk is None:
            ports = s.exec(select(m.Interface.name).where(m.Interface.device == dev,
                                                          m.Interface.link_id.is_not(None)))  # type: ignore[union-attr]
            raise unknown(f"link interface of {dev}", ifname, ports)
        return [(lk.a_device, lk.a_interface), (lk.b_device, lk.b_interface)]


def _device_ends(engine: Engine, dev: str) -> list[tuple[str, str]]:
    with Session(engine) as s:
        links = s.exec(select(m.Link).where(or_(col(m.Link.a_device) == dev,
                                                col(m.Link.b_device) == dev))).all()
    return [end for lk in links for end in ((lk.a_device, lk.a_interface), (lk.b_device, lk.b_interface))]


def _dst(f: FaultSpec) -> str:
    raw = str(f.params.get("dst") or (LAB_NET if f.kind == "acl_block" else ""))
    if not raw:
        raise NetopsError(f"{f.kind} needs params: {{dst: CIDR}} (the prefix to null-route)")
    try:
        net = ip_network(raw, strict=False)
    except ValueError:
        raise NetopsError(f"{f.kind}: params.dst {raw!r} is not an IPv4 prefix") from None
    if not net.subnet_of(ip_network(LAB_NET)):  # type: ignore[arg-type]
        raise NetopsError(f"{f.kind}: params.dst {raw} is outside the lab's {LAB_NET}")
    return str(net)


def _probability(f: FaultSpec) -> float:
    raw = f.params.get("loss", f.params.get("rate", DEFAULT_LOSS))
    try:
        p = float(raw)
    except (TypeError, ValueError):
        raise NetopsError(f"crc_errors: params.loss {raw!r} is not a number") from None
    p = p / 100 if p > 1 else p  # 30 means 30 %
    if not 0 < p <= 1:
        raise NetopsError(f"crc_errors: loss must be in (0, 1] or a percentage, not {raw}")
    return p


def _links_down(lab: NetnsLab, ends: list[tuple[str, str]]) -> None:
    for dev, ifname in ends:
        ip_batch(lab.ns(dev), [f"link set {ifname} down"])


def _loss(lab: NetnsLab, ends: list[tuple[str, str]], p: float) -> None:
    """Random drops of what arrives on each end. A bridged port (a ToR's host port) is not
    routed, so its frames are dropped in the bridge family instead of by iptables."""
    for dev, ifname in ends:
        ns = lab.ns(dev)
        if json.loads(in_ns(ns, "ip", "-j", "link", "show", ifname))[0].get("master"):
            rule = f'iifname "{ifname}" numgen random mod 10000 < {round(p * 10000)} counter drop'
            in_ns(ns, "nft", "-f", "-", stdin=(
                f"table bridge {LOSS_TABLE} {{\n"
                f"  chain forward {{ type filter hook forward priority 0; {rule}; }}\n"
                f"  chain input {{ type filter hook input priority 0; {rule}; }}\n}}\n"))
            continue
        for chain in ("FORWARD", "INPUT"):
            in_ns(ns, "iptables", "-I", chain, "-i", ifname, "-m", "statistic",
                  "--mode", "random", "--probability", f"{p:.4f}", "-j", "DROP")


def _acl(lab: NetnsLab, dev: str, dst: str, action: str) -> None:
    target = (["-j", "REJECT", "--reject-with", "icmp-admin-prohibited"] if action == "reject"
              else ["-j", "DROP"])
    in_ns(lab.ns(dev), "iptables", "-I", "FORWARD", "-d", dst, *target)


def _change(engine: Engine, dev: str, f: FaultSpec) -> None:
    p = f.params
    with Session(engine) as s:
        d = s.get(m.Device, dev)
        s.add(m.Change(ticket=str(p.get("ticket", "CHG-NETNS")), device=dev,
                       site=d.site if d else "", start=datetime.now(UTC),
                       end=datetime.now(UTC), summary=str(p.get("summary", "")),
                       author=str(p.get("author", "netns-lab"))))
        s.commit()
