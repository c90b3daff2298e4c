"""Device snapshots as configured and as cited: config.yaml's `snapshots:` section sets the
Snapshotter's bounds or turns it off, and the alarms tool's cases name the snapshots taken for
their alarms (or just before, inside a device's rate limit)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.store import tables as m
from tests.store_helpers import empty_store

LEAF = "dc9-leaf-01"


@pytest.fixture
def store(tmp_path: Path) -> Engine:
    return empty_store(tmp_path)


def test_config_snapshots_section_sets_the_bounds_or_turns_them_off(tmp_path: Path,
                                                                    store: Engine) -> None:
    from netopsai.backends.snapshot.snapshotter import from_config
    from netopsai.config.load import load_netconfig

    home = tmp_path / "cfg"
    home.mkdir()
    device = "napalm:\n  - {name: r1, host: 127.0.0.1, port: 2222, driver: ios}\n"
    (home / "config.yaml").write_text(device + "snapshots: {workers: 2, min_interval_minutes: 30}\n")
    snap = from_config(store, load_netconfig(home))
    assert snap is not None
    try:
        assert (snap._pool._max_workers, snap.min_interval_s, list(snap.napalm)) == (2, 1800, ["r1"])
    finally:
        snap.close()
    (home / "config.yaml").write_text(device + "snapshots: {enabled: false}\n")
    assert from_config(store, load_netconfig(home)) is None


def test_the_alarms_case_carries_the_snapshot_taken_for_its_alarm(tmp_path: Path, store: Engine) -> None:
    """A case of the alarms tool (correlate) names the snapshots taken when its alarms opened:
    the one for its alarm, not one taken by hand; a case inside the device's rate limit gets the
    snapshot taken just before, said as such; an older one is no stand-in."""
    from datetime import timedelta

    from netopsai.backends.registry import configured_backends
    from netopsai.config.network import NetConfig
    from netopsai.store.engine import create_all
    from netopsai.tools.registry import run_tool

    create_all(store)
    now = datetime.now(UTC)
    with Session(store) as s:
        for name in (LEAF, "edge-2", "edge-3"):
            s.add(m.Device(name=name, role="leaf", site="s1"))
        for i, (dev, port) in enumerate(((LEAF, "GigabitEthernet0/1"), ("edge-2", "Ethernet1"),
                                         ("edge-3", "Ethernet1")), start=7):
            s.add(m.Alarm(id=i, kind="link_down", category="link", severity="major", device=dev,
                          interface=port, raised_at=now, state="open", source="syslog"))
        for sid, dev, ago, alarm in ((31, LEAF, 0, 7), (32, LEAF, 0, None), (33, "edge-2", 30, 99),
                                     (35, "edge-3", 4, 98)):
            s.add(m.DeviceSnapshot(id=sid, device=dev, taken_at=now - timedelta(minutes=ago),
                                   alarm_id=alarm, source="napalm"))
        s.commit()
    ev = run_tool("alarms", {"window": "1h", "correlate": True}, configured_backends(store, NetConfig()))
    cases = {c["root_device"]: c for c in ev.facts["cases"]}
    assert [x["id"] for x in cases[LEAF]["snapshots"]] == [31]
    assert cases["edge-2"]["snapshots"] == []  # 30 minutes before: another episode
    assert [(x["id"], x["alarm"]) for x in cases["edge-3"]["snapshots"]] == [(35, 98)]
    assert f"snapshot 31 of {LEAF}" in ev.summary and "snapshot 33" not in ev.summary
    assert "snapshot 35 of edge-3" in ev.summary and "taken just before" in ev.summary
