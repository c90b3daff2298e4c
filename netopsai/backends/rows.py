"""The rows each backend method returns (backends/base.py's Protocols), as napalm documents
its getters: these shapes are the contract every backend keeps, and the tools' columns come
from them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, NotRequired, Required, TypedDict, cast


class SiteInfo(TypedDict):
    """Inventory.sites: one site with its counts."""

    site: str
    region: str
    pods: int
    network_devices: int
    hosts: int
    description: str


class PodInfo(TypedDict):
    """Inventory.pods: one PoD, its fabric size and its segments (CIDRs, in address order)."""

    pod: str
    site: str
    leafs: int
    spines: int
    segments: list[str]


class SegmentInfo(TypedDict):
    """Inventory.segments: one network segment (a host subnet behind a ToR)."""

    cidr: str
    name: str
    vlan: int
    vrf: str
    gateway: str
    site: str
    pod: str | None
    tor: str | None


class DeviceInfo(TypedDict):
    """Inventory.devices: one network device (hosts are Inventory.hosts)."""

    name: str
    role: str  # spine, leaf, border, dci ... (the inventory's words)
    vendor: str
    model: str
    os_version: str
    mgmt_ip: str | None
    loopback: str | None
    asn: int | None
    site: str
    pod: str | None
    rack: str | None
    status: str  # up | down | unreachable
    booted_at: str | None  # ISO 8601


class DeviceDetail(DeviceInfo, total=False):
    """Inventory.device: one device with its uptime and port counts."""

    uptime: str  # H:MM:SS since booted_at, on the network's clock
    interfaces: int
    links_down: int


class HostInfo(TypedDict):
    """Inventory.hosts: one end host's address and where it attaches."""

    ip: str
    name: str
    pod: str | None
    segment: str | None
    tor: str | None
    tor_interface: str | None
    site: str | None


class IpOwner(TypedDict, total=False):
    """Inventory.ip_owner: who holds an address (a host, a device interface, a loopback or
    management address) or, when nobody does, the segment that contains it."""

    ip: Required[str]
    device: Required[str | None]
    role: str
    interface: str
    segment: str | None
    tor: str | None
    tor_interface: str | None
    pod: str | None
    site: str | None
    note: str  # "address not assigned"


class Neighbor(TypedDict):
    """Inventory.neighbors: one link of a device, seen from that device."""

    interface: str
    neighbor: str
    neighbor_interface: str
    kind: str  # fabric, host, dci, backbone ...
    status: str
    circuit_id: str | None
    provider: str | None


class Uplink(Neighbor):
    """Inventory.upstream: a neighbour one tier up, with its role."""

    role: str


class FilterRule(TypedDict):
    """Inventory.filters: one traffic-dropping rule of a device's configuration in force: an
    ACL deny entry, or a static route to a discard interface (Null0)."""

    device: str
    kind: str  # acl | null_route
    name: str  # the ACL's name, or the route's next hop
    seq: int | None
    action: str  # deny | discard
    src: str | None
    dst: str  # the prefix it drops traffic to
    since: str | None  # when it appeared (ISO), when known


class JobInfo(TypedDict):
    """Inventory.jobs: a compute job (the `Job` table) and the window it ran in."""

    id: str
    name: str
    owner: str
    state: str
    hosts: list[str]
    start: str | None  # ISO 8601
    end: str | None  # None: still running
    until: str  # the end, or the clock for a running job: the window's end
    source: str


class SnapshotInfo(TypedDict):
    """Inventory.snapshots: a device's state captured when an alarm opened on it (the listing
    of one DeviceSnapshot row: what was read, what was not, the config's diff)."""

    id: int | None
    device: str
    taken_at: str  # ISO 8601
    alarm_id: int | None  # the alarm it was taken for (None: taken by hand or for a poll)
    source: str  # napalm | snmp
    read: list[str]  # what was read: facts, interfaces, lldp_neighbors ...
    interfaces: int
    interfaces_down: list[str]
    lldp_neighbors: int
    bgp_peers: int
    config: str  # first | unchanged | changed ("" when the config was not read)
    config_diff: str  # changed lines since the config snapshot before, '+'/'-'
    errors: list[str]  # what could not be read, one line each


class SnapshotDetail(SnapshotInfo):
    """One snapshot opened (Copilot.snapshot): its listing row and what was read, as NAPALM's
    getters returned it (interfaces, lldp_neighbors, bgp_neighbors ...)."""

    data: dict[str, Any]


class InterfaceInfo(TypedDict):
    """Inventory.interfaces: one port of a device."""

    device: str
    name: str
    speed_mbps: int
    mtu: int
    ip: str | None  # address/prefixlen
    admin_status: str
    oper_status: str
    description: str


class PortStatus(TypedDict):
    """Telemetry.oper_status: one port's history in the window (ports never down are left out)."""

    device: str
    interface: str
    state_at_start: str  # up | down
    transitions: int
    flaps: int  # transitions to down
    down_s: int  # seconds down within the window
    state_at_end: str
    events: str  # the first transitions, "YYYY-MM-DD HH:MM:SS state; ..." (UTC)
    admin_status: NotRequired[str]  # up | down at the window's end, where the source has it


class StatusRow(PortStatus, total=False):
    """The telemetry tool's oper_status row: the backend's, with what changed in the window
    (tools/port_answers/states.py)."""

    change: str  # appeared, went down, flapped ...
    changes: str  # the events column on the network's clock


class PortCounters(TypedDict, total=False):
    """Telemetry.counters: one port's aggregate of a metric; the figures depend on the metric."""

    device: Required[str]
    interface: Required[str]
    total: float  # errors, discards: the window's sum
    max_per_5min: float
    last_5min: float
    crc_total: float  # errors only
    max_pct: float  # utilization, percent of line rate
    avg_pct: float
    last_pct: float
    min_dbm: float  # rx_power
    avg_dbm: float
    last_dbm: float
    pfc_tx: float  # RoCE (common/roce.py ROCE_FIELDS): the metric's counters beside its total
    pfc_rx: float
    ecn_marks: float
    cnp_tx: float
    cnp_rx: float
    retransmits: float
    out_of_sequence: float


def figure(row: PortCounters, key: str) -> float:
    """A counters row's figure by name, for code that ranks on the metric's own key."""
    return cast(Mapping[str, float], row)[key]


class Hop(TypedDict):
    """Paths.traceroute: one hop of the path."""

    hop: int
    ip: str | None
    device: str | None  # the inventory's name, when the address is known
    interface: str | None  # where the probe came in
    out_interface: str | None
    rtt_ms: float | None
    loss_pct: float
    status: str  # ok, or the reason the path stopped (!X, !H, !N, !F, *)


class Failing(TypedDict):
    """Where the failing members of an ECMP group stop, when the main path got through."""

    device: str
    interface: str | None
    reason: str


class Trace(TypedDict, total=False):
    """Paths.traceroute: the path and its headline facts."""

    hops: Required[list[Hop]]
    reached: Required[bool]
    stopped_at: str | None  # the last device that answered, when not reached
    reason: str | None
    ecmp_paths: int  # distinct paths among the flows traced
    good_paths: int  # of those, how many got through
    path_devices: list[str]
    ecmp_devices: list[str]
    at: datetime  # when the path was traced (the lab: its clock)
    failing: Failing | None
    flows: int  # real traceroute: flows traced (UDP source ports)
    probe: str  # real traceroute: what traced it


class ChangeRecord(TypedDict):
    """Changes.changes: one change record overlapping the window."""

    ticket: str
    device: str
    site: str | None
    start: str  # ISO 8601
    end: str | None
    kind: str
    summary: str
    author: str
    status: str


class AlarmRecord(TypedDict, total=False):
    """Alarms.alarms: one alarm active at some time in the window."""

    id: Required[int]
    raised_at: Required[str]  # ISO 8601, the device's clock where known
    cleared_at: str | None
    state: Required[str]  # open | closed
    severity: str
    category: str
    kind: str
    device: str
    interface: str | None
    peer: str | None  # the device at the other end of the alarm's link
    peer_address: str | None  # a BGP alarm's neighbour address (the session over its link)
    message: str
    impact: str
    site: str | None
    source: str  # lab, snmp-trap, syslog, alertmanager ...
    traffic_lost: bool
    link_id: int | None


class AlarmRow(AlarmRecord, total=False):
    """The alarms tool's row: the backend's (tools/alarms.py keeps its COLUMNS) and, when asked
    to correlate, the alarm's case and whether it is that case's root."""

    group: str  # the case's id
    root: bool


class EventRecord(TypedDict, total=False):
    """Alarms.events: one event as received (a syslog line, a trap, an alert), understood or not."""

    at: Required[str]  # ISO 8601 on the device's clock (the receive time when it gave none)
    device: str | None
    interface: str | None
    source: Required[str]  # syslog | trap | alertmanager
    mnemonic: str | None  # the vendor's message id (LINK-3-UPDOWN, SNMP_TRAP_LINK_DOWN)
    kind: str | None  # the alarm kind it raised or cleared, None for a line only kept
    message: Required[str]
    count: int  # repeats within the dedupe window
    received_at: str
    skew_s: float | None  # the device's clock minus the receive time
    host: str  # the sender's address (a relay's), or the file it was loaded from
