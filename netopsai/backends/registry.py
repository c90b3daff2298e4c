"""The backends a copilot reads, chosen by configuration (netopsai.config.network), and the one
table of them.

Inventory, changes and alarms always come from the store (filled by lab init, import, discovery,
ingest and poll). Telemetry and paths are chosen per config; `auto` means the lab's simulation for
the embedded lab, polled history plus the system traceroute for a real network, and live reads
plus the system traceroute for the namespace lab.

Every selectable backend is a `Source` in BUILTIN: its name in config.yaml, the role it fills,
and the module that implements it, which defines `from_config(engine, cfg)`. The config's
allowed values come from this table, so a new backend is its folder plus one line here; one
installed from elsewhere declares a Source under the entry-point group `netopsai.backends`
(read only when a config names a backend that is not built in: scanning entry points costs
~0.1 s). Modules are imported by name only when selected, so the lab needs none of the real
sources' libraries; one that cannot be built answers every call with a clear error instead,
and the other sources keep working."""

from __future__ import annotations

import importlib
import logging
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from netopsai.common.errors import NetopsError

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.backends.base import Backends, Paths, Telemetry
    from netopsai.config.network import NetConfig

Role = Literal["telemetry", "paths"]
GROUP = "netopsai.backends"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Source:
    name: str  # as config.yaml's backend.telemetry / backend.paths names it
    role: Role
    module: str  # defines from_config(engine, cfg) -> the backend


BUILTIN = (
    Source("lab", "telemetry", "netopsai.backends.lab.telemetry"),
    Source("store", "telemetry", "netopsai.store.telemetry"),
    Source("snmp", "telemetry", "netopsai.backends.snmp.telemetry"),
    Source("prometheus", "telemetry", "netopsai.backends.prometheus.telemetry"),
    Source("netns", "telemetry", "netopsai.backends.netns.telemetry"),
    Source("lab", "paths", "netopsai.backends.lab.paths"),
    Source("system", "paths", "netopsai.backends.traceroute.paths"),
    Source("napalm", "paths", "netopsai.backends.napalm.paths"),
)
SOURCES: dict[tuple[Role, str], Source] = {(s.role, s.name): s for s in BUILTIN}
_plugins_read = False


def register(source: Source) -> None:
    """Add (or replace) a backend, as an entry point's Source does."""
    SOURCES[(source.role, source.name)] = source


def _read_plugins() -> None:
    global _plugins_read
    if _plugins_read:
        return
    from importlib.metadata import entry_points

    _plugins_read = True
    for ep in entry_points(group=GROUP):
        try:
            source = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the config
            log.warning("backend plugin %s not loaded: %s: %s", ep.name, type(exc).__name__, exc)
            continue
        if isinstance(source, Source):
            register(source)


def names(role: Role, plugins: bool = False) -> tuple[str, ...]:
    """The values config.yaml accepts for a role, `auto` first; with `plugins`, those installed
    through entry points too."""
    if plugins:
        _read_plugins()
    return ("auto", *(s.name for s in SOURCES.values() if s.role == role))


def lookup(role: Role, name: str) -> Source | None:
    if (role, name) not in SOURCES:
        _read_plugins()
    return SOURCES.get((role, name))


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
    from netopsai.store.inventory import StoreInventory

    cfg = cfg if cfg is not None else load_netconfig()
    telemetry, paths = resolved_kinds(engine, cfg)
    problems = usage_problems(cfg)
    if problems:
        raise NetopsError(problems[0])
    events = _events(engine)
    return Backends(inventory=StoreInventory(engine), telemetry=build_telemetry(telemetry, engine, cfg),
                    paths=build_paths(paths, engine, cfg), changes=events, alarms=events,
                    zone=cfg.settings.ingest.timezone, domains=tuple(cfg.settings.ingest.domains))


def _events(engine: Engine) -> Any:
    """Changes and alarms from the store; the namespace lab adds the alarms its live state raises."""
    from netopsai.store.events import StoreEvents
    from netopsai.store.network import has_netns_lab

    if has_netns_lab(engine):
        try:
            from netopsai.backends.netns.telemetry import NetnsAlarms

            return NetnsAlarms(engine)
        except NetopsError:
            pass  # the store's own alarms still answer
    return StoreEvents(engine)


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
        return _from_config(module_of(source), kind)(engine, cfg)
    except NetopsError as exc:
        return Unavailable(str(exc))


def module_of(source: Source) -> ModuleType:
    """The module behind a backend; a NetopsError saying what is missing when it cannot load."""
    kind, name = source.name, source.module
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:  # the module exists but a library it needs is missing
            raise NetopsError(f"backend {kind} not available: it needs the Python package "
                              f"{exc.name!r}") from None
        raise NetopsError(f"backend {kind} not available in this installation ({name} is "
                          "missing)") from None


def _from_config(module: ModuleType, kind: str) -> Any:
    build = getattr(module, "from_config", None)
    if build is None:
        raise NetopsError(f"backend {kind} not available: {module.__name__} has no from_config")
    return build
