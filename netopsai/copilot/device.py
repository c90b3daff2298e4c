"""The device page's reads behind the copilot's door (`Copilot.device`): which device a name
stands for (an inventory name, its address or full name, or a device known only from its log
lines) and the copilot's own tool calls for each panel, so the page shows exactly what an
answer would cite. The front end only renders the `DeviceView` it gets back. Each read is a
tool call of its own (doors.call_tool: E1), as the page always made them."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, tzinfo
from typing import Any

from netopsai.backends.base import Backends
from netopsai.backends.rows import DeviceDetail, DeviceInfo
from netopsai.common.zones import zone_of
from netopsai.config.domains import device_key
from netopsai.copilot.doors import call_tool
from netopsai.copilot.evidence import Evidence, rows_of
from netopsai.planner.hostnames import (
    FQDN,
    Logged,
    also_stored,
    inventory_name,
    logged_lookup,
    owner_lookup,
)

__all__ = ["DevicePanels", "DeviceView", "Logged", "LoggedPanels", "device_names",
           "device_picker", "is_address", "read_device"]

EVENTS_SHOWN = 20
PROMPT = "Pick a device, or open the app at ?device=NAME."


@dataclass
class DevicePanels:
    """An inventory device's reads, one tool answer per panel."""

    device: DeviceDetail  # the inventory's row (metadata device)
    interfaces: Evidence
    telemetry: Evidence  # oper_status over the window
    neighbours: Evidence
    filters: Evidence  # traffic-dropping rules in force
    open_alarms: Evidence
    cases: Evidence  # the window's alarms, correlated (facts.cases)
    changes: Evidence
    events: Evidence
    snapshots: Evidence

    def all(self) -> list[Evidence]:
        return [self.interfaces, self.telemetry, self.neighbours, self.filters, self.open_alarms,
                self.cases, self.changes, self.events, self.snapshots]


@dataclass
class LoggedPanels:
    """A device known only from its log lines: what it is known from, its open alarms, the
    window's alarms (for cases) and its latest lines."""

    found: Logged
    open_alarms: Evidence
    cases: Evidence
    events: Evidence

    def all(self) -> list[Evidence]:
        return [self.open_alarms, self.cases, self.events]


@dataclass
class DeviceView:
    """One device page's model. With neither `inventory` nor `logged`, `status` says why
    nothing is shown (no name yet, the tools' one-line error) and `errors` carries a bad
    window's error."""

    name: str = ""
    zone: tzinfo = UTC
    status: str = ""
    errors: list[str] = field(default_factory=list)
    inventory: DevicePanels | None = None
    logged: LoggedPanels | None = None


def zone_info(zone: str | tzinfo | None) -> tzinfo:
    if zone is None or isinstance(zone, tzinfo):
        return zone or UTC
    return zone_of(zone) or UTC


def device_names(backends: Backends) -> list[str]:
    """Every network device's name, for the picker (hosts are reachable by typing them)."""
    ev = call_tool(backends, "metadata", {"query": "devices"})
    return [str(r["name"]) for r in rows_of(ev, DeviceInfo)]


def is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _host_names(backends: Backends) -> list[str]:
    """The inventory's hosts and GPU hosts: they may log too, and are not new devices."""
    try:
        hosts = backends.inventory.hosts(None, None, None)
        gpus = backends.inventory.devices(None, None, "gpu_host", None)
    except Exception:  # noqa: BLE001 - an inventory without hosts lists none
        return []
    return [str(h["name"]) for h in [*hosts, *gpus]]


def device_picker(backends: Backends) -> tuple[list[str], list[str]]:
    """The picker's two lists: every inventory device, then every device known only from its
    log lines, once whatever spellings it is stored under. Lines the inventory owns (its
    devices and hosts by any stored spelling, its addresses) are no such device."""
    names = device_names(backends)
    known = {device_key(n, backends.domains) for n in [*names, *_host_names(backends)]}
    owner = owner_lookup(backends.inventory)
    logged = logged_lookup(backends.alarms, backends.domains, backends.inventory.clock).known()
    provisional = [min(stored, key=len) for key, stored in sorted(logged.items())
                   if key not in known and not (is_address(stored[0]) and owner(stored[0]))]
    return names, provisional


def _calls(backends: Backends) -> Callable[..., Evidence]:
    def call(tool: str, **args: Any) -> Evidence:
        return call_tool(backends, tool, args)
    return call


def _also(backends: Backends, name: str) -> Callable[[str, str], list[str]]:
    """(tool, window) -> the other names the events store holds this device under (with or
    without an `ingest.domains` suffix: lines loaded before the inventory or the setting)."""
    logged = logged_lookup(backends.alarms, backends.domains, backends.inventory.clock)
    return lambda tool, window: also_stored(logged, [name], tool, window)


def read_device(backends: Backends, name: str, window: str = "24h") -> DeviceView:
    """The reads of one device's page. An unknown name (or a bad window) comes back as the
    tools' one-line error, with their suggestions; a tool that fails leaves its own errors."""
    name, window = (name or "").strip(), (window or "24h").strip()
    if not name:
        return DeviceView(status=PROMPT)
    zone = zone_info(backends.zone)
    dev = call_tool(backends, "metadata", {"query": "device", "name": name})
    if dev.errors:  # an inventory device's address or FQDN, one known from its logs, or the error
        other = _known_as(backends, name)
        if other is not None and other != name:
            return read_device(backends, other, window)
        logged = _logged(backends, name, window)
        if logged is None:
            return DeviceView(name=name, zone=zone, status=dev.errors[0])
        return DeviceView(name=logged.found.name, zone=zone, logged=logged)
    name = str(rows_of(dev, DeviceDetail)[0]["name"])
    call = _calls(backends)
    also = _also(backends, name)  # its lines stored under another spelling too
    ifaces = call("metadata", query="interfaces", name=name)
    tele = call("telemetry", metric="oper_status", devices=[name], window=window, top=1000)
    if tele.errors:  # a bad window: the one line that says so, before nine panels of nothing
        return DeviceView(name=name, zone=zone, status=tele.errors[0], errors=tele.errors)
    panels = DevicePanels(
        rows_of(dev, DeviceDetail)[0], ifaces, tele, call("metadata", query="neighbors", name=name),
        call("metadata", query="filters", name=name),
        call("alarms", devices=[name, *also("alarms", window)], state="open", window=window),
        call("alarms", state="any", correlate=True, window=window),
        call("changelog", devices=[name], window=_changes_window(window)),
        call("events", devices=[name, *also("events", window)], window=window, limit=EVENTS_SHOWN),
        call("metadata", query="snapshots", name=name))
    return DeviceView(name=name, zone=zone, inventory=panels)


CHANGES_AT_LEAST = "7d"  # a change three days before the alarm is still the first suspect


def _changes_window(window: str) -> str:
    from netopsai.common.timewin import parse_duration

    try:
        longer = parse_duration(window) >= parse_duration(CHANGES_AT_LEAST)
    except Exception:  # a START..END window: the tool says what is wrong with it, if anything
        return window
    return window if longer else CHANGES_AT_LEAST


def _known_as(backends: Backends, name: str) -> str | None:
    """The inventory device a page was asked for by its address (management, loopback, a
    port's) or its fully qualified name (any case, `ingest.domains`): as syslog headers and
    answers name devices."""
    if is_address(name):
        return owner_lookup(backends.inventory)(name)
    if FQDN.fullmatch(name):
        lowered = {n.lower(): n for n in device_names(backends)}
        return inventory_name(name, lowered, backends.domains)
    return None


def _logged(backends: Backends, name: str, window: str) -> LoggedPanels | None:
    """A device the inventory does not know but whose lines the store holds, with its panels
    read under every name it is stored as; None when it logged nothing either."""
    logged = logged_lookup(backends.alarms, backends.domains, backends.inventory.clock)
    found = logged(name)
    if found is None:
        return None
    call = _calls(backends)
    alarmed = [found.name, *also_stored(logged, [found.name], "alarms", window)]
    return LoggedPanels(found, call("alarms", devices=alarmed, state="open", window=window),
                        call("alarms", state="any", correlate=True, window=window),
                        call("events", devices=[found.name, *found.aliases], window=window,
                             limit=EVENTS_SHOWN))
