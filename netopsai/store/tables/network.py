"""The network as the store knows it: sites, PoDs, segments, devices, interfaces, links,
host addresses, BGP sessions, filters, changes, alarms, port transitions and counters."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from netopsai.store.tables.columns import LAZY, big


class Meta(SQLModel, table=True):
    """Key/value facts about the store: lab clock, spec, scale, seed, state version."""
    model_config = LAZY

    key: str = Field(primary_key=True)
    value: str


class Site(SQLModel, table=True):
    model_config = LAZY
    name: str = Field(primary_key=True)
    region: str = ""
    description: str = ""


class Pod(SQLModel, table=True):
    model_config = LAZY
    name: str = Field(primary_key=True)
    site: str = Field(index=True)
    index: int = 0
    description: str = ""


class Segment(SQLModel, table=True):
    model_config = LAZY
    cidr: str = Field(primary_key=True)
    name: str = ""
    vlan: int = 0
    vrf: str = "default"
    gateway: str = ""
    site: str = Field(index=True)
    pod: str | None = Field(default=None, index=True)
    tor: str | None = Field(default=None, index=True)


class Device(SQLModel, table=True):
    model_config = LAZY
    __table_args__ = (Index("ix_device_site_role_pod", "site", "role", "pod"),)
    name: str = Field(primary_key=True)
    role: str = Field(index=True)
    vendor: str = ""
    model: str = ""
    os_version: str = ""
    mgmt_ip: str | None = Field(default=None, index=True)
    loopback: str | None = Field(default=None, index=True)
    asn: int | None = big(None)
    site: str = Field(index=True)
    pod: str | None = Field(default=None, index=True)
    rack: str | None = None
    status: str = "up"  # up | down | unreachable
    booted_at: datetime | None = None


class Interface(SQLModel, table=True):
    model_config = LAZY
    __table_args__ = (Index("ix_interface_device_name", "device", "name", unique=True),)
    id: int | None = Field(default=None, primary_key=True)
    device: str
    name: str
    speed_mbps: int = 0
    mtu: int = 9214
    ip: str | None = Field(default=None, index=True)  # address/prefixlen
    admin_status: str = "up"
    oper_status: str = "up"
    description: str = ""
    link_id: int | None = None


class InterfaceAddress(SQLModel, table=True):
    """Every address of an interface (a port may hold several, IPv4 and IPv6): ip_owner and the
    ingest's naming find a device by any of them. `Interface.ip` keeps the first, for the
    readers that show one; a lab store has only that (the lookups read both)."""
    model_config = LAZY

    __table_args__ = (Index("ix_ifaddr_device_interface", "device", "interface"),)
    id: int | None = Field(default=None, primary_key=True)
    device: str
    interface: str
    ip: str = Field(index=True)  # the address alone, as ipaddress writes it (2001:db8::1)
    prefixlen: int | None = None


class Link(SQLModel, table=True):
    model_config = LAZY
    id: int | None = Field(default=None, primary_key=True)
    a_device: str = Field(index=True)
    a_interface: str
    b_device: str = Field(index=True)
    b_interface: str
    kind: str = Field(index=True)  # host | fabric | backbone | dci
    circuit_id: str | None = None
    provider: str | None = None
    status: str = "up"


class HostAddress(SQLModel, table=True):
    model_config = LAZY
    ip: str = Field(primary_key=True)
    device: str = Field(index=True)
    interface: str = "eth0"
    segment: str = Field(index=True)
    tor: str = Field(index=True)
    tor_interface: str = ""
    pod: str | None = None
    site: str = ""


class BgpSession(SQLModel, table=True):
    model_config = LAZY
    id: int | None = Field(default=None, primary_key=True)
    link_id: int = Field(index=True)
    a_device: str = Field(index=True)
    b_device: str = Field(index=True)
    a_ip: str = ""
    b_ip: str = ""
    a_asn: int = big()
    b_asn: int = big()
    state: str = "established"  # established | idle
    since: datetime | None = None


class AclEntry(SQLModel, table=True):
    model_config = LAZY
    id: int | None = Field(default=None, primary_key=True)
    device: str = Field(index=True)
    seq: int = 10
    action: str = "deny"
    src: str = "0.0.0.0/0"
    dst: str = "0.0.0.0/0"
    name: str = ""
    created_at: datetime | None = None
    removed_at: datetime | None = None


class StaticRoute(SQLModel, table=True):
    model_config = LAZY
    id: int | None = Field(default=None, primary_key=True)
    device: str = Field(index=True)
    prefix: str
    next_hop: str = "Null0"  # Null0 is a blackhole
    created_at: datetime | None = None
    removed_at: datetime | None = None


class Change(SQLModel, table=True):
    model_config = LAZY
    __table_args__ = (Index("ix_change_start", "start"),)
    id: int | None = Field(default=None, primary_key=True)
    ticket: str = Field(index=True)
    device: str = Field(index=True)
    site: str = Field(default="", index=True)
    start: datetime
    end: datetime | None = None
    kind: str = "config"
    summary: str = ""
    author: str = ""
    status: str = "completed"  # scheduled | in_progress | completed | rolled_back


class Alarm(SQLModel, table=True):
    model_config = LAZY
    __table_args__ = (Index("ix_alarm_raised", "raised_at"),)
    id: int | None = Field(default=None, primary_key=True)
    kind: str
    category: str = Field(index=True)  # link | device | bgp | dci | backbone | optics | capacity
    severity: str = "major"
    device: str = Field(index=True)
    interface: str | None = None
    link_id: int | None = None
    site: str = Field(default="", index=True)
    raised_at: datetime
    cleared_at: datetime | None = None
    state: str = "open"  # open | closed
    message: str = ""
    # the neighbour a session alarm's message names (a BGP peer's address, an OSPF router id,
    # an IS-IS system name): the peer of a session no inventory row describes
    neighbor: str | None = None
    source: str = "lab"
    impact: str = "none"  # traffic_lost | degraded | none
    traffic_lost: bool = False


class InterfaceEvent(SQLModel, table=True):
    """An oper-status transition."""
    model_config = LAZY

    __table_args__ = (Index("ix_ifevent_at", "at"), Index("ix_ifevent_dev_if", "device", "interface"))
    id: int | None = Field(default=None, primary_key=True)
    device: str
    interface: str
    at: datetime
    state: str  # up | down
    reason: str = ""


COUNTER_FIELDS = ("in_octets", "out_octets", "in_errors", "crc_errors", "in_discards",
                  "out_discards", "rx_power_dbm")  # the sample's measured values


class CounterSample(SQLModel, table=True):
    """A 5-minute sample: octets and error counts are deltas over the interval."""
    model_config = LAZY

    __table_args__ = (Index("ix_sample_dev_if_at", "device", "interface", "at"),
                      Index("ix_sample_at", "at"))
    id: int | None = Field(default=None, primary_key=True)
    device: str
    interface: str
    at: datetime
    in_octets: int = big()
    out_octets: int = big()
    in_errors: int = big()
    crc_errors: int = big()
    in_discards: int = big()
    out_discards: int = big()
    rx_power_dbm: float | None = None
    source: str = "lab"


class CounterRollup(SQLModel, table=True):
    """One port's hour of CounterSamples (netopsai.store.retention), kept after the samples are
    pruned: `at` ends the hour, as a sample's `at` ends its 5 minutes. Sums, the largest
    5-minute figure and the hour's last one, so the telemetry tool gives the same totals,
    peaks and averages over a long window, at hourly detail. `io` is max(in, out) octets."""
    model_config = LAZY

    __table_args__ = (Index("ix_rollup_dev_if_at", "device", "interface", "at"),
                      Index("ix_rollup_at", "at"))
    id: int | None = Field(default=None, primary_key=True)
    device: str
    interface: str
    at: datetime
    samples: int = 0
    in_octets: int = big()
    out_octets: int = big()
    in_errors: int = big()
    crc_errors: int = big()
    discards: int = big()  # in + out
    io_sum: int = big()
    errors_max: int = big()
    discards_max: int = big()
    io_max: int = big()
    errors_last: int = big()
    discards_last: int = big()
    io_last: int = big()
    rx_min: float | None = None
    rx_sum: float = 0.0
    rx_samples: int = 0
    rx_last: float | None = None
    source: str = ""
