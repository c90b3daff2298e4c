"""One `Case` per backend: the backends bundle (built by the configuration factory where the backend
is a real one, so the wiring is under test too) and what the shared suites need to know about it.
A new backend joins a suite by adding a builder here and its name to the suite's list in
conftest.py."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.backends.registry import build_telemetry, configured_backends
from netopsai.common.timewin import Window
from netopsai.config.load import load_netconfig
from netopsai.store.engine import create_all, engine_for
from tests.contract.stores import DEVICES, real_store


@dataclass
class Case:
    name: str
    backends: Backends
    devices: list[str]  # devices it can read (all in the inventory)
    window: Window  # a window holding data
    unreachable: Backends | None = None  # the same with one target that does not answer
    unreachable_device: str | None = None
    path: tuple[str, str] | None = None  # a src/dst pair that reaches
    broken_path: tuple[str, str] | None = None  # a pair that does not


def write_home(home: Path, config: str, secrets: str = "") -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(config)
    if secrets:
        (home / "secrets.yaml").write_text(secrets)
        (home / "secrets.yaml").chmod(0o600)
    return home


def dead_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def lab_case(engine: Engine, name: str = "lab") -> Case:
    from tests.conftest import CLOCK

    return Case(name, lab_backends(engine), ["dc1-leaf-01", "dc1-spine-01"],
                Window(start=CLOCK - timedelta(days=1), end=CLOCK),
                path=("10.1.3.20", "10.2.1.40"), broken_path=("10.1.3.20", "10.2.1.254"))


def store_case(tmp: Path, url: str | None = None) -> Case:
    """A real network's store read as polled history (telemetry: store); in SQLite, or in the
    database `url` names (PostgreSQL)."""
    engine = real_store(url or tmp / "netopsai.db")
    home = write_home(tmp / "home", "backend: {telemetry: store}\n")
    now = datetime.now(UTC)
    return Case("pgstore" if url else "store", configured_backends(engine, load_netconfig(home)),
                list(DEVICES), Window(start=now - timedelta(hours=1), end=now))


SNMP_DEVICE = "ct-cisco-sw"


def snmp_case(tmp: Path, port: int, community: str) -> Case:
    """snmpsim serving a real Cisco switch recording; a second config adds a target on a port
    nothing answers. The first read registers the device in the (real) store."""
    engine = engine_for(f"sqlite:///{tmp / 'netopsai.db'}")
    create_all(engine)
    live = f"{{host: 127.0.0.1, port: {port}, device: {SNMP_DEVICE}}}"
    dead = f"{{host: 127.0.0.1, port: {dead_udp_port()}, device: ct-dead-sw}}"
    opts = "timeout: 10, retries: 0"
    secrets = f"snmp:\n  community: ct-wrong\n  devices:\n    {SNMP_DEVICE}: {{community: {community}}}\n"
    ok = write_home(tmp / "ok", f"backend: {{telemetry: snmp}}\nsnmp: {{{opts}, targets: [{live}]}}\n",
                    secrets)
    bad = write_home(tmp / "bad", f"backend: {{telemetry: snmp}}\nsnmp: {{{opts}, targets: [{live}, "
                     f"{dead}]}}\n", secrets)
    first = build_telemetry("snmp", engine, load_netconfig(ok))  # as `netopsai poll` would
    failures = first.poll({})  # type: ignore[attr-defined]
    assert not failures, failures
    backends = configured_backends(engine, load_netconfig(ok))
    now = datetime.now(UTC)
    return Case("snmp", backends, [SNMP_DEVICE], Window(start=now - timedelta(hours=1), end=now),
                unreachable=configured_backends(engine, load_netconfig(bad)),
                unreachable_device="ct-dead-sw")


def napalm_case(tmp: Path, ports: dict[str, int], username: str, password: str) -> Case:
    """Devices over SSH (FakeNOS), discovered into the store; device-side traceroute."""
    from netopsai.backends.napalm.device import napalm_targets
    from netopsai.backends.napalm.discovery import discover

    engine = engine_for(f"sqlite:///{tmp / 'netopsai.db'}")
    devices = ", ".join(f"{{name: {n}, host: 127.0.0.1, port: {p}, driver: ios}}" for n, p in ports.items())
    home = write_home(tmp / "home", f"backend: {{paths: napalm}}\nnapalm: [{devices}]\n",
                      f"ssh: {{username: {username}, password: {password}}}\n")
    cfg = load_netconfig(home)
    discover(engine, list(napalm_targets(cfg).values()))
    now = datetime.now(UTC)
    return Case("napalm", configured_backends(engine, cfg), sorted(ports),
                Window(start=now - timedelta(hours=1), end=now), path=("10.254.7.1", "10.254.7.2"),
                broken_path=("10.254.7.1", "10.254.7.9"))


def netns_case(home: Path) -> Iterator[Case]:
    """The namespace lab (real routing, real traceroute) with the backends `auto` picks for it."""
    from netopsai_testkit.peers.netns import netns_lab

    with netns_lab(home) as (engine, _lab):
        now = datetime.now(UTC)
        yield Case("netns", configured_backends(engine, load_netconfig(home)),
                   ["ns-dc1-leaf-01", "ns-dc1-spine-01"], Window(start=now - timedelta(hours=1), end=now),
                   path=("198.18.17.20", "198.18.35.20"), broken_path=("198.18.17.20", "198.18.35.254"))


def prometheus_case(tmp: Path, snmp_port: int, community: str, url: str) -> Case:
    """Prometheus scraping snmpsim's Cisco recording through snmp_exporter (device label
    DUMSYS-90); the inventory comes from one SNMP poll of the same agent."""
    engine = engine_for(f"sqlite:///{tmp / 'netopsai.db'}")
    create_all(engine)
    poller = write_home(tmp / "poll", f"snmp: {{timeout: 10, retries: 0, targets: [{{host: 127.0.0.1, "
                        f"port: {snmp_port}, device: {PROM_DEVICE}}}]}}\n",
                        f"snmp: {{community: {community}}}\n")
    failures = build_telemetry("snmp", engine, load_netconfig(poller)).poll({})  # type: ignore[attr-defined]
    assert not failures, failures
    home = write_home(tmp / "home", f"backend: {{telemetry: prometheus}}\nprometheus: {{url: '{url}'}}\n")
    now = datetime.now(UTC)
    return Case("prometheus", configured_backends(engine, load_netconfig(home)), [PROM_DEVICE],
                Window(start=now - timedelta(minutes=10), end=now))


PROM_DEVICE = "DUMSYS-90"  # the Cisco recording's sysName
