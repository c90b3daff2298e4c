"""Generate the lab's inventory rows from a spec and a scale preset, deterministically by seed.

Addressing: host segment of rack r in site k is 10.k.r.0/24 (r < 256; larger sites spill
into 10.(64k + r//256).(r%256).0/24); hosts are .20, .30, ...; fabric point-to-point /31s
come from 172.16.0.0/12, loopbacks from 10.254.0.0/15 and management from 10.250.0.0/16.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from ipaddress import IPv4Address
from typing import Any

from netopsai.common.roles import HOST_ROLES
from netopsai.lab.spec import LabSpec, Scale

P2P_BASE = int(IPv4Address("172.16.0.0"))
LOOPBACK_BASE = int(IPv4Address("10.254.0.0"))
MGMT_BASE = int(IPv4Address("10.250.0.0"))


def segment_prefix(site_index: int, rack: int) -> str:
    if rack < 256:
        return f"10.{site_index}.{rack}.0/24"
    return f"10.{64 * site_index + rack // 256}.{rack % 256}.0/24"


def port_name(role: str, n: int) -> str:
    """Interface naming follows each platform's convention."""
    if role == "border":
        return f"et-0/0/{n - 1}"
    if role == "dci":
        return f"HundredGigE0/0/0/{n - 1}"
    return f"Ethernet{n}"


@dataclass
class Topology:
    """Rows for the store, as plain dicts for bulk insert."""

    spec: LabSpec
    scale: Scale
    rng: random.Random
    now: datetime
    sites: list[dict[str, Any]] = field(default_factory=list)
    pods: list[dict[str, Any]] = field(default_factory=list)
    segments: list[dict[str, Any]] = field(default_factory=list)
    devices: list[dict[str, Any]] = field(default_factory=list)
    interfaces: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    hosts: list[dict[str, Any]] = field(default_factory=list)
    bgp: list[dict[str, Any]] = field(default_factory=list)
    _asn: dict[str, int] = field(default_factory=dict)
    _p2p: int = 0
    _mgmt: int = 0
    _loop: int = 0

    def device(self, name: str, role: str, site: str, pod: str | None = None,
               rack: str | None = None, asn: int | None = None, platform: str | None = None) -> str:
        plat = self.rng.choice(self.spec.platforms[platform or role])
        self._mgmt += 1
        loopback = None
        if role not in HOST_ROLES:
            self._loop += 1
            loopback = str(IPv4Address(LOOPBACK_BASE + self._loop))
        self._asn[name] = asn or 0
        self.devices.append({
            "name": name, "role": role, "vendor": plat.vendor, "model": plat.model,
            "os_version": plat.os_version, "mgmt_ip": str(IPv4Address(MGMT_BASE + self._mgmt)),
            "loopback": loopback, "asn": asn, "site": site, "pod": pod, "rack": rack,
            "status": "up",
            "booted_at": self.now - timedelta(days=self.rng.randint(20, 400),
                                              minutes=self.rng.randint(0, 1439)),
        })
        return name

    def _iface(self, device: str, name: str, kind: str, ip: str | None, peer: str,
               peer_if: str, link_id: int, port: str | None = None) -> None:
        self.interfaces.append({
            "device": device, "name": name, "speed_mbps": self.spec.speeds_mbps[port or kind],
            "mtu": self.spec.mtu[port or kind], "ip": ip, "admin_status": "up", "oper_status": "up",
            "description": f"{kind}: to {peer} {peer_if}", "link_id": link_id,
        })

    def link(self, a: str, a_if: str, b: str, b_if: str, kind: str, *,
             a_ip: str | None = None, b_ip: str | None = None,
             circuit: str | None = None, provider: str | None = None,
             port: str | None = None) -> int:
        """`port`: the speeds_mbps/mtu key of the ports when not the link's kind (a GPU NIC)."""
        link_id = len(self.links) + 1
        if kind != "host":
            base = P2P_BASE + 2 * self._p2p
            self._p2p += 1
            a_ip, b_ip = f"{IPv4Address(base)}/31", f"{IPv4Address(base + 1)}/31"
        self.links.append({"id": link_id, "a_device": a, "a_interface": a_if, "b_device": b,
                           "b_interface": b_if, "kind": kind, "circuit_id": circuit,
                           "provider": provider, "status": "up"})
        self._iface(a, a_if, kind, a_ip, b, b_if, link_id, port)
        self._iface(b, b_if, kind, b_ip, a, a_if, link_id, port)
        if kind != "host":
            self.bgp.append({"link_id": link_id, "a_device": a, "b_device": b,
                             "a_ip": (a_ip or "").split("/")[0], "b_ip": (b_ip or "").split("/")[0],
                             "a_asn": self._asn[a], "b_asn": self._asn[b],
                             "state": "established", "since": self.now - timedelta(days=19)})
        return link_id


def build_topology(spec: LabSpec, scale: Scale, seed: int, now: datetime) -> Topology:
    topo = Topology(spec=spec, scale=scale, rng=random.Random(seed), now=now)
    sites = [s.name for s in spec.sites]
    for k, site in enumerate(spec.sites, start=1):
        topo.sites.append({"name": site.name, "region": site.region,
                           "description": site.description})
        _build_site(topo, k, site.name)
    _build_dci(topo, sites)
    if scale.gpu_pods:
        from netopsai.lab.gpu_pod import build_gpu_pods

        build_gpu_pods(topo)
    return topo


def _build_site(topo: Topology, k: int, site: str) -> None:
    sc, asn = topo.scale, topo.spec.asn
    racks = sc.pods_per_site * sc.leafs_per_pod
    width = max(2, len(str(racks)))
    planes: list[list[str]] = []
    for plane in range(1, sc.spines_per_pod + 1):
        planes.append([
            topo.device(f"{site}-superspine-{(plane - 1) * sc.superspines_per_plane + i:02d}",
                        "superspine", site, asn=asn["superspine"] + k)
            for i in range(1, sc.superspines_per_plane + 1)])
    borders = [topo.device(f"{site}-border-{b:02d}", "border", site, asn=asn["border"] + k)
               for b in range(1, sc.borders + 1)]
    dcis = [topo.device(f"{site}-dci-{d:02d}", "dci", site, asn=asn["dci"] + k)
            for d in range(1, sc.dci + 1)]
    for p in range(1, sc.pods_per_site + 1):
        _build_pod(topo, k, site, p, width, planes)
    for i, ss in enumerate(s for plane in planes for s in plane):
        for b, border in enumerate(borders, start=1):
            topo.link(ss, port_name("superspine", sc.pods_per_site + b), border,
                      port_name("border", i + 1), "fabric")
    for b, border in enumerate(borders):
        for d, dci in enumerate(dcis, start=1):
            topo.link(border, port_name("border", 100 + d), dci, port_name("dci", b + 1),
                      "backbone")


def _build_pod(topo: Topology, k: int, site: str, p: int, width: int,
               planes: list[list[str]]) -> None:
    sc, asn = topo.scale, topo.spec.asn
    pod = f"{site}-pod{p}"
    topo.pods.append({"name": pod, "site": site, "index": p,
                      "description": f"PoD {p} of {site}"})
    pod_asn = asn["spine_base"] + 100 * k + p
    spines = [topo.device(f"{site}-spine-{(p - 1) * sc.spines_per_pod + j:02d}", "spine", site,
                          pod, asn=pod_asn) for j in range(1, sc.spines_per_pod + 1)]
    for j, spine in enumerate(spines):
        for i, ss in enumerate(planes[j], start=1):
            topo.link(spine, port_name("spine", sc.leafs_per_pod + i), ss, port_name("superspine", p),
                      "fabric")
    for j in range(1, sc.leafs_per_pod + 1):
        rack = (p - 1) * sc.leafs_per_pod + j
        _build_rack(topo, k, site, pod, rack, width, j, spines)


def _build_rack(topo: Topology, k: int, site: str, pod: str, rack: int, width: int,
                j: int, spines: list[str]) -> None:
    sc = topo.scale
    leaf = topo.device(f"{site}-leaf-{rack:0{width}d}", "leaf", site, pod, f"R{rack:0{width}d}",
                       asn=topo.spec.asn["leaf_base"] + 10000 * k + rack)
    cidr = segment_prefix(k, rack)
    net = cidr.rsplit(".", 1)[0]
    vlan = 100 + j
    topo.segments.append({"cidr": cidr, "name": f"{pod}-rack{rack:0{width}d}", "vlan": vlan,
                          "vrf": "default", "gateway": f"{net}.1", "site": site, "pod": pod,
                          "tor": leaf})
    topo.interfaces.append({"device": leaf, "name": f"Vlan{vlan}", "speed_mbps": 0,
                            "mtu": topo.spec.mtu["host"], "ip": f"{net}.1/24",
                            "admin_status": "up", "oper_status": "up",
                            "description": f"gateway of {cidr}", "link_id": None})
    for s, spine in enumerate(spines):
        topo.link(leaf, port_name("leaf", 49 + s), spine, port_name("spine", j), "fabric")
    for h in range(sc.hosts_per_rack):
        host = topo.device(f"{site}-host-{rack:0{width}d}-{h + 1}", "host", site, pod,
                           f"R{rack:0{width}d}")
        ip = f"{net}.{20 + 10 * h}"
        topo.link(host, "eth0", leaf, port_name("leaf", h + 1), "host", a_ip=f"{ip}/24")
        topo.hosts.append({"ip": ip, "device": host, "interface": "eth0", "segment": cidr,
                           "tor": leaf, "tor_interface": port_name("leaf", h + 1), "pod": pod,
                           "site": site})


def _build_dci(topo: Topology, sites: list[str]) -> None:
    """DCI router d of each site pairs with DCI router d of every other site, over circuits
    of provider d (mod the providers), circuits_per_provider each."""
    sc, spec = topo.scale, topo.spec
    n = 0
    for i, a_site in enumerate(sites):
        for b_site in sites[i + 1:]:
            for d in range(1, sc.dci + 1):
                prov = spec.providers[(d - 1) % len(spec.providers)]
                for c in range(spec.circuits_per_provider):
                    n += 1
                    port = port_name("dci", 20 + c + 1)
                    topo.link(f"{a_site}-dci-{d:02d}", port, f"{b_site}-dci-{d:02d}", port, "dci",
                              circuit=f"{prov.circuit_prefix}-{400100 + n}", provider=prov.name)
