"""The Device tab for a name the inventory does not hold as such: a device's address or fully
qualified name opens that device's page; a device the inventory does not know but whose log
lines the store holds (a provisional device: a new switch, a host name the inventory spells
otherwise) shows its log lines and alarms, and one line that says it is not in the inventory
and where its lines came from — never an "unknown device" error that hides them (issue 24
item 2)."""

from __future__ import annotations

import html
import ipaddress
from datetime import tzinfo
from typing import Any

from netopsai.backends.base import Backends
from netopsai.common.words import count
from netopsai.config.domains import device_key
from netopsai.copilot.doors import call_tool
from netopsai.copilot.evidence import Evidence
from netopsai.planner.hostnames import (
    FQDN,
    Logged,
    also_stored,
    inventory_name,
    logged_lookup,
    owner_lookup,
)
from netopsai.ui.gradio.device import (
    EVENTS_SHOWN,
    DevicePage,
    _alarms_frame,
    _cases_frame,
    _events_frame,
    device_names,
    device_page,
    when,
)

_AMBER = "#b45309"
FROM_LOGS = "from logs, not in the inventory"  # how the picker marks a provisional device


def picker_choices(backends: Backends) -> list[tuple[str, str]]:
    """The Device tab's picker, as (label, name): every inventory device, then every device
    known only from its log lines, marked so ("leaf9.example.net · from logs, not in the
    inventory") and listed once whatever spellings it is stored under. Lines the inventory
    owns (its devices and hosts by any stored spelling, its addresses) are no such device."""
    names = device_names(backends)
    known = {device_key(n, backends.domains) for n in [*names, *_host_names(backends)]}
    owner = owner_lookup(backends.inventory)
    logged = logged_lookup(backends.alarms, backends.domains, backends.inventory.clock).known()
    provisional = [min(stored, key=len) for key, stored in sorted(logged.items())
                   if key not in known and not (is_address(stored[0]) and owner(stored[0]))]
    return [(n, n) for n in names] + [(f"{n} · {FROM_LOGS}", n) for n in provisional]


def _host_names(backends: Backends) -> list[str]:
    """The inventory's hosts and GPU hosts: they may log too, and are not new devices."""
    try:
        hosts = backends.inventory.hosts(None, None, None)
        gpus = backends.inventory.devices(None, None, "gpu_host", None)
    except Exception:  # noqa: BLE001 - an inventory without hosts lists none
        return []
    return [str(h["name"]) for h in [*hosts, *gpus]]


def logged_device(backends: Backends, name: str) -> Logged | None:
    """The device as the events store names it (any case, with or without a configured domain),
    when it logged anything and is not in the inventory."""
    return logged_lookup(backends.alarms, backends.domains, backends.inventory.clock)(name)


def logged_facts(found: Logged) -> str:
    """The card in place of the inventory's facts: what the device is known from."""
    return (f'<div class="np-device"><h3 style="margin:0 0 6px">{html.escape(found.name)} '
            f'<span style="color:{_AMBER}">● not in the inventory</span></h3>'
            f"<p style=\"margin:0\">{html.escape(found.note())}. Shown: its log lines and the "
            "alarms they raised; add it to the inventory for its ports, neighbours and "
            "counters.</p></div>")


def logged_panels(backends: Backends, found: Logged, window: str,
                  shown: int) -> tuple[Evidence, Evidence, Evidence]:
    """Its open alarms, the window's alarms (for cases) and its latest log lines in the window,
    under every name it is stored as (with and without a configured domain)."""
    def call(tool: str, **args: Any) -> Evidence:
        return call_tool(backends, tool, args)
    logged = logged_lookup(backends.alarms, backends.domains, backends.inventory.clock)
    alarmed = [found.name, *also_stored(logged, [found.name], "alarms", window)]
    return (call("alarms", devices=alarmed, state="open", window=window),
            call("alarms", state="any", correlate=True, window=window),
            call("events", devices=[found.name, *found.aliases], window=window, limit=shown))


def logged_status(found: Logged, alarms: int, lines: int, window: dict[str, Any] | None,
                  zone: tzinfo) -> str:
    """One line, as a known device's: what is shown, in which window, and that it is provisional."""
    span = (f" · window {when(window.get('start'), zone)} .. {when(window.get('end'), zone)}"
            if window else "")
    return (f"{found.name} (not in the inventory): {count(alarms, 'open alarm')} · "
            f"{count(lines, 'log line')} in the window of {found.lines} seen{span}")


def logged_page(backends: Backends, name: str, window: str, zone: tzinfo) -> DevicePage | None:
    """The page of a device known only from its logs; None when it logged nothing either."""
    found = logged_device(backends, name)
    if found is None:
        return None
    open_alarms, cases, events = logged_panels(backends, found, window, EVENTS_SHOWN)
    page = DevicePage(name=found.name, facts=logged_facts(found),
                      alarms=_alarms_frame(open_alarms.rows, zone),
                      cases=_cases_frame(cases, found.name, zone),
                      events=_events_frame(events.rows, zone),
                      errors=[f"{e.tool}: {err}" for e in (open_alarms, cases, events)
                              for err in e.errors])
    page.status = logged_status(found, len(page.alarms), len(page.events), events.window, zone)
    return page


def known_as(backends: Backends, name: str) -> str | None:
    """The inventory device a page was asked for by its address (management, loopback, a
    port's) or its fully qualified name (any case, `ingest.domains`): as syslog headers and
    answers name devices."""
    if is_address(name):
        return owner_lookup(backends.inventory)(name)
    if FQDN.fullmatch(name):
        lowered = {n.lower(): n for n in device_names(backends)}
        return inventory_name(name, lowered, backends.domains)
    return None


def is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def not_in_inventory(backends: Backends, name: str, window: str,
                     zone: tzinfo) -> DevicePage | None:
    """The page for a name the inventory does not hold as such: the device it stands for, else
    the device known only from its logs; None when it is neither."""
    other = known_as(backends, name)
    if other is not None and other != name:
        return device_page(backends, other, window)
    return logged_page(backends, name, window, zone)
