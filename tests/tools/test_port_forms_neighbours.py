"""A port the inventory lists with no link has no known neighbour: the neighbours look-up says so
plainly, as a fact, instead of "unknown port … valid: " with an empty list (issue 24 item 2:
never an error that hides the rest). A port the device does not have is still an error, naming
its closest ports; a device with no ports listed says that, not an empty list."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.backends.lab import lab_backends
from netopsai.store import tables as m
from netopsai.store.engine import create_all, engine_for
from netopsai.tools.registry import run_tool


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    """edge-20 as a real network's inventory has it (tests/planner/test_hostnames_real_logs.py): a
    FreeBSD firewall's igb1/igb2 and a Catalyst port, no links imported; bare-9 with no ports."""
    engine = engine_for(f"sqlite:///{tmp_path / 'inv.db'}")
    create_all(engine)
    with Session(engine) as s:
        s.add(m.Device(name="edge-20", role="leaf", site="fra1", mgmt_ip="192.0.2.20"))
        s.add(m.Device(name="bare-9", role="leaf", site="fra1", mgmt_ip="192.0.2.9"))
        s.add_all(m.Interface(device="edge-20", name=p)
                  for p in ("igb1", "igb2", "GigabitEthernet2/0/3"))
        s.commit()
    return engine


def _neighbours(engine: Engine, **args: str):  # noqa: ANN202 - an Evidence
    return run_tool("metadata", {"query": "neighbors", **args}, lab_backends(engine))


@pytest.mark.parametrize(("written", "port"), [("igb2", "igb2"), ("Gi2/0/3", "GigabitEthernet2/0/3")])
def test_a_port_with_no_link_has_no_known_neighbour(engine: Engine, written: str, port: str) -> None:
    ev = _neighbours(engine, name="edge-20", interface=written)
    assert not ev.errors and ev.rows == []
    assert ev.summary == f"edge-20 {port} has no known neighbour: the inventory has no link on that port."


def test_a_port_the_device_lacks_is_still_an_error(engine: Engine) -> None:
    ev = _neighbours(engine, name="edge-20", interface="igb9")
    assert ev.errors and "'igb9'" in ev.errors[0] and "igb1" in ev.errors[0]


def test_a_device_with_no_ports_says_so(engine: Engine) -> None:
    ev = _neighbours(engine, name="bare-9", interface="eth0")
    assert ev.errors and "the inventory lists no ports for bare-9" in ev.errors[0]
    assert not ev.errors[0].rstrip().endswith("valid:")
