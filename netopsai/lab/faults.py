"""Fault injection: each fault kind of the scenario spec leaves consistent symptoms in every
data source — link/interface/device/BGP state, interface transitions, alarms, counter samples,
ACLs and routes — and a LabFault row the forwarding model reads for loss, delay and MTU."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlmodel import Session, or_, select

from netopsai.lab import counters
from netopsai.lab.events import alarm, link_down_alarms, transitions
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert

LOSS = {"crc_errors": 4.0, "optic_degraded": 3.0, "link_flap": 15.0, "congestion": 1.5}


@dataclass
class Resolved:
    """A scenario target looked up in the store."""

    device: str | None = None
    interface: str | None = None
    link: m.Link | None = None
    prefix: str | None = None


def link_dict(link: m.Link) -> dict[str, Any]:
    return link.model_dump()


class Injector:
    def __init__(self, session: Session, seed: int, now: datetime) -> None:
        self.s, self.seed, self.now = session, seed, now
        self.silent: set[str] = set()  # devices that are down and so raise no alarms
        self._sites: dict[str, str] | None = None

    # -- helpers -------------------------------------------------------------------------
    def site(self, device: str) -> str:
        dev = self.s.get(m.Device, device)
        return dev.site if dev else ""

    def sites_of(self, link: m.Link) -> dict[str, str]:
        return {link.a_device: self.site(link.a_device), link.b_device: self.site(link.b_device)}

    def iface(self, device: str, name: str) -> m.Interface:
        return self.s.exec(select(m.Interface).where(
            m.Interface.device == device, m.Interface.name == name)).one()

    def fault_row(self, kind: str, t0: datetime, r: Resolved, end: datetime | None = None,
                  **params: Any) -> None:
        """The fault as the lab records it; `end` for one that came and went."""
        self.s.add(m.LabFault(kind=kind, device=r.device, interface=r.interface,
                              link_id=r.link.id if r.link else None, start=t0, end=end,
                              params=params))

    def samples(self, device: str, ifname: str, t0: datetime,
                mutate: Callable[[dict[str, np.ndarray]], None]) -> None:
        """Counter samples from t0 to the clock: the baseline, changed by `mutate`."""
        times = counters.grid(t0, self.now)
        if not times:
            return
        speed = self.iface(device, ifname).speed_mbps
        base = counters.baseline(self.seed, [(device, ifname)], [speed], times)
        mutate(base)
        rows = [{"device": device, "interface": ifname, "at": t, "source": "lab",
                 **{f: (float(base[f][0][i]) if f == "rx_power_dbm" else int(base[f][0][i]))
                    for f in counters.FIELDS}} for i, t in enumerate(times)]
        bulk_insert(self.s, m.CounterSample, rows)

    def port_alarm(self, kind: str, category: str, r: Resolved, t0: datetime, message: str,
                   severity: str = "major") -> None:
        """An open alarm on the fault's port (errors, optics, capacity): traffic degraded."""
        assert r.device
        self.s.add(m.Alarm(**alarm(kind, category, r.device, self.site(r.device), t0, message,
                                   interface=r.interface, link_id=r.link.id if r.link else None,
                                   severity=severity, impact="degraded")))

    def links_of(self, device: str) -> list[m.Link]:
        return list(self.s.exec(select(m.Link).where(
            or_(m.Link.a_device == device, m.Link.b_device == device))))

    def bgp_down(self, link_id: int, t0: datetime, reason: str) -> None:
        for sess in self.s.exec(select(m.BgpSession).where(
                m.BgpSession.link_id == link_id)):
            sess.state, sess.since = "idle", t0
            self.s.add(sess)
            for dev, peer, peer_ip in ((sess.a_device, sess.b_device, sess.b_ip),
                                       (sess.b_device, sess.a_device, sess.a_ip)):
                if dev in self.silent:
                    continue
                self.s.add(m.Alarm(**alarm(
                    "BGP_DOWN", "bgp", dev, self.site(dev), t0,
                    f"BGP neighbor {peer_ip} ({peer}) Down: {reason}", link_id=link_id)))

    def take_link_down(self, link: m.Link, t0: datetime, impact: str, reason: str,
                       until: datetime | None = None) -> None:
        """Both ends go down at t0 (and up again at `until`, for a reboot)."""
        d = link_dict(link)
        if until is None:
            link.status = "down"
            self.s.add(link)
            for dev, ifn in ((link.a_device, link.a_interface), (link.b_device, link.b_interface)):
                itf = self.iface(dev, ifn)
                itf.oper_status = "down"
                self.s.add(itf)
                self.samples(dev, ifn, t0, _zero_traffic)
            if link.kind != "host" and link.id is not None:
                self.bgp_down(link.id, t0, "Interface flap" if reason == "flap" else "Link down")
        bulk_insert(self.s, m.InterfaceEvent, transitions(d, t0, "down", reason)
                    + (transitions(d, until, "up", reason) if until else []))
        bulk_insert(self.s, m.Alarm, link_down_alarms(d, self.sites_of(link), t0, cleared=until,
                                                      impact=impact, silent=frozenset(self.silent)))


def _zero_traffic(f: dict[str, np.ndarray]) -> None:
    f["in_octets"][:] = 0
    f["out_octets"][:] = 0
    f["in_errors"][:] = 0
    f["crc_errors"][:] = 0
