"""One Protocol per data source (like napalm's getters): the tools read only through these. The
rows each method returns are typed in rows.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypedDict

from netopsai.backends.rows import (
    AlarmRecord,
    ChangeRecord,
    DeviceDetail,
    DeviceInfo,
    EventRecord,
    FilterRule,
    HostInfo,
    InterfaceInfo,
    IpOwner,
    JobInfo,
    Neighbor,
    PodInfo,
    PortCounters,
    PortStatus,
    SegmentInfo,
    SiteInfo,
    SnapshotInfo,
    Trace,
    Uplink,
)
from netopsai.common.timewin import Window

Row = dict[str, Any]


class IfaceSel(TypedDict, total=False):
    """Which interfaces: devices by name, or by role/site/pod; optionally one interface name."""

    devices: list[str]
    role: str
    site: str
    pod: str
    interface: str


class Inventory(Protocol):
    def clock(self) -> datetime: ...
    def sites(self) -> list[SiteInfo]: ...
    def pods(self, site: str | None) -> list[PodInfo]: ...
    def segments(self, site: str | None, pod: str | None) -> list[SegmentInfo]: ...
    def devices(self, site: str | None, pod: str | None, role: str | None,
                name: str | None) -> list[DeviceInfo]: ...
    def device(self, name: str) -> DeviceDetail: ...
    def hosts(self, site: str | None, pod: str | None, name: str | None) -> list[HostInfo]: ...
    def ip_owner(self, ip: str) -> IpOwner: ...
    def neighbors(self, name: str) -> list[Neighbor]: ...
    def filters(self, name: str) -> list[FilterRule]: ...
    def snapshots(self, name: str) -> list[SnapshotInfo]: ...
    def spelled(self, names: list[str]) -> dict[str, str]: ...
    def jobs(self, job: str | None, host: str | None) -> list[JobInfo]: ...
    def interfaces(self, name: str) -> list[InterfaceInfo]: ...
    def upstream(self, name: str | None, ip: str | None) -> list[Uplink]: ...
    def check_names(self, devices: list[str] | None = None, site: str | None = None,
                    pod: str | None = None, role: str | None = None) -> None: ...


class Telemetry(Protocol):
    def oper_status(self, sel: IfaceSel, window: Window) -> tuple[list[PortStatus], int]: ...
    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]: ...


class Paths(Protocol):
    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Trace: ...


class Changes(Protocol):
    def changes(self, devices: list[str] | None, site: str | None, ticket: str | None,
                window: Window) -> list[ChangeRecord]: ...


class Alarms(Protocol):
    def alarms(self, category: str | None, state: str, devices: list[str] | None,
               site: str | None, window: Window) -> list[AlarmRecord]: ...

    def events(self, devices: list[str] | None, window: Window, *, interface: str | None = None,
               mnemonic: str | None = None, text: str | None = None, source: str | None = None,
               limit: int = 200) -> tuple[list[EventRecord], int]:
        """Received events on the device's clock in the window (an interface in any of its
        names), the latest `limit` of them in time order, and how many matched in all."""
        ...


@dataclass
class Backends:
    """The sources one copilot reads; each can be swapped independently by configuration."""

    inventory: Inventory
    telemetry: Telemetry
    paths: Paths
    changes: Changes
    alarms: Alarms
    zone: str = "UTC"  # the network's default zone (ingest.timezone): times given without one
    domains: tuple[str, ...] = ()  # ingest.domains: suffixes host names carry (planner/hostnames.py)
