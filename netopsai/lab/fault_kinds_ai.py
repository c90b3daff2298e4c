"""Fault kinds of the GPU fabric (issue 15 §1): what a RoCE back-end network does when it goes
wrong, in every data source the tools read.

- nic_flap: a host NIC loses carrier again and again (a bad cable/transceiver, a NIC firmware
  hang): carrier transitions on both ends, flap alarms from the leaf, the NIC's RoCE
  retransmits and out-of-sequence packets climb (in-flight packets are lost at each drop),
  input errors and discards on the leaf port.
- pfc_storm: a port keeps sending PFC pause frames (a stuck NIC receive pipeline): its peer
  stops sending on the lossless priority, its queues fill and it pauses its own upstream
  ports, which pause theirs: the pauses spread over the rail, thinning with each hop. The PFC
  watchdog of the first switch that receives them raises an alarm and drops the stuck queue.
- ecmp_collision: a job's few elephant flows (RoCE's UDP source ports carry little entropy) hash
  onto one uplink of a leaf, near line rate with heavy ECN marking, while its sibling uplinks
  idle; the NICs behind the leaf receive the CNPs.
- rail_link_down: a link of the rail fabric (NIC to leaf, leaf to spine) is down.
- gpu_host_down: a GPU host dies: its NICs lose carrier, its leaves report each port down, the
  host answers nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np
from sqlmodel import Session, select

from netopsai.common.errors import NetopsError
from netopsai.lab.events import alarm, flap_events, link_down_alarms
from netopsai.lab.fault_registry import fault_kind
from netopsai.lab.faults import Injector, Resolved, link_dict
from netopsai.lab.roce_metrics import key
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert

STORM = 2_400_000  # pause frames per 5 minutes from a port in a storm (one every ~125 us)
LOSS = {"nic_flap": 15.0, "ecmp_collision": 0.5}
DELAY = {"pfc_storm": 2.0, "ecmp_collision": 3.0}


def _end(r: Resolved) -> tuple[str, str]:
    assert r.device and r.interface
    return r.device, r.interface


def _peer(link: m.Link, dev: str) -> tuple[str, str]:
    return (link.b_device, link.b_interface) if link.a_device == dev else (link.a_device, link.a_interface)


def _roles(s: Session, *names: str) -> dict[str, m.Device]:
    return {d.name: d for d in s.exec(select(m.Device).where(m.Device.name.in_(names)))}  # type: ignore[attr-defined]


@fault_kind("nic_flap", "link")
def nic_flap(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.link
    count = int(p.get("count", 8))
    d = link_dict(r.link)
    bulk_insert(inj.s, m.InterfaceEvent, flap_events(d, t0, inj.now, count, 20.0))
    host, nic = (r.link.a_device, r.link.a_interface)
    leaf, leaf_if = r.link.b_device, r.link.b_interface
    bulk_insert(inj.s, m.Alarm, link_down_alarms(d, inj.sites_of(r.link), t0, impact="degraded",
                                                 kind="LINK_FLAP", silent=frozenset({host})))

    def errors(f: dict[str, np.ndarray]) -> None:
        f["in_errors"][:] = 40
        f["crc_errors"][:] = 40
        f["in_discards"][:] = 300

    inj.samples(leaf, leaf_if, t0, errors)
    roce = {key(host, nic): {"retransmits": 2500, "out_of_sequence": 900}}
    inj.fault_row("nic_flap", t0, r, loss_pct=LOSS["nic_flap"], count=count, roce=roce)


def _spread(inj: Injector, dev: str, ifname: str, rate: int) -> dict[str, dict[str, int]]:
    """The pauses of a storm from dev:ifname, up two switch hops: a port that receives pauses
    holds its queues, which fill and pause every other port of its switch."""
    roce: dict[str, dict[str, int]] = {}

    def pause(sender: str, s_if: str, link: m.Link, n: int) -> tuple[str, str]:
        recv = _peer(link, sender)
        roce.setdefault(key(sender, s_if), {})["pfc_tx"] = n
        roce.setdefault(key(*recv), {})["pfc_rx"] = n
        return recv

    link = inj.s.get(m.Link, inj.iface(dev, ifname).link_id)
    assert link
    front = [pause(dev, ifname, link, rate)]
    for _ in range(2):
        rate //= 8
        nxt = []
        for sw, came_in in front:
            if _roles(inj.s, sw)[sw].role in ("host", "gpu_host"):
                continue
            for lk in inj.links_of(sw):
                out_if = lk.a_interface if lk.a_device == sw else lk.b_interface
                if out_if != came_in and key(sw, out_if) not in roce:
                    nxt.append(pause(sw, out_if, lk, rate))
        front = nxt
    return roce


@fault_kind("pfc_storm", "link")
def pfc_storm(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.link
    dev, ifn = _end(r)
    rate = int(p.get("rate", STORM))
    roce = _spread(inj, dev, ifn, rate)
    peer, peer_if = _peer(r.link, dev)
    roles = _roles(inj.s, dev, peer)
    watch = (peer, peer_if) if roles[peer].role not in ("host", "gpu_host") else (dev, ifn)

    def stalled(f: dict[str, np.ndarray]) -> None:  # nothing flows on the paused priority
        f["in_octets"][:] //= 50
        f["out_octets"][:] //= 50

    inj.samples(dev, ifn, t0, stalled)

    def dropped(f: dict[str, np.ndarray]) -> None:  # the watchdog drops the stuck queue
        f["in_octets"][:] //= 50
        f["out_octets"][:] //= 50
        f["out_discards"][:] = 20_000

    inj.samples(peer, peer_if, t0, dropped)
    inj.s.add(m.Alarm(**alarm(
        "PFC_WATCHDOG", "link", watch[0], inj.site(watch[0]), t0,
        f"PFC watchdog: storm detected on {watch[1]} priority 3 ({rate} pause frames per 5 min "
        f"from {dev} {ifn}); queue stopped, action drop", interface=watch[1],
        link_id=r.link.id, severity="major", impact="degraded")))
    inj.fault_row("pfc_storm", t0, r, delay_ms=DELAY["pfc_storm"], rate=rate, roce=roce)


@fault_kind("ecmp_collision", "link")
def ecmp_collision(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.link
    leaf, hot = _end(r)
    util = float(p.get("util", 0.98))
    uplinks = [lk for lk in inj.links_of(leaf) if lk.kind == "fabric"]
    speed = inj.iface(leaf, hot).speed_mbps

    def busy(f: dict[str, np.ndarray]) -> None:
        f["out_octets"][:] = int(util * speed * 1e6 * 300 / 8)

    def idle(f: dict[str, np.ndarray]) -> None:  # the job owns the leaf: little else to carry
        f["out_octets"][:] = int(0.03 * speed * 1e6 * 300 / 8)
        f["in_octets"][:] = int(0.04 * speed * 1e6 * 300 / 8)

    roce: dict[str, dict[str, int]] = {key(leaf, hot): {"ecn_marks": 6_000_000, "pfc_rx": 40_000}}
    for lk in uplinks:
        ifname = lk.a_interface if lk.a_device == leaf else lk.b_interface
        if ifname != hot:
            inj.samples(leaf, ifname, t0, idle)
    inj.samples(leaf, hot, t0, busy)
    for lk in inj.links_of(leaf):
        if lk.kind == "host":  # the NICs behind the leaf: their flows' senders get the CNPs
            roce[key(lk.a_device, lk.a_interface)] = {"cnp_rx": 400_000}
    inj.port_alarm("HIGH_UTILIZATION", "capacity", r, t0,
                   f"Egress utilisation {util * 100:.0f}% on {hot} while {len(uplinks) - 1} sibling "
                   f"uplinks run near 3%; ECN marking")
    inj.fault_row("ecmp_collision", t0, r, loss_pct=LOSS["ecmp_collision"],
                  delay_ms=DELAY["ecmp_collision"], util=util, job=str(p.get("job", "")), roce=roce)


@fault_kind("rail_link_down", "link")
def rail_link_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    """Down from t0; with `for_min`, back up that many minutes later (as link_down)."""
    assert r.link
    impact = "traffic_lost" if r.link.kind == "host" else "degraded"
    back = t0 + timedelta(minutes=int(p["for_min"])) if p.get("for_min") else None
    back = back if back and back < inj.now else None
    inj.take_link_down(r.link, t0, impact, "link down", until=back)
    inj.fault_row("rail_link_down", t0, r, back)


@fault_kind("gpu_host_down", "device")
def gpu_host_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device
    dev = inj.s.get(m.Device, r.device)
    assert dev
    dev.status = "down"
    inj.s.add(dev)
    inj.silent.add(dev.name)  # the host reports nothing; its leaves see each NIC go
    for link in inj.links_of(dev.name):
        inj.take_link_down(link, t0, "traffic_lost", "peer down")
    inj.fault_row("gpu_host_down", t0, r)


AI_KINDS = ("nic_flap", "pfc_storm", "ecmp_collision", "rail_link_down", "gpu_host_down")


def check_ai(s: Session, kind: str, r: Resolved) -> None:
    """The target fits the kind (run before the lab is touched)."""
    if kind not in AI_KINDS:
        return
    if kind == "gpu_host_down":
        dev = s.get(m.Device, r.device)
        if dev is None or dev.role != "gpu_host":
            raise NetopsError(f"gpu_host_down needs a GPU host; {r.device} is a "
                              f"{dev.role if dev else '?'}")
        return
    assert r.link and r.device
    ends = _roles(s, r.link.a_device, r.link.b_device)
    where = f"{r.device}:{r.interface}"
    if not any(d.role == "gpu_host" or _gpu_pod(s, d.pod) for d in ends.values()):
        raise NetopsError(f"{kind} needs a link of a GPU PoD; {where} is not in one")
    if kind == "nic_flap" and ends[r.link.a_device].role != "gpu_host":
        raise NetopsError(f"nic_flap needs a GPU host's NIC link; {where} is a {r.link.kind} link")
    if kind == "ecmp_collision" and (r.link.kind != "fabric" or ends[r.device].role != "leaf"):
        raise NetopsError(f"ecmp_collision needs a rail leaf's uplink named from the leaf; "
                          f"{where} is not one")


def _gpu_pod(s: Session, pod: str | None) -> bool:
    return pod is not None and s.exec(select(m.Device.name).where(
        m.Device.pod == pod, m.Device.role == "gpu_host")).first() is not None
