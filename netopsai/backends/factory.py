"""The backends a copilot reads, chosen by configuration (netopsai.netconfig).

Inventory, changes and alarms always come from the store (filled by lab init, import, discovery,
ingest and poll). Telemetry and paths are chosen per config; `auto` means the lab's simulation for
the embedded lab, and polled history plus the system traceroute for a real network. Real backends
are imported by name only when selected, so the lab needs none of their libraries."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from sqlalchemy import Engine

from netopsai.backends.base import Backends, Paths, Telemetry
from netopsai.errors import NetopsError
from netopsai.netconfig import NetConfig

# backend name -> the module that implements it (imported lazily)
MODULES = {"snmp": "netopsai.backends.snmp", "prometheus": "netopsai.backends.prometheus",
           "system": "netopsai.backends.traceroute", "napalm": "netopsai.backends.napalm_"}


def resolved_kinds(engine: Engine, cfg: NetConfig) -> tuple[str, str]:
    """(telemetry, paths) with `auto` resolved for the network the store holds."""
    from netopsai.backends.network import network_kind

    real = network_kind(engine) == "real"  # also: a clear error when the store holds nothing
    choice = cfg.settings.backend
    telemetry = choice.telemetry if choice.telemetry != "auto" else ("store" if real else "lab")
    paths = choice.paths if choice.paths != "auto" else ("system" if real else "lab")
    return telemetry, paths


def configured_backends(engine: Engine, cfg: NetConfig | None = None) -> Backends:
    """The sources for one copilot; a NetopsError naming the problem when the config cannot work."""
    from netopsai.backends.lab_events import LabEvents
    from netopsai.backends.lab_inventory import LabInventory
    from netopsai.netconfig_load import load_netconfig, usage_problems

    cfg = cfg if cfg is not None else load_netconfig()
    telemetry, paths = resolved_kinds(engine, cfg)
    problems = usage_problems(cfg)
    if problems:
        raise NetopsError(problems[0])
    events = LabEvents(engine)
    return Backends(inventory=LabInventory(engine), telemetry=build_telemetry(telemetry, engine, cfg),
                    paths=build_paths(paths, engine, cfg), changes=events, alarms=events)


def build_telemetry(kind: str, engine: Engine, cfg: NetConfig) -> Telemetry:
    if kind == "lab":
        from netopsai.backends.lab_telemetry import LabTelemetry

        return LabTelemetry(engine)
    if kind == "store":
        from netopsai.backends.store_telemetry import StoreTelemetry

        return StoreTelemetry(engine)
    return _real(kind, engine, cfg)


def build_paths(kind: str, engine: Engine, cfg: NetConfig) -> Paths:
    if kind == "lab":
        from netopsai.backends.lab_paths import LabPaths

        return LabPaths(engine)
    return _real(kind, engine, cfg)


class Unavailable:
    """Stands in for a backend that cannot be built here: each call is a clear error, so the
    other tools keep working (and the tool's Evidence says why)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise NetopsError(self.reason)

    oper_status = counters = traceroute = _fail


def _real(kind: str, engine: Engine, cfg: NetConfig) -> Any:
    try:
        module = _module(kind)
    except NetopsError as exc:
        return Unavailable(str(exc))
    return _BUILDERS[kind](module, engine, cfg)


def _module(kind: str) -> ModuleType:
    name = MODULES[kind]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists but a library it needs is missing
            raise NetopsError(f"backend {kind} not available: it needs the Python package "
                              f"{exc.name!r}") from None
        raise NetopsError(f"backend {kind} not available in this installation ({name} is "
                          "missing)") from None


def _class(module: ModuleType, name: str, kind: str) -> Any:
    cls = getattr(module, name, None)
    if cls is None:
        raise NetopsError(f"backend {kind} not available: {module.__name__} has no {name}")
    return cls


def _snmp(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    return _class(module, "SnmpTelemetry", "snmp")(engine=engine, **snmp_kwargs(cfg))


def snmp_kwargs(cfg: NetConfig) -> dict[str, Any]:
    """Targets with their credentials, as the SNMP backend and `netopsai poll` take them."""
    from netopsai.backends.snmp_auth import SnmpAuth, SnmpTarget

    s, sec = cfg.settings.snmp, cfg.secrets.snmp
    auth = SnmpAuth(version=s.version, community=sec.community, user=sec.user,
                    auth_key=sec.auth_key, auth_protocol=s.auth_protocol,
                    priv_key=sec.priv_key if s.priv_protocol != "none" else None,
                    priv_protocol=s.priv_protocol if s.priv_protocol != "none" else "aes")
    targets = [SnmpTarget(host=t.host, port=t.port, name=t.device or "", auth=auth)
               for t in s.targets]
    return {"targets": targets, "timeout": s.timeout, "retries": s.retries,
            "concurrency": s.concurrency}


def _prometheus(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    p = cfg.settings.prometheus
    return _class(module, "PrometheusTelemetry", "prometheus")(url=p.url, timeout=p.timeout)


def _system(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    t = cfg.settings.traceroute
    return _class(module, "SystemPaths", "system")(engine=engine, source=t.source,
                                                    max_hops=t.max_hops, wait=t.wait,
                                                    concurrency=t.concurrency)


def _napalm(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    ssh = cfg.secrets.ssh
    devices = [d.model_dump() for d in cfg.settings.napalm]
    return _class(module, "NapalmPaths", "napalm")(engine=engine, devices=devices,
                                                    username=ssh.username or "",
                                                    password=ssh.password, key_file=ssh.key_file)


_BUILDERS: dict[str, Callable[[ModuleType, Engine, NetConfig], Any]] = {
    "snmp": _snmp, "prometheus": _prometheus, "system": _system, "napalm": _napalm}
