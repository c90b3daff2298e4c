"""Inventory and event rows keep the table's column order whatever order the ORM loaded the
attributes in: answers list a row's fields as they come, so a different order between two runs
of one revision was a different answer text (house_same found os_version moving)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine
from sqlmodel import Session, SQLModel, select

from netopsai.backends.rows import DeviceInfo, InterfaceInfo, SegmentInfo
from netopsai.store import tables as m
from netopsai.store.inventory import StoreInventory, _device_row
from tests.paths import REPO

ROOT = REPO
T0 = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _store(path: Path) -> Any:
    engine = create_engine(f"sqlite:///{path}")
    SQLModel.metadata.create_all(engine)
    with Session(engine) as s:
        s.add(m.Site(name="s1", region="r"))
        s.add(m.Device(name="leaf1", role="leaf", vendor="arista", model="7050", os_version="4.30",
                       mgmt_ip="198.18.0.1", site="s1", pod="p1", booted_at=T0))
        s.add(m.Segment(cidr="198.18.1.0/24", name="seg", vlan=10, gateway="198.18.1.1", site="s1",
                        pod="p1", tor="leaf1"))
        s.add(m.Interface(device="leaf1", name="Ethernet1", speed_mbps=100_000, ip="198.18.2.0/31"))
        s.add(m.Change(ticket="CHG1", device="leaf1", site="s1", start=T0, kind="config",
                       summary="mtu", author="a", status="done"))
        s.add(m.Alarm(kind="link_down", category="link", severity="major", device="leaf1",
                      site="s1", raised_at=T0, state="open", message="down"))
        s.commit()
    return engine


def test_a_device_row_has_the_declared_order_however_its_attributes_were_loaded(tmp_path: Path) -> None:
    engine = _store(tmp_path / "s.db")
    declared = list(DeviceInfo.__annotations__)
    with Session(engine) as s:
        d = s.get(m.Device, "leaf1")
        assert d is not None
        s.expire(d, ["os_version", "name"])
        s.refresh(d, ["name", "os_version"])  # these two now come last in the object's __dict__
        assert list(d.model_dump()) != declared  # what the old row builder followed
        assert list(_device_row(d)) == declared
    with Session(engine) as s:  # a query naming the columns in another order: a plain row
        t = m.Device.__table__.c  # type: ignore[attr-defined]
        r = s.execute(select(*reversed(list(t)))).one()
        assert list(_device_row(r._mapping)) == list(reversed(declared))  # plain rows keep theirs
    inv = StoreInventory(engine)
    assert list(inv.device("leaf1"))[:len(declared)] == declared
    assert list(inv.segments(None, None)[0]) == list(SegmentInfo.__annotations__)
    assert list(inv.interfaces("leaf1")[0]) == list(InterfaceInfo.__annotations__)


PROBE = """
import json, sys
from sqlalchemy import create_engine
from netopsai.common.timewin import Window
from netopsai.store.events import StoreEvents
from netopsai.store.inventory import StoreInventory
from datetime import datetime, timedelta, UTC
e = create_engine("sqlite:///" + sys.argv[1])
inv, ev = StoreInventory(e), StoreEvents(e)
t = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
w = Window(start=t - timedelta(hours=1), end=t + timedelta(hours=1))
device = inv.device("leaf1")
device["uptime"] = "-"  # a store with no lab clock counts uptime on the wall clock: not compared
print(json.dumps([device, inv.segments(None, None), inv.interfaces("leaf1"),
                  ev.changes(None, None, None, w), ev.alarms(None, "any", None, None, w)],
                 default=str))
"""


def test_rows_are_byte_stable_across_processes_with_different_hash_seeds(tmp_path: Path) -> None:
    _store(tmp_path / "s.db")
    outs = set()
    for seed in ("1", "2", "3", "4"):  # the old order followed a set's, i.e. the hash seed
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "s.db")], cwd=ROOT,
                             env=env, capture_output=True, text=True, check=False)
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout)
    assert len(outs) == 1, outs
    device, _, _, changes, alarms = json.loads(outs.pop())
    assert list(device)[:4] == ["name", "role", "vendor", "model"]
    assert changes and alarms  # the event rows were read, not an empty list compared
