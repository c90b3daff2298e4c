"""The lab store as one batch's workers see it: frozen at the batch's pin.

A batch traces every pair in one lab state (snapshot.py's Pin, read once). The diagnosis of its
failing pairs still read that state afresh on every tool call: the lab's clock for each call's
window, the device names each call names, the lab's facts for each of its own traces (a past
moment, a jumbo probe, the way back). Profiled on the medium lab with three faults, those reads
were a third of a diagnosis' time (batch 10,000 pairs: 170 diagnoses, 1,040 tool calls, 503
clock reads, 500 name checks, 420 traces). Here they are read once per worker: the answers are
the store's own, so every row is the same as before (tests/batch/test_batch_frozen.py compares
both on every failing pair of a faulted lab), only not re-read while the batch runs.

What is kept: the clock (only when it is the pin's, i.e. a lab's), the devices' names (read at
once; a name not among them is asked again, so its error is the store's), an address's owner
(every host's read at once, other addresses one by one),
and changes and alarms of named devices (cut from one read per window). Everything else goes to
the store as before."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Engine
from sqlalchemy import select as core_select
from sqlmodel import Session, select

from netopsai.backends.base import Backends
from netopsai.backends.lab.paths import LabPaths, trace_row
from netopsai.backends.rows import AlarmRecord, ChangeRecord, IpOwner, Trace
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import Window, as_utc
from netopsai.copilot.batch.snapshot import Pin
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from netopsai.store.tables import Device, HostAddress


class FrozenInventory(StoreInventory):
    """The store's inventory with the reads a batch repeats answered once (see the module)."""

    def __init__(self, engine: Engine, pin: Pin) -> None:
        super().__init__(engine)
        now = super().clock()
        self._clock = now if now == pin.clock else None  # a real network's clock moves on
        self._known: set[str] | None = None
        self._owners: dict[str, IpOwner] = {}
        self._hosts_read = False

    def clock(self) -> datetime:
        return self._clock if self._clock is not None else super().clock()

    def check_names(self, devices: list[str] | None = None, site: str | None = None,
                    pod: str | None = None, role: str | None = None) -> None:
        if devices and site is None and pod is None and role is None:
            if self._known is None:  # every device's name, read once: one query, not one per call
                with Session(self.engine) as s:
                    self._known = set(s.exec(select(Device.name)))
            if self._known.issuperset(devices):
                return
        super().check_names(devices, site, pod, role)  # raises for an unknown name, as before

    def ip_owner(self, ip: str) -> IpOwner:
        if not self._hosts_read:  # every host's address in one read: a diagnosis asks for two
            self._owners.update(self._hosts())
            self._hosts_read = True
        owner = self._owners.get(ip)
        if owner is None:  # an unknown address raises each time, with the store's own words
            owner = self._owners[ip] = super().ip_owner(ip)
        return cast(IpOwner, dict(owner))  # a copy: a caller may add to the row it gets

    def _hosts(self) -> dict[str, IpOwner]:
        """Each host address's owner as StoreInventory.ip_owner words it (its first case; a
        test compares the two for every host), from one query instead of one per address."""
        h = HostAddress.__table__.c  # type: ignore[attr-defined]  # plain rows, no ORM objects
        with self.engine.connect() as conn:
            rows = conn.execute(core_select(h.ip, h.device, h.interface, h.segment, h.tor,
                                            h.tor_interface, h.pod, h.site)).all()
        return {ip: {"ip": ip, "device": device, "role": "host", "interface": ifname,
                     "segment": segment, "tor": tor, "tor_interface": tor_if, "pod": pod,
                     "site": site}
                for ip, device, ifname, segment, tor, tor_if, pod, site in rows}


class FrozenPaths:
    """The lab's traces at the pin's version, for now (the pin's clock) and for the lab's past:
    LabPaths reads the lab's facts (clock, version) for every trace."""

    def __init__(self, engine: Engine, pin: Pin) -> None:
        self.engine, self.pin = engine, pin

    def traceroute(self, src: str, dst: str, size: int, at: datetime | None) -> Trace:
        when = as_utc(at) if at else self.pin.clock
        if when > self.pin.clock:  # LabPaths' words for a moment after the lab's clock
            raise NetopsError(f"'at' {when:%Y-%m-%dT%H:%M:%SZ} is after the lab clock "
                              f"{self.pin.clock:%Y-%m-%dT%H:%M:%SZ}")
        return trace_row(self.engine, self.pin.version, when, src, dst, size)


class FrozenEvents(StoreEvents):
    """Changes and alarms of named devices cut from one read of every device's in the same
    window (each diagnosis asks for its own path's ~40 devices: a query each). Exact when the
    devices' rows are at distinct times: the store orders by time alone, so two rows at one
    moment could come in another order from another query; then the store is asked."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._all: dict[tuple[Any, ...], list[Any]] = {}

    def changes(self, devices: list[str] | None, site: str | None, ticket: str | None,
                window: Window) -> list[ChangeRecord]:
        key = ("changes", site, ticket, window.start, window.end)
        rows = self._cut(key, devices, "start", lambda: super(FrozenEvents, self).changes(
            None, site, ticket, window))
        return rows if rows is not None else super().changes(devices, site, ticket, window)

    def alarms(self, category: str | None, state: str, devices: list[str] | None,
               site: str | None, window: Window) -> list[AlarmRecord]:
        key = ("alarms", category, state, site, window.start, window.end)
        rows = self._cut(key, devices, "raised_at", lambda: super(FrozenEvents, self).alarms(
            category, state, None, site, window))
        return rows if rows is not None else super().alarms(category, state, devices, site, window)

    def _cut(self, key: tuple[Any, ...], devices: list[str] | None, at: str,
             read: Callable[[], list[Any]]) -> list[Any] | None:
        if not devices:  # every device's: asked once per batch anyway (SharedEvidence)
            return None
        every = self._all.get(key)
        if every is None:
            every = self._all[key] = read()
        wanted = set(devices)
        rows = [r for r in every if r["device"] in wanted]
        if len({r[at] for r in rows}) < len(rows):  # two at one moment: the store's order, not ours
            return None
        return [dict(r) for r in rows]  # copies: a caller may add to the rows it gets


def frozen(backends: Backends, pin: Pin | None) -> Backends:
    """`backends` with the lab's inventory and paths frozen at `pin`; others left as they are."""
    if pin is None:
        return backends
    if type(backends.paths) is LabPaths:
        backends = replace(backends, paths=FrozenPaths(backends.paths.engine, pin))
    if type(backends.inventory) is StoreInventory:
        backends = replace(backends, inventory=FrozenInventory(backends.inventory.engine, pin))
    if type(backends.changes) is StoreEvents and backends.alarms is backends.changes:
        events = FrozenEvents(backends.changes.engine)
        backends = replace(backends, changes=events, alarms=events)
    return backends
