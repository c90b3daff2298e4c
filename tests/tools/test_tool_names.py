"""Device names in another case (issue "case-sensitive device names"): a model, an API client
or an on-call writes DC1-LEAF-03 where the inventory says dc1-leaf-03 (or the other way round:
NOS hostnames are often upper case). Names are case-insensitive, as DNS is: a tool run with
one is run again as the inventory spells it, and its evidence says the inventory's name. A
name that is unknown in any case, or that two devices share but for case, is still an error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel import Session

from netopsai.backends.lab import lab_backends
from netopsai.store import tables as m
from netopsai.tools.registry import run_tool
from tests.conftest import new_lab


def test_tools_take_names_in_any_case(backends: Any) -> None:
    ev = run_tool("metadata", {"query": "device", "name": "DC1-LEAF-03"}, backends)
    assert not ev.errors and ev.args["name"] == "dc1-leaf-03" and ev.rows[0]["name"] == "dc1-leaf-03"
    ev = run_tool("alarms", {"devices": ["Dc1-Leaf-03", "dc1-spine-01"], "window": "24h"}, backends)
    assert not ev.errors and ev.args["devices"] == ["dc1-leaf-03", "dc1-spine-01"]
    ev = run_tool("telemetry", {"metric": "errors", "devices": ["DC1-LEAF-03"], "window": "1h"},
                  backends)
    assert not ev.errors and {r["device"] for r in ev.rows} == {"dc1-leaf-03"}


def test_an_unknown_name_stays_an_error(backends: Any) -> None:
    ev = run_tool("metadata", {"query": "device", "name": "DC1-LEAF-99"}, backends)
    assert ev.errors and "unknown device 'DC1-LEAF-99'" in ev.errors[0]
    assert "did you mean" in ev.errors[0] and ev.args["name"] == "DC1-LEAF-99"


def test_an_upper_case_inventory_and_a_name_shared_but_for_case(tmp_path: Path) -> None:
    engine = new_lab(tmp_path / "x.db")
    with Session(engine) as s:
        s.add(m.Device(name="DC9-CORE-01", role="spine", site="dc1"))
        s.add(m.Device(name="edge-1", role="border", site="dc1"))
        s.add(m.Device(name="EDGE-1", role="border", site="dc1"))
        s.commit()
    b = lab_backends(engine)
    ev = run_tool("metadata", {"query": "device", "name": "dc9-core-01"}, b)
    assert not ev.errors and ev.args["name"] == "DC9-CORE-01"
    ev = run_tool("metadata", {"query": "device", "name": "Edge-1"}, b)  # which one? say so
    assert ev.errors and "unknown device 'Edge-1'" in ev.errors[0]
