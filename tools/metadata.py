"""metadata: the inventory — sites, PoDs and segments, devices, hosts, IP owners, neighbours,
upstream switches, interfaces."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from pydantic import Field

from netopsai.backends.base import Backends, Inventory
from netopsai.backends.rows import InterfaceInfo, JobInfo, PodInfo, SnapshotInfo
from netopsai.common.errors import NetopsError, unknown
from netopsai.common.hostlist import compress
from netopsai.common.ifnames import match
from netopsai.common.words import count
from netopsai.copilot.evidence import Evidence
from netopsai.tools.args import IPv4
from netopsai.tools.base import ToolArgs, as_table, tool
from netopsai.tools.facts import MetadataFacts

Query = Literal["sites", "pods", "segments", "devices", "device", "hosts", "ip", "neighbors",
                "upstream", "interfaces", "filters", "snapshots", "jobs"]


class MetadataArgs(ToolArgs):
    query: Query = Field(description=(
        "What to look up: sites; pods (with their segments); segments; devices (filter by "
        "site/pod/role/name glob); device (one device in detail, needs name); hosts (ip, name, "
        "pod, segment, ToR); ip (who owns an address, needs ip); neighbors (needs name); "
        "upstream (the switches above a host or device, needs name or ip); interfaces (needs name); "
        "filters (the ACL deny entries and null routes in force on a device, needs name); "
        "snapshots (the device's state captured when alarms opened on it: interfaces down, "
        "LLDP and BGP neighbours, what could not be read, the running config's diff from the "
        "snapshot before; needs name); jobs (compute jobs from the scheduler: hosts, owner, state, "
        "start and end; one by job, or those that ran on the host given as name)."))
    site: str | None = Field(default=None, description="Data centre, e.g. dc1")
    pod: str | None = Field(default=None, description="PoD, e.g. dc1-pod2")
    role: str | None = Field(default=None, description=(
        "Device role: leaf (ToR), spine, superspine, border, dci, host"))
    name: str | None = Field(default=None, description=(
        "Device name, e.g. dc1-leaf-03; for devices/hosts a glob such as dc1-spine-*"))
    ip: IPv4 | None = Field(default=None, description="An IPv4 address, e.g. 10.1.3.20")
    job: str | None = Field(default=None, description="With jobs: one job id, e.g. 4711")
    interface: str | None = Field(default=None, description=(
        "With neighbors or interfaces: only this port, in any of its names (Hu0/0/0/8, "
        "HundredGigE0/0/0/8)"))


def _need(args: MetadataArgs, field: str) -> Any:
    value = getattr(args, field)
    if not value:
        raise NetopsError(f"metadata query {args.query!r} needs {field}")
    return value


class PodRow(PodInfo, total=False):
    """A PoD as the tool shows it: the inventory's row with its segments as one range."""

    segment_range: str


Rows = Sequence[Mapping[str, Any]]  # one query's typed rows (backends/rows.py), as a table


def _one_port(rows: list[InterfaceInfo], a: MetadataArgs) -> list[InterfaceInfo]:
    """Only the port asked about, matched in any of its vendor names."""
    if not a.interface:
        return rows
    names = [r["name"] for r in rows]
    hit = match(names, a.interface)
    if hit is None:
        raise _unknown_port(a, names)
    return [r for r in rows if r["name"] == hit]


def _unknown_port(a: MetadataArgs, names: list[str]) -> NetopsError:
    """A port the device does not have: the closest of its ports, or (a device the inventory
    lists no ports for) that said, never an empty list of valid names."""
    if not names:
        return NetopsError(f"unknown port on {a.name} {a.interface!r}: the inventory lists no "
                           f"ports for {a.name}")
    return unknown(f"port on {a.name}", str(a.interface), sorted(names))


def _neighbours(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    """The device's links; with a port, that port's. A port of the inventory's with no link
    (a server's NIC, an unused port, a device whose links were never imported) has no known
    neighbour: said plainly, not an error."""
    name: str = _need(a, "name")
    rows = inv.neighbors(name)
    if not a.interface:
        down = [f"{r['interface']}->{r['neighbor']}" for r in rows if r["status"] != "up"]
        return rows, (f"{a.name} has {count(len(rows), 'link')}; {len(down)} down"
                      + (f": {', '.join(down[:10])}" if down else "") + ".")
    hit = match([r["interface"] for r in rows], a.interface)
    if hit is None:
        ports = [p["name"] for p in inv.interfaces(name)]
        port = match(ports, a.interface)
        if port is None:
            raise _unknown_port(a, ports)
        return [], (f"{a.name} {port} has no known neighbour: the inventory has no link on "
                    "that port.")
    rows = [r for r in rows if r["interface"] == hit]
    return rows, "; ".join(f"{a.name} {r['interface']} connects to {r['neighbor']} "
                           f"{r['neighbor_interface']} ({r['kind']} link, {r['status']})"
                           for r in rows) + "."


def _seg_range(cidrs: list[str]) -> str:
    return f"{cidrs[0]} .. {cidrs[-1]} ({len(cidrs)} segments)" if cidrs else "no segments"


# one reader per query, each reading its own row type (backends/rows.py), so mypy checks the keys
# its summary names
def _sites(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.sites()
    return rows, f"{count(len(rows), 'site')}: " + "; ".join(
        f"{r['site']} ({r['region']}, {r['pods']} PoDs, {r['network_devices']} network "
        f"devices, {r['hosts']} hosts)" for r in rows) + "."


def _pods(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = cast(list[PodRow], inv.pods(a.site))  # the very rows, given their range below
    for r in rows:
        r["segment_range"] = _seg_range(r["segments"])
    where = f" in {a.site}" if a.site else ""
    return rows, f"{count(len(rows), 'PoD')}{where}: " + "; ".join(
        f"{r['pod']} ({r['leafs']} leaf/ToR, {r['spines']} spines, segments "
        f"{r['segment_range']})" for r in rows) + "."


def _segments(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.segments(a.site, a.pod)
    scope = a.pod or a.site or "the inventory"
    return rows, f"{count(len(rows), 'segment')} in {scope}: {_seg_range([r['cidr'] for r in rows])}."


def _devices(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.devices(a.site, a.pod, a.role, a.name)
    by_role: dict[str, int] = {}
    for r in rows:
        by_role[r["role"]] = by_role.get(r["role"], 0) + 1
    down = [r["name"] for r in rows if r["status"] != "up"]
    roles = ", ".join(f"{n} {k}" for k, n in sorted(by_role.items()))
    return rows, (f"{count(len(rows), 'device')} match ({roles})"
                  f"; {len(down)} not up" + (f": {', '.join(down[:10])}" if down else "") + ".")


def _device(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    r = inv.device(_need(a, "name"))
    known = [f"{k} {v}" for k, v in (("mgmt", r.get("mgmt_ip")), ("loopback", r.get("loopback")))
             if v]  # a field the inventory lacks is left out, never "None"
    return [r], (f"{r['name']} is a {r['role']} in {r['site']}{' ' + r['pod'] if r['pod'] else ''}: "
                 f"{r['vendor']} {r['model']} running {r['os_version']}, "
                 + "".join(f"{x}, " for x in known)
                 + f"status {r['status']}, up {r.get('uptime') or '?'}, "
                 f"{count(r['interfaces'], 'interface')}, {count(r['links_down'], 'link')} down.")


def _hosts(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.hosts(a.site, a.pod, a.name)
    return rows, count(len(rows), "host") + (f" in {a.pod or a.site}" if a.pod or a.site else "") + "."


def _ip(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    r = inv.ip_owner(_need(a, "ip"))
    if r.get("device") is None:
        return [r], (f"{r['ip']} is not assigned to any device; it lies in segment "
                     f"{r['segment']} behind {r['tor']} ({r['pod']}, {r['site']}).")
    extra = (f", segment {r['segment']}, ToR {r['tor']} port {r['tor_interface']}"
             if r.get("tor") else "")
    return [r], (f"{r['ip']} belongs to {r['device']} ({r.get('role', '?')}) interface "
                 f"{r['interface']} in {r.get('pod') or r.get('site')}{extra}.")


def _filters(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.filters(_need(a, "name"))
    return rows, (f"{a.name} has {count(len(rows), 'traffic-dropping rule')} in force"
                  + (": " + "; ".join(f"{r['kind']} {r['name']} {r['action']} to {r['dst']}"
                                      f"{' since ' + r['since'] if r['since'] else ''}"
                                      for r in rows[:6]) if rows else "") + ".")


def _snapshots(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.snapshots(_need(a, "name"))
    return rows, _snapshots_summary(a.name, rows)


def _jobs(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.jobs(a.job, a.name)
    return rows, _jobs_summary(rows, a.job or a.name)


def _upstream(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = inv.upstream(a.name, a.ip)
    who = a.name or a.ip
    return rows, (f"Upstream of {who}: " + ", ".join(
        f"{r['neighbor']} {r['neighbor_interface']} (via {r['interface']}, {r['status']})"
        for r in rows) + "." if rows else f"{who} has no upstream devices.")


def _interfaces(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    rows = _one_port(inv.interfaces(_need(a, "name")), a)
    down = [r["name"] for r in rows if r["oper_status"] != "up"]
    return rows, (f"{a.name} has {count(len(rows), 'interface')}; {len(down)} oper down"
                  + (f": {', '.join(down[:10])}" if down else "") + ".")


LOOKUPS = {"sites": _sites, "pods": _pods, "segments": _segments, "devices": _devices,
           "device": _device, "hosts": _hosts, "ip": _ip, "neighbors": _neighbours,
           "filters": _filters, "snapshots": _snapshots, "jobs": _jobs, "upstream": _upstream,
           "interfaces": _interfaces}


def _lookup(a: MetadataArgs, inv: Inventory) -> tuple[Rows, str]:
    return LOOKUPS.get(a.query, _interfaces)(a, inv)


def _jobs_summary(rows: list[JobInfo], about: str | None) -> str:
    if not rows:
        return f"No job ran on {about}." if about else "No jobs."
    return f"{count(len(rows), 'job')}: " + "; ".join(
        f"job {r['id']} ({r['name']}, {r['owner']}) {r['state']} on "
        f"{count(len(r['hosts']), 'host')} ({compress(r['hosts'])}), {r['start'] or '?'} .. "
        f"{r['end'] or 'running'}" for r in rows[:6]) + "."


def _snapshots_summary(name: str | None, rows: list[SnapshotInfo]) -> str:
    if not rows:
        return f"{name} has no snapshots."
    last = rows[0]
    why = f" for alarm {last['alarm_id']}" if last["alarm_id"] is not None else ""
    down = ", ".join(last["interfaces_down"][:10]) or "none"
    diff = {"changed": "changed since the snapshot before", "unchanged": "unchanged",
            "first": "read for the first time"}.get(last["config"], "not read")
    missed = f"; not read: {len(last['errors'])} getter(s)" if last["errors"] else ""
    return (f"{name} has {count(len(rows), 'snapshot')}; the latest, at {last['taken_at']}{why} "
            f"(by {last['source']}): {count(last['interfaces'], 'interface')}, down: {down}; "
            f"{count(last['lldp_neighbors'], 'LLDP neighbour')}, "
            f"{count(last['bgp_peers'], 'BGP peer')}; running config {diff}{missed}.")


SHOWN = {
    "pods": ["pod", "site", "leafs", "spines", "segment_range"],
    "devices": ["name", "role", "site", "pod", "model", "os_version", "status"],
    "device": ["name", "role", "site", "pod", "vendor", "model", "os_version", "mgmt_ip", "status",
               "uptime"],
    "jobs": ["id", "name", "owner", "state", "hosts", "start", "end"],
    "snapshots": ["id", "taken_at", "alarm_id", "source", "interfaces", "interfaces_down",
                  "config", "errors"],
}  # what an answer's table shows


@tool("metadata", MetadataArgs, SHOWN)
def metadata(args: MetadataArgs, backends: Backends) -> Evidence:
    """Look up the network inventory: sites, PoDs with their network segments, segments,
    devices by site/PoD/role/name, one device's details, hosts, which device owns an IP,
    neighbours, upstream switches of a host/IP/device, interfaces, the ACL denies and null
    routes in force on a device, and the device's snapshots taken when alarms opened on it."""
    rows, summary = _lookup(args, backends.inventory)
    columns = list(rows[0]) if rows else []
    return Evidence(tool="metadata", summary=summary, columns=columns, rows=as_table(rows),
                    facts=dict(MetadataFacts(count=len(rows), query=args.query)))
