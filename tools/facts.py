"""The headline facts each tool's Evidence carries (`Evidence.facts`), as TypedDicts: the tools
build them typed, so mypy checks the writers, and readers take them typed through
`facts_of(ev, TraceFacts)` (copilot/evidence.py), so mypy checks every key they name. At run
time they are the plain dicts a thread's JSON holds. Kept here, below the copilot and beside the
tools that write them, so the tools, the diagnosis, the copilot and the front ends can all
import them (the import contract); the diagnosis' own rail check writes `RailFacts`.

No `from __future__ import annotations` here: with it, Python 3.11 cannot see `Required` and
`NotRequired` in a class's `__required_keys__` (tests/tools/test_tool_facts.py reads them)."""

from typing import NotRequired, Required, TypedDict

from netopsai.backends.rows import Failing


class TraceFacts(TypedDict):
    """traceroute: whether the path got through, where it stopped and its equal-cost paths."""

    reached: bool
    stopped_at: str | None  # the last device that answered, when not reached
    reason: str | None
    hops: int  # the hops the trace shows
    ecmp_paths: int  # distinct paths among the flows traced (0: stopped before any choice)
    good_paths: int  # of those, how many got through
    path_devices: list[str]
    ecmp_devices: list[str]
    failing: Failing | None  # where the failing members stop when the main path got through


class CaseImpact(TypedDict, total=False):
    """An alarm case's blast radius (tools/alarm_cases/topology.py)."""

    dcs: list[str]
    pods: list[str]
    segments: list[str]
    devices: int
    traffic_lost: bool
    root_device: str | None
    summary: str


class CaseSnapshot(TypedDict):
    """A device snapshot taken when a case's alarm opened (or just before it)."""

    id: int | None  # as the inventory lists it (SnapshotInfo)
    device: str
    taken_at: str
    alarm: int | None


class AlarmCase(TypedDict, total=False):
    """One case of correlated alarms, as the alarms tool lists it (`Case.as_dict`)."""

    case: Required[str]  # C1, C2 ...
    rule: str
    root_alarm: int | None
    root_kind: str | None
    root_device: str | None
    root_interface: str | None
    alarms: int
    member_ids: list[int | None]
    devices: list[str]
    unknown_device: bool
    state: str  # open | closed
    first_raised: str
    reason: str
    impact: CaseImpact
    snapshots: list[CaseSnapshot]
    senders: list[str]  # a device not in the inventory: where its events came from


class UnknownDevice(TypedDict):
    """An alarmed device the inventory does not know, its senders and its cases."""

    device: str
    senders: list[str]
    cases: list[str]


class AlarmFacts(TypedDict, total=False):
    """alarms: the counts, and with `correlate` the cases."""

    alarms: Required[int]
    open: Required[int]
    closed: Required[int]
    traffic_lost: Required[int]
    devices: Required[list[str]]
    categories: Required[list[str]]
    groups: int
    compression: float
    cases: list[AlarmCase]
    note: str  # why the alarms were not grouped
    snapshots_error: str
    unknown_devices: list[UnknownDevice]


class TelemetryFacts(TypedDict):
    """telemetry, whatever it read: the ports in scope, and the devices not read."""

    ports: int
    unread_devices: NotRequired[list[str]]  # a live backend could not read them


class PortStateFacts(TelemetryFacts):
    """telemetry, port status over a window (tools/port_answers/states.py)."""

    up_throughout: int
    changed: int
    down_now: int
    flapping: int
    went_down: int
    came_back: int
    down_and_back: int
    newly_down: int
    admin_down: int
    never_up: int


class CounterFacts(TelemetryFacts):
    """telemetry, a counter metric: how many ports, and how many crossed its line."""

    flagged: int
    metric: str


class MetadataFacts(TypedDict):
    """metadata: how many rows the query gave."""

    count: int
    query: str


class ChangeFacts(TypedDict):
    """changelog: the changes and the devices they touch."""

    changes: int
    devices: list[str]


class EventFacts(TypedDict):
    """events: how many matched, how many are shown, and by mnemonic."""

    events: int
    shown: int
    by_mnemonic: dict[str, int]
    devices: list[str]
    unverified: int  # named a device from an address that is not its own nor a relay


class RailCount(TypedDict):
    """One rail of a job's rail check: its hosts, pairs checked and pairs failing."""

    hosts: int
    checked: int
    failing: int


class Culprit(TypedDict, total=False):
    """What a rail's failing pairs point at: one host's NIC, else the rail's leaves."""

    device: Required[str | None]
    interface: Required[str | None]
    kind: Required[str]  # nic | rail
    leaf: str | None
    leaves: list[str]


class RailFacts(TypedDict):
    """rail_traces (the diagnosis' job rail check, diagnosis/job_rails.py)."""

    checked: int
    failing: int  # failing pairs
    rails: dict[str, RailCount]  # by rail number
    how: list[str]
    culprits: dict[str, Culprit]  # by failing rail
    placement: NotRequired[dict[str, dict[str, list[str]]]]  # leaf -> uplink -> flows on it
