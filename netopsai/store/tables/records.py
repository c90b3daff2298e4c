"""What the services keep beside the network: lab faults, config and alarm snapshots, raw
events and spool marks of ingest, SNMP counter state, incidents, acknowledgements, API tokens
and compute jobs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from netopsai.store.tables.columns import LAZY, big


class LabFault(SQLModel, table=True):
    """A fault injected into the lab; the simulator reads it for loss, latency and MTU."""
    model_config = LAZY

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
    model_config = LAZY

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
    model_config = LAZY

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
    model_config = LAZY

    name: str = Field(primary_key=True)  # host name and spool directory
    segment: int = 0
    offset: int = big()


class SnmpCounterState(SQLModel, table=True):
    """One interface's poll state (netopsai poll): the raw IF-MIB counters at `at`, the start of
    the CounterSample being accumulated (emitted once 5 minutes have passed), and what the last
    poll saw, whose oper-status change becomes an InterfaceEvent."""
    model_config = LAZY

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
    model_config = LAZY

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
    model_config = LAZY

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
    model_config = LAZY

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    token_hash: str = Field(index=True, unique=True)
    scopes: str = "read"  # comma-separated: read (every read-only call), confirm (incident memory)
    created_at: datetime
    revoked_at: datetime | None = None


class Job(SQLModel, table=True):
    """A compute job (a GPU training run): from a scheduler export (Slurm sacct/squeue, a
    Kubernetes pod list) or the lab. `hosts` are inventory host names, ranges expanded."""
    model_config = LAZY

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
    model_config = LAZY

    __table_args__ = (Index("ix_devsnap_dev_taken", "device", "taken_at"),)
    id: int | None = Field(default=None, primary_key=True)
    device: str
    taken_at: datetime
    alarm_id: int | None = Field(default=None, index=True)
    source: str = ""  # napalm | snmp
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    config_diff: str = ""
    errors: list[str] = Field(default_factory=list, sa_column=Column(JSON))  # what was not read
