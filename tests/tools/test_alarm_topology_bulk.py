"""The alarms tool's case grouping learns where a window's devices sit through the inventory
backend only: one bulk read when the inventory offers `placements` (the store's), the
Protocol's per-device reads otherwise — and both give the same places."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.lab import lab_backends
from netopsai.tools.alarm_cases.topology import Topology

DEVICES = {"dc1-leaf-01", "dc1-spine-01", "dc1-border-01", "no-such-switch"}


class PerDevice:
    """The same store inventory seen through the Protocol only (no bulk read, no engine)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def device(self, name: str) -> Any:
        return self.inner.device(name)

    def hosts(self, *args: Any) -> Any:
        return self.inner.hosts(*args)

    def segments(self, *args: Any) -> Any:
        return self.inner.segments(*args)

    def neighbors(self, name: str) -> Any:
        return self.inner.neighbors(name)


def test_bulk_and_per_device_reads_place_devices_alike(make_lab: Callable[..., Engine],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    inv = lab_backends(make_lab()).inventory
    slow = Topology(PerDevice(inv))  # type: ignore[arg-type]
    want = {d: slow.meta(d) for d in DEVICES}
    behind = slow.segments_behind("dc1-leaf-01")
    assert want["dc1-leaf-01"]["role"] and want["no-such-switch"] == {} and behind

    fast = Topology(inv)
    fast.prefetch(DEVICES)
    def no_single_reads(*_: Any) -> Any:
        raise AssertionError("a per-device read after the bulk read")
    monkeypatch.setattr(inv, "device", no_single_reads)
    monkeypatch.setattr(inv, "segments", no_single_reads)
    assert {d: fast.meta(d) for d in DEVICES} == want
    assert fast.segments_behind("dc1-leaf-01") == behind


def test_an_inventory_without_a_bulk_read_is_asked_per_device(make_lab: Callable[..., Engine]) -> None:
    inv = lab_backends(make_lab()).inventory
    topo = Topology(PerDevice(inv))  # type: ignore[arg-type]
    topo.prefetch(DEVICES)  # nothing to prefetch with: a no-op, not an error
    assert topo.meta("dc1-spine-01")["role"] == "spine"
