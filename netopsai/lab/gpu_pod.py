"""A rail-optimised GPU PoD beside a site's data-centre PoDs (a spec scale's `gpu_pods`).

Each GPU host has `nics_per_host` NICs (`mlx5_0` ...), one per rail. Hosts come in groups of
`hosts_per_leaf` (a scalable unit): NIC k of every host of group u goes to leaf `rail{k}-leaf{u}`,
so same-rail traffic between hosts of one group stays on one leaf. Every rail leaf goes up to
every spine of the PoD (eBGP over /31s, as the rest of the fabric), so other groups and other
rails are two hops further. The back-end fabric is its own island: the site's super-spines do not
reach it (RoCE traffic stays off the front-end network).

Addressing: the rail leaf n of the whole lab (in build order) owns 10.(160 + n // 256).(n % 256).0/24,
its gateway .1 on Vlan(200 + k); the hosts of its group are .10, .11, ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from netopsai.common.errors import NetopsError, unknown

if TYPE_CHECKING:
    from netopsai.lab.spec import GpuPodSpec
    from netopsai.lab.topology import Topology

GPU_NET = 160  # the second octet of the first GPU segment
HOST_ROLE = "gpu_host"
NIC_PORT = "gpu_nic"  # the speeds_mbps / mtu key of a GPU NIC and its leaf port


def nic_name(k: int) -> str:
    return f"mlx5_{k}"


def build_gpu_pods(topo: Topology) -> None:
    sites = [s.name for s in topo.spec.sites]
    spec = topo.spec
    if NIC_PORT not in spec.speeds_mbps or NIC_PORT not in spec.mtu:
        raise NetopsError(f"lab spec {spec.name}: a GPU PoD needs speeds_mbps and mtu entries "
                          f"'{NIC_PORT}'")
    if HOST_ROLE not in spec.platforms:
        raise NetopsError(f"lab spec {spec.name}: a GPU PoD needs platforms '{HOST_ROLE}'")
    seen: dict[str, int] = {}
    segs = 0
    for gp in topo.scale.gpu_pods:
        if gp.site not in sites:
            raise unknown("site of a GPU PoD", gp.site, sites)
        seen[gp.site] = seen.get(gp.site, 0) + 1
        segs = _build(topo, gp, sites.index(gp.site) + 1, seen[gp.site], segs)


def _build(topo: Topology, gp: GpuPodSpec, k: int, g: int, segs: int) -> int:
    """One PoD; `segs` GPU segments exist before it. Returns how many exist after it."""
    site, sc, asn = gp.site, topo.scale, topo.spec.asn
    pod = f"{site}-gpu{g}"
    index = sc.pods_per_site + g
    hosts = gp.racks * gp.hosts_per_rack
    groups = -(-hosts // gp.hosts_per_leaf)
    topo.pods.append({"name": pod, "site": site, "index": index,
                      "description": f"GPU PoD {g} of {site}: {hosts} hosts, "
                                     f"{hosts * gp.gpus_per_host} GPUs, {gp.nics_per_host} rails"})
    plat = "gpu_spine" if "gpu_spine" in topo.spec.platforms else None
    spines = [topo.device(f"{pod}-spine-{s:02d}", "spine", site, pod,
                          asn=asn["spine_base"] + 100 * k + index, platform=plat)
              for s in range(1, gp.spines + 1)]
    leaves = {(r, u): _leaf(topo, gp, (k, g, segs), pod, r, u, spines)
              for u in range(1, groups + 1) for r in range(gp.nics_per_host)}
    width = max(3, len(str(hosts)))
    rwidth = max(2, len(str(gp.racks)))
    for n in range(hosts):
        u, i = n // gp.hosts_per_leaf + 1, n % gp.hosts_per_leaf
        host = topo.device(f"{pod}-{n + 1:0{width}d}", HOST_ROLE, site, pod,
                           f"{pod}-R{n // gp.hosts_per_rack + 1:0{rwidth}d}")
        for r in range(gp.nics_per_host):
            leaf, cidr = leaves[(r, u)]
            ip = f"{cidr.rsplit('.', 1)[0]}.{10 + i}"
            leaf_if = f"Ethernet{i + 1}"
            topo.link(host, nic_name(r), leaf, leaf_if, "host", a_ip=f"{ip}/24", port=NIC_PORT)
            topo.hosts.append({"ip": ip, "device": host, "interface": nic_name(r), "segment": cidr,
                               "tor": leaf, "tor_interface": leaf_if, "pod": pod, "site": site})
    return segs + len(leaves)


def _leaf(topo: Topology, gp: GpuPodSpec, at: tuple[int, int, int], pod: str, r: int, u: int,
          spines: list[str]) -> tuple[str, str]:
    """Rail r's leaf of host group u, its segment and its uplinks: (name, segment CIDR).
    `at`: the site's index, the PoD's index in the site, the GPU segments before the PoD."""
    k, g, segs = at
    li = (u - 1) * gp.nics_per_host + r + 1
    n = segs + li - 1
    cidr = f"10.{GPU_NET + n // 256}.{n % 256}.0/24"
    if GPU_NET + n // 256 >= 250:
        raise NetopsError("GPU PoDs too large: their segments would reach 10.250.0.0/16")
    plat = "gpu_leaf" if "gpu_leaf" in topo.spec.platforms else None
    leaf = topo.device(f"{pod}-rail{r}-leaf{u:02d}", "leaf", site := gp.site, pod,
                       f"{pod}-rail{r}", asn=topo.spec.asn["leaf_base"] + 10000 * k + 5000
                       + 500 * (g - 1) + li, platform=plat)
    vlan = 200 + r
    net = cidr.rsplit(".", 1)[0]
    topo.segments.append({"cidr": cidr, "name": f"{pod}-rail{r}-su{u:02d}", "vlan": vlan,
                          "vrf": "default", "gateway": f"{net}.1", "site": site, "pod": pod,
                          "tor": leaf})
    topo.interfaces.append({"device": leaf, "name": f"Vlan{vlan}", "speed_mbps": 0,
                            "mtu": topo.spec.mtu[NIC_PORT], "ip": f"{net}.1/24",
                            "admin_status": "up", "oper_status": "up",
                            "description": f"gateway of {cidr} (rail {r})", "link_id": None})
    for s, spine in enumerate(spines):
        topo.link(leaf, f"Ethernet{gp.hosts_per_leaf + s + 1}", spine, f"Ethernet{li}", "fabric")
    return leaf, cidr
