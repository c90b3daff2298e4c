"""Shared by the test_tools_* modules: expected counts derived from the lab spec (small scale),
assertion helpers for tool calls, and the `hosts` fixture."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.copilot.evidence import Evidence
from netopsai.lab.spec import load_spec
from netopsai.tools.registry import run_tool

SPEC = load_spec("default")
SC = SPEC.scales["small"]
SITES = [s.name for s in SPEC.sites]
RACKS = SC.pods_per_site * SC.leafs_per_pod  # per site
SPINES = SC.pods_per_site * SC.spines_per_pod  # per site
SUPERSPINES = SC.spines_per_pod * SC.superspines_per_plane  # per site: one plane per pod spine
NET_PER_SITE = RACKS + SPINES + SUPERSPINES + SC.borders + SC.dci
HOSTS_PER_SITE = RACKS * SC.hosts_per_rack
# switch ports with a link, per site: leaf (uplinks + hosts), spine (leafs + its plane),
# superspine (one spine per PoD + borders), border (superspines + DCIs), DCI (borders + circuits)
PORTS_PER_SITE = (RACKS * (SC.spines_per_pod + SC.hosts_per_rack)
                  + SPINES * (SC.leafs_per_pod + SC.superspines_per_plane)
                  + SUPERSPINES * (SC.pods_per_site + SC.borders)
                  + SC.borders * (SUPERSPINES + SC.dci)
                  + SC.dci * (SC.borders + SPEC.circuits_per_provider * (len(SITES) - 1)))
SNAPSHOT = Path(__file__).parent / "data_snapshots" / "tool_schemas.json"
EVIDENCE_KEYS = {"id", "tool", "args", "window", "summary", "columns", "rows", "facts", "partial",
                 "errors"}


def ok(backends: Backends, name: str, args: dict[str, Any]) -> Evidence:
    ev = run_tool(name, args, backends)
    assert ev.errors == [], ev.errors
    assert ev.tool == name and ev.summary
    return ev


def fails(backends: Backends, name: str, args: Any, *needles: str) -> str:
    ev = run_tool(name, args, backends)
    assert len(ev.errors) == 1, ev
    msg = ev.errors[0]
    assert msg and "\n" not in msg
    assert ev.rows == [] and not ev.ok
    for needle in needles:
        assert needle in msg, msg
    return msg


def clock(backends: Backends) -> datetime:
    return backends.inventory.clock()


def one(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    hits = [r for r in rows if all(r.get(k) == v for k, v in match.items())]
    assert len(hits) == 1, (match, hits)
    return hits[0]


@pytest.fixture(scope="module", name="hosts")
def hosts_fixture(backends: Backends) -> list[dict[str, Any]]:
    """Every host of the lab (import this fixture as `hosts_fixture`, take `hosts`)."""
    return ok(backends, "metadata", {"query": "hosts"}).rows


def host_of(hosts: list[dict[str, Any]], **match: Any) -> dict[str, Any]:
    return next(h for h in hosts if all(h[k] == v for k, v in match.items()))

