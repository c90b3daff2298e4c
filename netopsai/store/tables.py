"""The store's tables (SQLModel). Times are UTC (SQLModel stores aware datetimes); device names
are the inventory's names.

Counter samples hold measured or anomalous 5-minute samples; the lab's healthy baseline
counters are synthesised on read (netopsai.lab.counters) so that a 10,000-device lab with a
week of history fits in seconds and megabytes, not 100M rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index
from sqlmodel import Field, SQLModel


def big(default: int | None = 0) -> Any:
    """A 64-bit integer column: ASNs (4-byte), counters (Counter64, octets per interval),
    sysUpTime ticks and file offsets pass 2**31, which PostgreSQL's INTEGER cannot hold."""
    return Field(default=default, sa_type=BigInteger)


class Meta(SQLModel, table=True):
    """Key/value facts about the store: lab clock, spec, scale, seed, state version."""

    key: str = Field(primary_key=True)
    value: str


class Site(SQLModel, table=True):
    name: str = Field(primary_key=True)
    region: str = ""
    description: str = ""


class Pod(SQLModel, table=True):
    name: str = Field(primary_key=True)
    site: str = Field(index=True)
    index: int = 0
    description: str = ""


class Segment(SQLModel, table=True):
    cidr: str = Field(primary_key=True)
    name: str = ""
    vlan: int = 0
    vrf: str = "default"
    gateway: str = ""
    site: str = Field(index=True)
    pod: str | None = Field(default=None, index=True)
    tor: str | None = Field(default=None, index=True)


class Device(SQLModel, table=True):
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


class Link(SQLModel, table=True):
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
    ip: str = Field(primary_key=True)
    device: str = Field(index=True)
    interface: str = "eth0"
    segment: str = Field(index=True)
    tor: str = Field(index=True)
    tor_interface: str = ""
    pod: str | None = None
    site: str = ""


class BgpSession(SQLModel, table=True):
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
    id: int | None = Field(default=None, primary_key=True)
    device: str = Field(index=True)
    prefix: str
    next_hop: str = "Null0"  # Null0 is a blackhole
    created_at: datetime | None = None
    removed_at: datetime | None = None


class Change(SQLModel, table=True):
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
    source: str = "lab"
    impact: str = "none"  # traffic_lost | degraded | none
    traffic_lost: bool = False


class InterfaceEvent(SQLModel, table=True):
    """An oper-status transition."""

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


class LabFault(SQLModel, table=True):
    """A fault injected into the lab; the simulator reads it for loss, latency and MTU."""

    id: int | None = Field(default=None, primary_key=True)
    kind: str
    device: str | None = Field(default=None, index=True)
    interface: str | None = None
    link_id: int | None = None
    start: datetime
    end: datetime | None = None
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))


class ConfigSnapshot(SQLModel, table=True):
    """A device's running configuration as read by NAPALM get_config (diffs become Change rows)."""

    __table_args__ = (Index("ix_cfgsnap_dev_taken", "device", "taken_at"),)
    id: int | None = Field(default=None, primary_key=True)
    device: str
    taken_at: datetime
    running: str = ""
    sha256: str = Field(default="", index=True)


class RawEvent(SQLModel, table=True):
    """Every event the ingest receivers took in (trap, syslog line, Alertmanager alert), as
    received: unknown lines are kept here, never dropped. `key` matches a clear to its raise;
    `alarm_id` is the alarm the event raised, joined or cleared; `count` counts retransmissions
    of the same event within the dedupe window."""

    __table_args__ = (Index("ix_rawevent_received", "received_at"), Index("ix_rawevent_at", "at"),
                      Index("ix_rawevent_device_at", "device", "at"))
    id: int | None = Field(default=None, primary_key=True)
    received_at: datetime
    at: datetime | None = None  # on the device's clock (the receive time when it has none)
    device_time: datetime | None = None  # what the device's clock said, believed or not
    skew_s: float | None = None  # the device's clock minus the receive time
    source: str = Field(index=True)  # trap | syslog | alertmanager
    host: str = ""  # the sender's address (a relay's, for devices behind one)
    hostname: str | None = None  # the name the event itself gives (syslog HOSTNAME, sysName)
    device: str | None = None  # the inventory's name for it (else the name given, else `host`)
    interface: str | None = None
    program: str | None = None  # the process or node that logged it
    mnemonic: str | None = None  # the vendor's message id
    fingerprint: str | None = Field(default=None, index=True)  # equal for the same event twice
    facility: str | None = None
    severity: str | None = None
    message: str = ""
    kind: str | None = None  # the alarm kind it parsed to, None when unknown
    key: str | None = Field(default=None, index=True)
    alarm_id: int | None = Field(default=None, index=True)
    count: int = 1


class SpoolMark(SQLModel, table=True):
    """How far an ingest spool (netopsai.store.spool) is written into the store: updated in the
    same transaction as the events, so a restart replays exactly what is missing."""

    name: str = Field(primary_key=True)  # host name and spool directory
    segment: int = 0
    offset: int = big()


class SnmpCounterState(SQLModel, table=True):
    """One interface's poll state (netopsai poll): the raw IF-MIB counters at `at`, the start of
    the CounterSample being accumulated (emitted once 5 minutes have passed), and what the last
    poll saw, whose oper-status change becomes an InterfaceEvent."""

    device: str = Field(primary_key=True)
    if_index: int = Field(primary_key=True)
    interface: str = ""
    at: datetime  # when the counters below were read
    seen_at: datetime | None = None  # the last poll
    uptime_cs: int | None = big(None)  # sysUpTime at the last poll: going backwards means a restart
    oper_status: str = "unknown"  # at the last poll
    in_octets: int | None = big(None)
    out_octets: int | None = big(None)
    in_errors: int | None = big(None)
    in_discards: int | None = big(None)
    out_discards: int | None = big(None)


class Incident(SQLModel, table=True):
    """A diagnosis the on-call confirmed: incident memory (netopsai.diagnosis.memory) matches
    new symptoms against these. Kept in NETOPSAI_HOME/incidents.db so a lab reset keeps them."""

    id: int | None = Field(default=None, primary_key=True)
    symptoms: str  # the symptom text the diagnosis indexed (trace stop, alarms on the flow)
    label: str = Field(index=True)
    device: str | None = None
    interface: str | None = None
    evidence_summary: str = ""
    question: str = ""
    confirmed_by: str = ""  # who confirmed: cli user, gradio user, slack user, import
    source: str = ""  # confirm | import | gradio | slack
    at: datetime


class AlarmAck(SQLModel, table=True):
    """What an on-call did about an alarm: acknowledged, silenced (until a time) or took the
    acknowledgement back. Kept in our store only, never sent to a device; the latest action of
    an alarm decides its state (netopsai.store.acks)."""

    id: int | None = Field(default=None, primary_key=True)
    alarm_id: int = Field(index=True)
    action: str  # ack | silence | unack
    by: str
    why: str = ""
    at: datetime  # the network's clock (the lab's in the lab), as the alarms' own times
    until: datetime | None = None  # silence only


class ApiToken(SQLModel, table=True):
    """A bearer token for the HTTP API (netopsai.api.tokens). Only the token's SHA-256 is kept:
    the token itself is shown once, when it is made."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    token_hash: str = Field(index=True, unique=True)
    scopes: str = "read"  # comma-separated: read (every read-only call), confirm (incident memory)
    created_at: datetime
    revoked_at: datetime | None = None


class Job(SQLModel, table=True):
    """A compute job (a GPU training run): from a scheduler export (Slurm sacct/squeue, a
    Kubernetes pod list) or the lab. `hosts` are inventory host names, ranges expanded."""

    __table_args__ = (Index("ix_job_start", "start"),)
    id: str = Field(primary_key=True)  # the scheduler's job id, e.g. "4711"
    name: str = ""
    owner: str = ""
    hosts: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    start: datetime | None = None
    end: datetime | None = None  # None: still running
    state: str = ""  # the scheduler's, e.g. RUNNING, FAILED, TIMEOUT
    source: str = ""  # slurm | kubernetes | lab


class DeviceSnapshot(SQLModel, table=True):
    """A device's state captured when an alarm opened on it (interfaces and counters, LLDP and
    BGP neighbours, environment, optics, the running config's diff from the last snapshot)."""

    __table_args__ = (Index("ix_devsnap_dev_taken", "device", "taken_at"),)
    id: int | None = Field(default=None, primary_key=True)
    device: str
    taken_at: datetime
    alarm_id: int | None = Field(default=None, index=True)
    source: str = ""  # napalm | snmp
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    config_diff: str = ""
    errors: list[str] = Field(default_factory=list, sa_column=Column(JSON))  # what was not read
