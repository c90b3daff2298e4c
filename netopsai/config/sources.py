"""Which backends exist: the one table of them, by role and name, that config.yaml's
`backend:` choices are checked against and that netopsai.backends.registry builds from.

Every role a copilot reads is here: inventory, changes and alarms (the store's, filled by lab
init, import, discovery, ingest and poll), telemetry and paths (chosen per config; `auto`
resolves per network in backends/registry.py). Each backend is a `Source`: its name in
config.yaml, the role it fills, and where its builder is: a module defining
`from_config(engine, cfg)`, or `module:function`. Modules are imported only when selected, so
this table costs nothing to read and the config needs none of the backends' libraries.

It is the one registry every extension kind uses (netopsai/common/registry.py): a package
installed from elsewhere declares a Source under the entry-point group `netopsai.backends`,
read only for a name that is not built in (or a full listing), so loading a config never pays
the scan."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from netopsai.common.registry import Registry

Role = Literal["inventory", "telemetry", "paths", "changes", "alarms"]
GROUP = "netopsai.backends"


@dataclass(frozen=True)
class Source:
    name: str  # as config.yaml's backend.<role> names it
    role: Role
    module: str  # defines from_config(engine, cfg) -> the backend; or module:function


STORED = "netopsai.backends.stored"  # the store as the backend of the roles it fills
BUILTIN = (
    Source("store", "inventory", f"{STORED}:inventory"),
    Source("store", "changes", f"{STORED}:events"),
    Source("store", "alarms", f"{STORED}:events"),
    Source("lab", "telemetry", "netopsai.backends.lab.telemetry"),
    Source("store", "telemetry", "netopsai.store.telemetry"),
    Source("snmp", "telemetry", "netopsai.backends.snmp.telemetry"),
    Source("prometheus", "telemetry", "netopsai.backends.prometheus.telemetry"),
    Source("netns", "telemetry", "netopsai.backends.netns.telemetry"),
    Source("lab", "paths", "netopsai.backends.lab.paths"),
    Source("system", "paths", "netopsai.backends.traceroute.paths"),
    Source("napalm", "paths", "netopsai.backends.napalm.paths"),
)
CHOSEN = ("telemetry", "paths")  # the roles config.yaml may leave to `auto`


def _adopt(name: str, obj: object) -> list[tuple[tuple[Role, str], Source]]:
    """An entry point names a Source (its own name and role, whatever the entry point's)."""
    return [((obj.role, obj.name), obj)] if isinstance(obj, Source) else []


SOURCES: Registry[tuple[Role, str], Source] = Registry("backend", GROUP, adopt=_adopt)
for _source in BUILTIN:
    SOURCES.add((_source.role, _source.name), _source)


def register(source: Source) -> None:
    """Add (or replace) a backend, as an entry point's Source does."""
    SOURCES.add((source.role, source.name), source)


def names(role: Role, plugins: bool = False) -> tuple[str, ...]:
    """The values config.yaml accepts for a role (`auto` first for the roles it may choose);
    with `plugins`, those installed through entry points too."""
    table = SOURCES if plugins else SOURCES.known()
    auto = ("auto",) if role in CHOSEN else ()
    return (*auto, *(s.name for s in table.values() if s.role == role))


def lookup(role: Role, name: str) -> Source | None:
    return SOURCES.get((role, name))
