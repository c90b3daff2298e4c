"""The backends a copilot reads, chosen by configuration (netopsai.config.network).

Inventory, changes and alarms always come from the store (filled by lab init, import, discovery,
ingest and poll). Telemetry and paths are chosen per config; `auto` means the lab's simulation for
the embedded lab, polled history plus the system traceroute for a real network, and live reads
plus the system traceroute for the namespace lab. Real backends are imported by name only when
selected, so the lab needs none of their libraries; one that cannot be built answers every call
with a clear error instead, and the other sources keep working."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from sqlalchemy import Engine

from netopsai.backends.base import Backends, Paths, Telemetry
from netopsai.config.network import NetConfig
from netopsai.errors import NetopsError

# backend name -> the module that implements it (imported lazily)
MODULES = {"snmp": "netopsai.backends.snmp.telemetry", "prometheus": "netopsai.backends.prometheus.telemetry",
           "system": "netopsai.backends.traceroute.paths", "napalm": "netopsai.backends.napalm.paths",
           "netns": "netopsai.backends.netns.telemetry"}


def resolved_kinds(engine: Engine, cfg: NetConfig) -> tuple[str, str]:
    """(telemetry, paths) with `auto` resolved for the network the store holds."""
    from netopsai.store.network import has_netns_lab, network_kind

    real = network_kind(engine) == "real"  # also: a clear error when the store holds nothing
    choice = cfg.settings.backend
    auto = ("netns" if has_netns_lab(engine) else "store") if real else "lab"
    telemetry = choice.telemetry if choice.telemetry != "auto" else auto
    paths = choice.paths if choice.paths != "auto" else ("system" if real else "lab")
    return telemetry, paths


def configured_backends(engine: Engine, cfg: NetConfig | None = None) -> Backends:
    """The sources for one copilot; a NetopsError naming the problem when the config cannot work."""
    from netopsai.config.load import load_netconfig, usage_problems
    from netopsai.store.inventory import StoreInventory

    cfg = cfg if cfg is not None else load_netconfig()
    telemetry, paths = resolved_kinds(engine, cfg)
    problems = usage_problems(cfg)
    if problems:
        raise NetopsError(problems[0])
    events = _events(engine)
    return Backends(inventory=StoreInventory(engine), telemetry=build_telemetry(telemetry, engine, cfg),
                    paths=build_paths(paths, engine, cfg), changes=events, alarms=events)


def _events(engine: Engine) -> Any:
    """Changes and alarms from the store; the namespace lab adds the alarms its live state raises."""
    from netopsai.store.events import StoreEvents
    from netopsai.store.network import has_netns_lab

    if has_netns_lab(engine):
        try:
            return _class(_module("netns"), "NetnsAlarms", "netns")(engine)
        except NetopsError:
            pass  # the store's own alarms still answer
    return StoreEvents(engine)


def build_telemetry(kind: str, engine: Engine, cfg: NetConfig) -> Telemetry:
    if kind == "lab":
        from netopsai.backends.lab.telemetry import LabTelemetry

        return LabTelemetry(engine)
    if kind == "store":
        from netopsai.store.telemetry import StoreTelemetry

        return StoreTelemetry(engine)
    return _real(kind, engine, cfg)


def build_paths(kind: str, engine: Engine, cfg: NetConfig) -> Paths:
    if kind == "lab":
        from netopsai.backends.lab.paths import LabPaths

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
        return _BUILDERS[kind](_module(kind), engine, cfg)
    except NetopsError as exc:
        return Unavailable(str(exc))


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
    from netopsai.backends.snmp.auth import SnmpAuth, SnmpTarget

    s = cfg.settings.snmp
    priv_protocol = None if s.priv_protocol == "none" else s.priv_protocol
    targets = []
    for t in s.targets:
        sec = cfg.secrets.snmp.for_target(t.name)
        auth = SnmpAuth(version=s.version, community=sec.community, user=sec.user,
                        auth_key=sec.auth_key, auth_protocol=s.auth_protocol,
                        priv_key=sec.priv_key if priv_protocol else None,
                        priv_protocol=priv_protocol or "aes")
        targets.append(SnmpTarget(host=t.host, port=t.port, name=t.device or "", auth=auth))
    return {"targets": targets, "timeout": s.timeout, "retries": s.retries,
            "concurrency": s.concurrency}


def _prometheus(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    p = cfg.settings.prometheus
    return _class(module, "PrometheusTelemetry", "prometheus")(url=p.url, timeout=p.timeout,
                                                               device_label=p.device_label)


def _system(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    t = cfg.settings.traceroute
    return _class(module, "SystemPaths", "system")(engine=engine, source=t.source,
                                                    max_hops=t.max_hops, wait=t.wait,
                                                    concurrency=t.concurrency)


def _napalm(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    return _class(module, "NapalmPaths", "napalm")(engine=engine, targets=napalm_targets(cfg))


def napalm_targets(cfg: NetConfig) -> dict[str, Any]:
    """Inventory name -> DeviceTarget with the SSH credentials of secrets.yaml."""
    from pydantic import SecretStr

    from netopsai.backends.napalm.device import DeviceTarget

    ssh = cfg.secrets.ssh
    out = {}
    for d in cfg.settings.napalm:
        extra: dict[str, Any] = dict(d.optional_args)
        if ssh.key_file is not None:  # napalm's SSH drivers take a key file as optional args
            extra |= {"key_file": str(ssh.key_file.expanduser()), "use_keys": True}
        port = {"port": d.port} if d.port else {}
        out[d.name] = DeviceTarget(host=d.host, driver=d.driver, name=d.name, optional_args=extra,
                                   username=ssh.username or "",
                                   password=ssh.password or SecretStr(""), **port)
    return out


def _netns(module: ModuleType, engine: Engine, cfg: NetConfig) -> Any:
    return _class(module, "NetnsTelemetry", "netns")(engine)


_BUILDERS: dict[str, Callable[[ModuleType, Engine, NetConfig], Any]] = {
    "netns": _netns, "snmp": _snmp, "prometheus": _prometheus, "system": _system, "napalm": _napalm}
