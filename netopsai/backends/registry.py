"""The backends a copilot reads, built from the one table of them (netopsai/config/sources.py:
`Source`, `SOURCES`, `register`, `names`, `lookup`, re-exported here for the packages that
declare a Source under the entry-point group `netopsai.backends`) and configuration
(netopsai.config.network).

Every role is built through the table. Inventory, changes and alarms are the store's unless
config.yaml names another registered source (the store is filled by lab init, import,
discovery, ingest and poll); telemetry and paths are chosen per config, and `auto` means the
lab's simulation for the embedded lab, polled history plus the system traceroute for a real
network, and live reads plus the system traceroute for the namespace lab. A backend's module is
imported by name only when selected, so the lab needs none of the real sources' libraries; a
telemetry or paths backend that cannot be built answers every call with a clear error instead,
and the other sources keep working."""

from __future__ import annotations

import importlib
import logging
from types import ModuleType
from typing import TYPE_CHECKING, Any

from netopsai.common.errors import NetopsError
from netopsai.config.sources import BUILTIN, GROUP, SOURCES, Role, Source, lookup, names, register

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.backends.base import Backends, Paths, Telemetry
    from netopsai.config.network import NetConfig

__all__ = ["BUILTIN", "GROUP", "SOURCES", "Role", "Source", "configured_backends", "lookup",
           "module_of", "names", "register", "resolved_kinds"]
log = logging.getLogger(__name__)


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
    from netopsai.backends.base import Backends
    from netopsai.config.load import load_netconfig, usage_problems

    cfg = cfg if cfg is not None else load_netconfig()
    telemetry, paths = resolved_kinds(engine, cfg)
    problems = usage_problems(cfg)
    if problems:
        raise NetopsError(problems[0])
    choice = cfg.settings.backend
    made: dict[str, Any] = {}  # one object per builder: the store's changes and alarms are one reader
    alarms = _stored("alarms", choice.alarms, engine, cfg, made)
    changes = _stored("changes", choice.changes, engine, cfg, made)
    return Backends(inventory=_stored("inventory", choice.inventory, engine, cfg, made),
                    telemetry=build_telemetry(telemetry, engine, cfg),
                    paths=build_paths(paths, engine, cfg), changes=changes, alarms=alarms,
                    zone=cfg.settings.ingest.timezone, domains=tuple(cfg.settings.ingest.domains))


def _stored(role: Role, name: str, engine: Engine, cfg: NetConfig, made: dict[str, Any]) -> Any:
    """A backend of a role the copilot cannot do without (inventory, changes, alarms): built
    through the table like the others, but its failure is the copilot's, not one tool's."""
    source = lookup(role, name)
    if source is None:
        raise NetopsError(f"no {role} backend named {name!r}")
    if source.module not in made:
        made[source.module] = _from_config(source)(engine, cfg)
    return made[source.module]


def build_telemetry(kind: str, engine: Engine, cfg: NetConfig) -> Telemetry:
    return _build("telemetry", kind, engine, cfg)


def build_paths(kind: str, engine: Engine, cfg: NetConfig) -> Paths:
    return _build("paths", kind, engine, cfg)


class Unavailable:
    """Stands in for a backend that cannot be built here: each call is a clear error, so the
    other tools keep working (and the tool's Evidence says why)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise NetopsError(self.reason)

    oper_status = counters = traceroute = _fail


def _build(role: Role, kind: str, engine: Engine, cfg: NetConfig) -> Any:
    try:
        source = lookup(role, kind)
        if source is None:
            raise NetopsError(f"no {role} backend named {kind!r}")
        return _from_config(source)(engine, cfg)
    except NetopsError as exc:
        return Unavailable(str(exc))


def module_of(source: Source) -> ModuleType:
    """The module behind a backend; a NetopsError saying what is missing when it cannot load."""
    kind, name = source.name, source.module.partition(":")[0]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists but a library it needs is missing
            raise NetopsError(f"backend {kind} not available: it needs the Python package "
                              f"{exc.name!r}") from None
        raise NetopsError(f"backend {kind} not available in this installation ({name} is "
                          "missing)") from None


def _from_config(source: Source) -> Any:
    """The builder a Source names: its module's from_config, or module:function."""
    module, kind = module_of(source), source.name
    attr = source.module.partition(":")[2] or "from_config"
    build = getattr(module, attr, None)
    if build is None:
        raise NetopsError(f"backend {kind} not available: {module.__name__} has no {attr}")
    return build
