"""The Device tab for a name the inventory does not hold as such: a device's address or fully
qualified name opens that device's page; a device the inventory does not know but whose log
lines the store holds (a provisional device: a new switch, a host name the inventory spells
otherwise) shows its log lines and alarms, and one line that says it is not in the inventory
and where its lines came from — never an "unknown device" error that hides them (issue 24
item 2)."""

from __future__ import annotations

import html
from datetime import tzinfo
from typing import Any

from netopsai.backends.base import Backends
from netopsai.backends.rows import AlarmRecord, EventRecord
from netopsai.common.words import count
from netopsai.copilot.device import Logged, LoggedPanels, device_picker, is_address
from netopsai.copilot.evidence import rows_of
from netopsai.ui.gradio.device import (
    DevicePage,
    _alarms_frame,
    _cases_frame,
    _events_frame,
    when,
)

__all__ = ["FROM_LOGS", "is_address", "logged_page", "picker_choices"]

_AMBER = "#b45309"
FROM_LOGS = "from logs, not in the inventory"  # how the picker marks a provisional device


def picker_choices(backends: Backends) -> list[tuple[str, str]]:
    """The Device tab's picker, as (label, name): every inventory device, then every device
    known only from its log lines, marked so ("leaf9.example.net · from logs, not in the
    inventory"), as the copilot lists them (copilot/device.py's device_picker)."""
    names, provisional = device_picker(backends)
    return [(n, n) for n in names] + [(f"{n} · {FROM_LOGS}", n) for n in provisional]


def logged_facts(found: Logged) -> str:
    """The card in place of the inventory's facts: what the device is known from."""
    return (f'<div class="np-device"><h3 style="margin:0 0 6px">{html.escape(found.name)} '
            f'<span style="color:{_AMBER}">● not in the inventory</span></h3>'
            f"<p style=\"margin:0\">{html.escape(found.note())}. Shown: its log lines and the "
            "alarms they raised; add it to the inventory for its ports, neighbours and "
            "counters.</p></div>")


def logged_status(found: Logged, alarms: int, lines: int, window: dict[str, Any] | None,
                  zone: tzinfo) -> str:
    """One line, as a known device's: what is shown, in which window, and that it is provisional."""
    span = (f" · window {when(window.get('start'), zone)} .. {when(window.get('end'), zone)}"
            if window else "")
    return (f"{found.name} (not in the inventory): {count(alarms, 'open alarm')} · "
            f"{count(lines, 'log line')} in the window of {found.lines} seen{span}")


def logged_page(panels: LoggedPanels, zone: tzinfo) -> DevicePage:
    """The page of a device known only from its logs (the copilot found it and read its panels)."""
    found = panels.found
    page = DevicePage(name=found.name, facts=logged_facts(found),
                      alarms=_alarms_frame(rows_of(panels.open_alarms, AlarmRecord), zone),
                      cases=_cases_frame(panels.cases, found.name, zone),
                      events=_events_frame(rows_of(panels.events, EventRecord), zone),
                      errors=[f"{e.tool}: {err}" for e in panels.all() for err in e.errors])
    page.status = logged_status(found, len(page.alarms), len(page.events), panels.events.window, zone)
    return page
