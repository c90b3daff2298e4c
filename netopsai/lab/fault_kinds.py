"""What each fault kind of the data-centre fabric does to the lab (shared/specs/scenario.md,
fault kinds and labels); each registers itself in the one table, lab/fault_registry.py."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from netopsai.common.errors import NetopsError
from netopsai.lab.events import alarm, flap_events, link_down_alarms
from netopsai.lab.fault_registry import fault_kind
from netopsai.lab.faults import LOSS, Injector, Resolved, link_dict
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert

# shared/specs/scenario.md: a DCI circuit (DCI router to DCI router) or a backbone link (border to
# DCI router)
DCI_LINK_KINDS = ("dci", "backbone")


def _end(r: Resolved) -> tuple[str, str]:
    """The named end of a link or interface target."""
    assert r.device and r.interface
    return r.device, r.interface


# link_down's optional `reason`: what the named end reports besides the link going down
LINK_DOWN_REASONS = {
    "admin": ("ADMIN_DOWN", "link", "Interface {ifname}, changed state to administratively down"),
    "optic": ("OPTICS_LOS", "optics", "Interface {ifname}, receiver loss of signal detected"),
}


@fault_kind("link_down", "link")
def link_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    """Down from t0; with `for_min`, back up that many minutes later (a fault that came and
    went: its alarms cleared, the ports' history down and up, the paths whole again)."""
    assert r.link
    impact = "traffic_lost" if r.link.kind == "host" else "degraded"
    back = t0 + timedelta(minutes=int(p["for_min"])) if p.get("for_min") else None
    back = back if back and back < inj.now else None  # not back yet: still down
    inj.take_link_down(r.link, t0, impact, "link down", until=back)
    reason = p.get("reason")
    if reason:  # checked by inject._check: admin | optic
        kind, category, text = LINK_DOWN_REASONS[str(reason)]
        inj.port_alarm(kind, category, r, t0, text.format(ifname=r.interface))
        if reason == "admin":
            itf = inj.iface(*_end(r))
            itf.admin_status = "down"
            inj.s.add(itf)
    inj.fault_row("link_down", t0, r, back, **({"reason": reason} if reason else {}))


@fault_kind("dci_link_down", "link")
def dci_link_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.link
    why = "DCI circuit down" if r.link.kind == "dci" else "backbone link down"
    inj.take_link_down(r.link, t0, "degraded", why)
    inj.fault_row("dci_link_down", t0, r)


@fault_kind("link_flap", "link")
def link_flap(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.link
    count = int(p.get("count", 6))
    d = link_dict(r.link)
    bulk_insert(inj.s, m.InterfaceEvent, flap_events(d, t0, inj.now, count, 30.0))
    bulk_insert(inj.s, m.Alarm, link_down_alarms(d, inj.sites_of(r.link), t0, impact="degraded",
                                                 kind="LINK_FLAP"))
    inj.fault_row("link_flap", t0, r, loss_pct=LOSS["link_flap"], count=count)


@fault_kind("crc_errors", "link")
def crc_errors(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    dev, ifn = _end(r)
    rate = int(p.get("rate", 800))

    def errors(f: dict[str, np.ndarray]) -> None:
        f["in_errors"][:] = rate
        f["crc_errors"][:] = rate

    inj.samples(dev, ifn, t0, errors)
    inj.port_alarm("INTERFACE_ERRORS", "link", r, t0,
                   f"Input CRC errors rising on {ifn}: {rate} per 5 min", severity="minor")
    inj.fault_row("crc_errors", t0, r, loss_pct=LOSS["crc_errors"], rate=rate)


@fault_kind("optic_degraded", "link")
def optic_degraded(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    dev, ifn = _end(r)
    rx = float(p.get("rx_power_dbm", -13.8))

    def optics(f: dict[str, np.ndarray]) -> None:
        f["rx_power_dbm"][:] = rx
        f["in_errors"][:] = 300
        f["crc_errors"][:] = 300

    inj.samples(dev, ifn, t0, optics)
    inj.port_alarm("OPTICS_RX_LOW", "optics", r, t0,
                   f"Rx power {rx} dBm below low alarm threshold on {ifn}")
    inj.fault_row("optic_degraded", t0, r, loss_pct=LOSS["optic_degraded"])


@fault_kind("congestion", "link")
def congestion(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    dev, ifn = _end(r)
    util = float(p.get("util", 0.97))
    speed = inj.iface(dev, ifn).speed_mbps

    def busy(f: dict[str, np.ndarray]) -> None:
        f["out_octets"][:] = int(util * speed * 1e6 * 300 / 8)
        f["out_discards"][:] = 5000

    inj.samples(dev, ifn, t0, busy)
    inj.port_alarm("HIGH_UTILIZATION", "capacity", r, t0,
                   f"Egress utilisation {util * 100:.0f}% on {ifn}, output drops")
    inj.fault_row("congestion", t0, r, loss_pct=LOSS["congestion"], delay_ms=4.0, util=util)


@fault_kind("mtu_mismatch", "link")
def mtu_mismatch(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    dev, ifn = _end(r)
    mtu = int(p.get("mtu", 1500))
    itf = inj.iface(dev, ifn)
    itf.mtu = mtu
    inj.s.add(itf)
    inj.fault_row("mtu_mismatch", t0, r, mtu=mtu)


@fault_kind("device_down", "device")
def device_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device
    dev = inj.s.get(m.Device, r.device)
    assert dev
    dev.status = "down"
    inj.s.add(dev)
    inj.s.add(m.Alarm(**alarm("DEVICE_UNREACHABLE", "device", dev.name, dev.site, t0,
                              f"{dev.name} unreachable: SNMP and ICMP to {dev.mgmt_ip} time out",
                              severity="critical", impact="degraded")))
    inj.silent.add(dev.name)  # only its neighbours see it go
    for link in inj.links_of(dev.name):
        inj.take_link_down(link, t0, "traffic_lost" if link.kind == "host" else "degraded",
                           "peer down")
    inj.fault_row("device_down", t0, r)


@fault_kind("device_reboot", "device")
def device_reboot(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device
    dev = inj.s.get(m.Device, r.device)
    assert dev
    back = t0 + timedelta(minutes=4)
    dev.booted_at = t0 + timedelta(minutes=3)
    inj.s.add(dev)
    inj.s.add(m.Alarm(**alarm("DEVICE_REBOOT", "device", dev.name, dev.site, t0,
                              f"{dev.name} reloaded (reason: kernel panic), cold start",
                              cleared=back, severity="major", impact="degraded")))
    inj.silent.add(dev.name)  # reloading: only its neighbours report the links
    for link in inj.links_of(dev.name):
        inj.take_link_down(link, t0, "degraded", "reload", until=back)
    inj.fault_row("device_reboot", t0, r)


@fault_kind("host_down", "device")
def host_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device
    dev = inj.s.get(m.Device, r.device)
    if dev is None or dev.role != "host":
        raise NetopsError(f"host_down needs a host; {r.device} is a {dev.role if dev else '?'}")
    dev.status = "unreachable"
    inj.s.add(dev)
    inj.fault_row("host_down", t0, r)


@fault_kind("acl_block", "device")
def acl_block(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device
    inj.s.add(m.AclEntry(device=r.device, seq=5, action="deny", src=str(p.get("src", "0.0.0.0/0")),
                         dst=str(p.get("dst", "0.0.0.0/0")), name="NETOPS-FILTER", created_at=t0))
    inj.fault_row("acl_block", t0, r, dst=p.get("dst", "0.0.0.0/0"))


@fault_kind("blackhole", "device")
def blackhole(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device and r.prefix
    inj.s.add(m.StaticRoute(device=r.device, prefix=r.prefix, next_hop="Null0", created_at=t0))
    inj.fault_row("blackhole", t0, r, dst=r.prefix)


@fault_kind("bgp_down")
def bgp_down(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    links = [r.link] if r.link else [lk for lk in inj.links_of(r.device or "") if lk.kind != "host"]
    for link in links:
        if link is not None and link.id is not None:
            inj.bgp_down(link.id, t0, "Hold timer expired")
    inj.fault_row("bgp_down", t0, r)


@fault_kind("change", "device")
def change(inj: Injector, r: Resolved, t0: datetime, p: dict[str, Any]) -> None:
    assert r.device
    inj.s.add(m.Change(ticket=str(p.get("ticket", f"CHG-{9000 + int(t0.timestamp()) % 1000}")),
                       device=r.device, site=inj.site(r.device), start=t0,
                       end=t0 + timedelta(minutes=int(p.get("duration_min", 8))),
                       kind=str(p.get("kind", "config")),
                       summary=str(p.get("summary", "Configuration change")),
                       author=str(p.get("author", "netops-automation")),
                       status=str(p.get("status", "completed"))))

