"""Running-config snapshots (NAPALM get_config) and the unrecorded changes between them.

The stored text has secrets masked by NAPALM's sanitize filters; the sha256 is of the raw
text, so a changed secret still shows as a change (its line stays masked in the summary).
A snapshot that differs from the device's previous one becomes a Change record of kind
"unrecorded" spanning the two snapshot times, its summary the changed lines.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.backends.napalm.device import DeviceError, DeviceTarget, connect
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import as_utc
from netopsai.store import tables as m
from netopsai.store.engine import create_all, get_meta, set_meta
from netopsai.store.inventory_sync import network_kind
from netopsai.store.network import NETWORK_KEY

VOLATILE = re.compile(r"^(ntp clock-period|! Time:|## Last commit:)")  # lines that change by themselves
MAX_SUMMARY_LINES = 12


@dataclass
class SnapshotResult:
    taken: list[str] = field(default_factory=list)  # one line per device
    changes: list[str] = field(default_factory=list)  # change summaries
    errors: list[str] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        return bool(self.errors)

    def lines(self) -> list[str]:
        return self.taken + self.changes


def sanitize(text: str, driver: str) -> str:
    from napalm.base import constants
    from napalm.base.helpers import sanitize_config

    filters = getattr(constants, f"{driver.upper()}_SANITIZE_FILTERS",
                      constants.CISCO_SANITIZE_FILTERS)
    return sanitize_config(text, filters)


def read_config(target: DeviceTarget, driver_cls: Any = None) -> tuple[str, str]:
    """(device name, raw running config) from one device (raises DeviceError)."""
    with connect(target, driver_cls) as dev:
        name = target.name or str(dev.get_facts().get("hostname") or target.host)
        running = str(dev.get_config(retrieve="running").get("running", ""))
    return name, running


def snapshot(engine: Engine, targets: list[DeviceTarget], driver_cls: Any = None,
             now: datetime | None = None) -> SnapshotResult:
    """Snapshot every target; store new configs and the unrecorded changes they reveal."""
    create_all(engine)
    with Session(engine) as s:
        if network_kind(s) == "lab":
            raise NetopsError("the store holds the embedded lab; point NETOPSAI_HOME at the store "
                              "of the real network to snapshot devices")
    result = SnapshotResult()
    when = as_utc(now) if now else datetime.now(UTC).replace(microsecond=0)
    for target in targets:
        try:
            name, raw = read_config(target, driver_cls)
        except DeviceError as exc:
            result.errors.append(str(exc))
            continue
        record(engine, name, raw, target.driver, when, result)
    return result


def record(engine: Engine, device: str, raw: str, driver: str, when: datetime,
           result: SnapshotResult) -> None:
    """Store one device's config if it changed since its last snapshot (one transaction)."""
    digest = hashlib.sha256(raw.encode()).hexdigest()
    text = sanitize(raw, driver)
    with Session(engine) as s:
        last = s.exec(select(m.ConfigSnapshot).where(m.ConfigSnapshot.device == device)
                      .order_by(col(m.ConfigSnapshot.taken_at).desc())).first()
        if last is not None and last.sha256 == digest:
            result.taken.append(f"{device}: unchanged since {last.taken_at:%Y-%m-%dT%H:%M:%SZ}")
            return
        s.add(m.ConfigSnapshot(device=device, taken_at=when, running=text, sha256=digest))
        if get_meta(s, NETWORK_KEY) is None:  # a first snapshot into a new store: a real network
            set_meta(s, NETWORK_KEY, "real")
        if last is None:
            result.taken.append(f"{device}: first snapshot ({len(text.splitlines())} lines)")
        else:
            summary = change_summary(device, last.running, text)
            dev = s.get(m.Device, device)
            s.add(m.Change(ticket=f"UNRECORDED-{digest[:8]}", device=device,
                           site=dev.site if dev else "", start=as_utc(last.taken_at), end=when,
                           kind="unrecorded", summary=summary, author="", status="completed"))
            result.taken.append(f"{device}: changed")
            result.changes.append(summary)
        s.commit()


def diff_lines(before: str, after: str) -> list[str]:
    """Changed lines, '+' added and '-' removed, volatile lines ignored."""
    def keep(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if not VOLATILE.match(ln.strip())]

    return [ln for ln in difflib.unified_diff(keep(before), keep(after), lineterm="", n=0)
            if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]


def change_summary(device: str, before: str, after: str) -> str:
    lines = diff_lines(before, after)
    added = sum(1 for ln in lines if ln.startswith("+"))
    head = (f"unrecorded change detected on {device}: {added} line(s) added, "
            f"{len(lines) - added} removed")
    if not lines:
        return head + " (only masked secrets differ)"
    shown = "; ".join(f"{ln[0]} {ln[1:].strip()}" for ln in lines[:MAX_SUMMARY_LINES])
    more = f"; ... {len(lines) - MAX_SUMMARY_LINES} more" if len(lines) > MAX_SUMMARY_LINES else ""
    return f"{head}: {shown}{more}"
