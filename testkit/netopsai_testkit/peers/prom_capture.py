"""A leaf/spine capture served by a real Prometheus: IF-MIB series as snmp_exporter names them,
backfilled with promtool into a temporary TSDB, and the inventory that goes with it.

Shaped like the IOS-XR testbed of cisco-ie/telemetry (dataset 12: leaf4 and spine1-3, every
port streamed every 10 s) and like real switches: most ports are unused and down all the time,
and IOS-XR leaves an unconfigured port shut (ifAdminStatus 2) while a configured one without a
cable is admin up and oper down ("never up"). The labelled event is one admin shut of a leaf
uplink (its spine's end goes down with it) and its no-shut a few minutes later."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from netopsai.store import tables as m
from netopsai_testkit.peers.process import free_port
from netopsai_testkit.peers.prometheus import PromStack

PST = ZoneInfo("America/Los_Angeles")
DAY = datetime(2026, 11, 20, tzinfo=PST)  # a past day: the capture is history, not "now"
START, END = DAY.replace(hour=9, minute=30), DAY.replace(hour=10)
STEP_S = 10
SHUT_AT, NO_SHUT_AT = DAY.replace(hour=9, minute=41, second=20), DAY.replace(hour=9, minute=47, second=30)
SPINES = ("spine1", "spine2", "spine3")
HOSTS = tuple(f"srv{i:02d}" for i in range(1, 9))
SHUT = ("leaf4", "HundredGigE0/0/0/1")  # the labelled admin shut: leaf4's uplink to spine2
PEER = ("spine2", "HundredGigE0/0/0/0")


@dataclass
class Port:
    device: str
    name: str
    speed_mbps: int
    admin: int = 1  # ifAdminStatus: 1 up, 2 down
    oper: int = 1
    load: float = 0.0  # share of line rate carried
    peer: tuple[str, str] | None = None


@dataclass
class Capture:
    ports: list[Port] = field(default_factory=list)

    def port(self, device: str, name: str) -> Port:
        return next(p for p in self.ports if (p.device, p.name) == (device, name))


def capture() -> Capture:
    """leaf4 with 41 ports (3 uplinks, 8 busy host ports, 29 unused, management), three spines
    whose only used port faces leaf4; 163 ports are down all the time."""
    c = Capture()
    for i, spine in enumerate(SPINES):
        c.ports.append(Port("leaf4", f"HundredGigE0/0/0/{i}", 100_000, load=0.25 + 0.05 * i,
                            peer=(spine, "HundredGigE0/0/0/0")))
        c.ports.append(Port(spine, "HundredGigE0/0/0/0", 100_000, load=0.25 + 0.05 * i,
                            peer=("leaf4", f"HundredGigE0/0/0/{i}")))
    c.ports.append(_unused("leaf4", "HundredGigE0/0/0/3", 100_000, 0))
    for j in range(36):
        name = f"TenGigE0/0/0/4/{j}" if j < 32 else f"TenGigE0/0/0/5/{j - 32}"
        if j < len(HOSTS):
            c.ports.append(Port("leaf4", name, 10_000, load=0.6 + 0.04 * j, peer=(HOSTS[j], "eth0")))
        else:
            c.ports.append(_unused("leaf4", name, 10_000, j))
    c.ports.append(Port("leaf4", "MgmtEth0/RP0/CPU0/0", 1000, load=0.01))
    for spine, unused in zip(SPINES, (45, 45, 44), strict=True):
        c.ports += [_unused(spine, f"HundredGigE0/0/0/{k + 1}", 100_000, k) for k in range(unused)]
        c.ports.append(Port(spine, "MgmtEth0/RP0/CPU0/0", 1000, load=0.01))
    return c


def _unused(device: str, name: str, speed: int, k: int) -> Port:
    """Two of three unused ports were never configured (shut, IOS-XR's default); the third is
    configured without a cable: admin up, never up."""
    return Port(device, name, speed, admin=1 if k % 3 == 2 else 2, oper=2)


def _at(p: Port, t: datetime) -> tuple[int, int]:
    """(admin, oper) at t: the labelled shut takes the uplink down on both ends."""
    if (p.device, p.name) in (SHUT, PEER) and SHUT_AT <= t < NO_SHUT_AT:
        return (2 if (p.device, p.name) == SHUT else 1), 2
    return p.admin, p.oper


def openmetrics(c: Capture) -> str:
    """The capture as OpenMetrics text (one family at a time, each series in time order)."""
    times = [START + timedelta(seconds=s) for s in range(0, int((END - START).total_seconds()) + 1, STEP_S)]
    out: list[str] = []
    for name, kind in (("ifAdminStatus", "gauge"), ("ifOperStatus", "gauge"), ("ifHighSpeed", "gauge"),
                       ("ifHCInOctets", "gauge"), ("ifHCOutOctets", "gauge")):
        out.append(f"# TYPE {name} {kind}")
        for idx, p in enumerate(c.ports, 1):
            labels = f'{{device="{p.device}",ifName="{p.name}",ifIndex="{idx}"}}'
            octets = 0.0
            for t in times:
                admin, oper = _at(p, t)
                if name == "ifAdminStatus":
                    v: float = admin
                elif name == "ifOperStatus":
                    v = oper
                elif name == "ifHighSpeed":
                    v = p.speed_mbps
                else:  # a counter (snmp_exporter's names carry no _total)
                    rate = p.load * p.speed_mbps * 1e6 / 8 * (0.7 if name == "ifHCOutOctets" else 1.0)
                    octets += rate * STEP_S if oper == 1 else 0.0
                    v = octets
                out.append(f"{name}{labels} {v:.0f} {t.timestamp():.0f}")
    out.append("# EOF")
    return "\n".join(out) + "\n"


def store_inventory(engine: Engine, c: Capture) -> None:
    """The inventory beside the series: devices with roles, their ports and the links."""
    with Session(engine) as s:
        s.add(m.Site(name="lab1"))
        for name, role in [("leaf4", "leaf"), *((sp, "spine") for sp in SPINES),
                           *((h, "host") for h in HOSTS)]:
            s.add(m.Device(name=name, role=role, vendor="cisco", os_version="IOS XR 6.5.3",
                           site="lab1"))
        for p in c.ports:
            s.add(m.Interface(device=p.device, name=p.name, speed_mbps=p.speed_mbps,
                              admin_status="up" if p.admin == 1 else "down",
                              oper_status="up" if p.oper == 1 else "down"))
        for p in c.ports:
            if p.peer and p.device == "leaf4":
                s.add(m.Link(a_device="leaf4", a_interface=p.name, b_device=p.peer[0],
                             b_interface=p.peer[1], kind="host" if p.peer[0] in HOSTS else "fabric"))
        s.commit()


def serve(c: Capture) -> Iterator[PromStack]:
    """A real Prometheus over the capture's TSDB blocks (no scrapes)."""
    promtool = shutil.which("promtool")
    if not promtool or not shutil.which("prometheus"):
        pytest.skip("promtool/prometheus are not installed (apt-get install prometheus)")
    root = Path(tempfile.mkdtemp(prefix="netopsai-promcap-"))
    (root / "capture.om").write_text(openmetrics(c))
    subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", "-q",
                    str(root / "capture.om"), str(root / "tsdb")], check=True, capture_output=True)
    (root / "capture.om").unlink()
    stack = PromStack(root, "", {})
    stack.prom_port = free_port()
    (root / "prometheus.yml").write_text("scrape_configs: []\n")
    try:
        stack._spawn([shutil.which("prometheus") or "prometheus", f"--config.file={root / 'prometheus.yml'}",
                      f"--storage.tsdb.path={root / 'tsdb'}", "--storage.tsdb.retention.time=100y",
                      f"--web.listen-address=127.0.0.1:{stack.prom_port}"], "prometheus.log")
        stack._wait(lambda: stack._get("/-/ready") is not None, "Prometheus ready", 60)
        yield stack
    finally:
        stack.stop()
        shutil.rmtree(root, ignore_errors=True)
