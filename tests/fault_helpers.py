"""Shared by the test_faults* modules: the healthy path SRC -> DST named through the tools
(the `path` fixture), a fresh lab per test (`lab`), scenario building and symptom readers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, func, select
from sqlmodel import Session

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.copilot.evidence import Evidence
from netopsai.lab.inject import Injected, inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store import tables as m
from netopsai.store.engine import get_meta
from netopsai.tools.registry import run_tool

SRC, DST = "10.1.3.20", "10.2.1.40"
QUESTION = f"{SRC} to {DST} not communicating"
AT = timedelta(minutes=25)  # every fault starts 25 minutes before the lab clock


# -- helpers -------------------------------------------------------------------------------------
def call(b: Backends, tool: str, **args: Any) -> Evidence:
    """One real tool call; a tool error is a test failure, not an empty answer."""
    ev = run_tool(tool, args, b)
    assert not ev.errors, ev.errors
    return ev


@dataclass(frozen=True)
class PathLink:
    """A link the healthy trace crosses: `dev:ifname` sends, `peer:peer_if` receives."""

    dev: str
    ifname: str
    peer: str
    peer_if: str
    kind: str

    @property
    def near(self) -> str:
        return f"{self.dev}:{self.ifname}"

    @property
    def far(self) -> str:
        return f"{self.peer}:{self.peer_if}"


@dataclass(frozen=True)
class Route:
    """The healthy SRC -> DST trace and the names the tests target."""

    devices: list[str]
    links: list[PathLink]
    ecmp: int
    rtt: float
    src_tor: str
    dst_tor: str
    dst_host: str
    dst_port: str  # the dst host's port on its ToR
    src_port: str
    dst_segment: str
    other_dst: str  # a host in another segment of DST's site
    local_dst: str  # a host in another segment of SRC's site

    def first(self, kind: str) -> PathLink:
        return next(h for h in self.links if h.kind == kind)

    @property
    def uplink(self) -> PathLink:  # src ToR -> spine
        return self.first("fabric")

    @property
    def spine(self) -> str:
        return self.uplink.peer


@dataclass
class Lab:
    engine: Engine
    b: Backends
    clock: datetime

    def inject(self, *faults: dict[str, Any], noise: dict[str, int] | None = None,
               sid: str = "t") -> Injected:
        return inject(self.engine, scenario(self.clock, *faults, noise=noise, sid=sid))

    def trace(self, dst: str = DST, **kw: Any) -> Evidence:
        return call(self.b, "traceroute", src=SRC, dst=dst, **kw)

    def at(self, delta: timedelta) -> str:
        """An ISO time relative to the lab clock, for traceroute's `at`."""
        return (self.clock + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def scenario(now: datetime, *faults: dict[str, Any], noise: dict[str, int] | None = None,
             sid: str = "t") -> Scenario:
    """`now` equals the lab's init clock, so inject resets the lab rather than re-initialising."""
    return Scenario.model_validate({"id": sid, "now": now, "question": QUESTION,
                                    "faults": [{"at": "-25m", **f} for f in faults],
                                    "noise": noise or {}})


def neighbor(b: Backends, end: str) -> dict[str, Any]:
    dev, ifname = end.split(":")
    return next(r for r in call(b, "metadata", query="neighbors", name=dev).rows
                if r["interface"] == ifname)


def interface(b: Backends, end: str) -> dict[str, Any]:
    dev, ifname = end.split(":")
    return next(r for r in call(b, "metadata", query="interfaces", name=dev).rows
                if r["name"] == ifname)


def device(b: Backends, name: str) -> dict[str, Any]:
    return call(b, "metadata", query="device", name=name).rows[0]


def port_history(b: Backends, *devices: str, metric: str = "oper_status",
                 window: str = "1h") -> dict[str, dict[str, Any]]:
    """'dev:ifname' -> oper-status row, for ports that were not simply up all along."""
    ev = call(b, "telemetry", metric=metric, devices=list(devices), top=1000, window=window)
    return {f"{r['device']}:{r['interface']}": r for r in ev.rows}


def counter(b: Backends, metric: str, end: str) -> dict[str, Any]:
    dev, ifname = end.split(":")
    return call(b, "telemetry", metric=metric, devices=[dev], interface=ifname).rows[0]


def worst(b: Backends, metric: str) -> str:
    """The worst port of the whole lab for a counter metric."""
    r = call(b, "telemetry", metric=metric, top=1).rows[0]
    return f"{r['device']}:{r['interface']}"


def alarms(b: Backends, **args: Any) -> list[dict[str, Any]]:
    return call(b, "alarms", **args).rows


def kinds(rows: list[dict[str, Any]]) -> set[tuple[str, str, str | None]]:
    return {(r["kind"], r["device"], r["interface"]) for r in rows}


def changes(b: Backends, *devices: str, window: str = "1h") -> list[dict[str, Any]]:
    return call(b, "changelog", devices=list(devices), window=window).rows


def crosses(ev: Evidence, hop: PathLink) -> bool:
    """Whether a trace sends over the link `hop` (the near end's out_interface)."""
    return any(r["device"] == hop.dev and r["out_interface"] == hop.ifname for r in ev.rows)


def hop_of(ev: Evidence, dev: str) -> dict[str, Any]:
    return next(r for r in ev.rows if r["device"] == dev)


def assert_quiet(b: Backends, *devices: str) -> None:
    """No alarm, no port change and no change record on these devices in the last hour."""
    assert alarms(b, devices=list(devices)) == []
    assert port_history(b, *devices) == {}
    assert changes(b, *devices) == []


def host_elsewhere(b: Backends, owner: dict[str, Any]) -> str:
    """A host in the same site as an address (a metadata `ip` row) but another segment."""
    return next(h["ip"] for h in call(b, "metadata", query="hosts", site=owner["site"]).rows
                if h["segment"] != owner["segment"])


def fingerprint(engine: Engine) -> dict[str, Any]:
    """What an inject would touch: the state version and the row counts of its tables."""
    with Session(engine) as s:
        fp: dict[str, Any] = {"version": get_meta(s, "version"), "clock": get_meta(s, "clock")}
        for t in (m.Alarm, m.Change, m.InterfaceEvent, m.CounterSample, m.LabFault, m.AclEntry,
                  m.StaticRoute):
            fp[t.__name__] = s.execute(select(func.count()).select_from(t)).scalar_one()
        fp["down"] = s.execute(select(func.count()).select_from(m.Link).where(
            m.Link.status != "up")).scalar_one()
    return fp


# -- fixtures ------------------------------------------------------------------------------------
@pytest.fixture(scope="module", name="path")
def path_fixture(backends: Backends) -> Route:
    """Read the healthy trace and name its links through metadata (the shared healthy lab)."""
    ev = call(backends, "traceroute", src=SRC, dst=DST)
    assert ev.facts["reached"] and ev.facts["good_paths"] == ev.facts["ecmp_paths"] > 1
    rows = ev.rows
    links = []
    for a, z in zip(rows, rows[1:], strict=False):
        if a["out_interface"]:
            nbr = neighbor(backends, f"{a['device']}:{a['out_interface']}")
            assert (nbr["neighbor"], nbr["neighbor_interface"]) == (z["device"], z["interface"])
            links.append(PathLink(a["device"], a["out_interface"], z["device"], z["interface"],
                                  nbr["kind"]))
    dst = call(backends, "metadata", query="ip", ip=DST).rows[0]
    src = call(backends, "metadata", query="ip", ip=SRC).rows[0]
    return Route(devices=ev.facts["path_devices"], links=links, ecmp=ev.facts["ecmp_paths"],
                 rtt=rows[-1]["rtt_ms"], src_tor=src["tor"], dst_tor=dst["tor"],
                 dst_host=dst["device"], dst_port=f"{dst['tor']}:{dst['tor_interface']}",
                 src_port=f"{src['tor']}:{src['tor_interface']}", dst_segment=dst["segment"],
                 other_dst=host_elsewhere(backends, dst),
                 local_dst=host_elsewhere(backends, src))


@pytest.fixture(name="lab")
def lab_fixture(make_lab: Any) -> Lab:
    engine = make_lab()
    return Lab(engine, lab_backends(engine), lab_info(engine).clock)
