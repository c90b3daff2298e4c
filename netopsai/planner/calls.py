"""Intent + entities -> the first tool calls, with arguments exactly as the tools' args models
take them (shared/specs/cli-and-evidence.md). A call that would need something the question did
not give (an IP, a device) is not emitted; the reason goes into the notes instead."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from netopsai.planner.entities import Entities, Vocabulary
from netopsai.planner.roce import ROCE_INTENTS


@dataclass
class ToolCall:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


Notes = list[str]
METRIC_INTENTS = {"oper_status": "telemetry.status", "flaps": "telemetry.flaps",
                  "errors": "telemetry.errors", "discards": "telemetry.discards",
                  "utilization": "telemetry.utilization", "rx_power": "telemetry.rx_power",
                  **ROCE_INTENTS}
INTENT_METRICS = {v: k for k, v in METRIC_INTENTS.items()}
DEFAULT_CHANGE_WINDOW = "24h"  # "what changed on X" means recent days, not the tools' last hour


def _scopes(ent: Entities, vocab: Vocabulary, with_pod: bool = True) -> list[dict[str, Any]]:
    """One scope per PoD (for tools that take one), else per site; naming every site is the
    same as naming none."""
    if ent.pods and with_pod:
        return [{"pod": p} for p in ent.pods]
    sites = list(dict.fromkeys(ent.sites + [vocab.pod_sites[p] for p in ent.pods if p in vocab.pod_sites]))
    if len(sites) > 1 and set(sites) >= set(vocab.sites):
        return [{}]
    return [{"site": s} for s in sites] or [{}]


def _each(key: str, values: list[str]) -> list[dict[str, Any]]:
    """One argument set per value (one call per role, per category ...), or one without."""
    return [{key: v} for v in values] or [{}]


def _window(ent: Entities, default: str | None = None) -> dict[str, Any]:
    w = ent.window if ent.window is not None else default
    return {"window": w} if w is not None else {}


def _scoped_devices(ent: Entities, vocab: Vocabulary, roles: list[str]) -> list[str]:
    """Devices named, or the devices of the roles/PoDs/sites asked about (for tools that filter
    only by device name)."""
    if ent.devices:
        return ent.devices
    names: list[str] = []
    role_opts: list[str | None] = [*roles] or [None]
    pod_opts: list[str | None] = [*ent.pods] or [None]
    for role in role_opts:
        for pod in pod_opts:
            site_opts: list[str | None] = [*ent.sites] if pod is None and ent.sites else [None]
            for site in site_opts:
                names += vocab.named(role, site, pod)
    return list(dict.fromkeys(names))


NEEDS = {"device": "a device name", "neighbors": "a device name", "interfaces": "a device name",
         "upstream": "a device name or an IP", "ip": "a valid IPv4 address"}


def _metadata(ent: Entities, vocab: Vocabulary, query: str) -> tuple[list[ToolCall], Notes]:
    if query == "hosts" and ent.devices and not _hosts_named(ent, vocab):
        return _metadata(ent, vocab, "neighbors")[0], [  # the tool has no ToR filter
            "hosts behind a switch are its neighbours of kind 'host'"]
    if query == "segments" and ent.cidrs and not ent.pods:
        pods = list(dict.fromkeys(p for c in ent.cidrs if (p := vocab.segments.get(c))))
        return [ToolCall("metadata", {"query": "segments", "pod": p}) for p in pods], \
            [] if pods else [f"{', '.join(ent.cidrs)} is not a segment in the inventory"]
    if query not in NEEDS:
        return _listing(ent, vocab, query), []
    args = _subjects(ent, vocab, query)
    calls = [ToolCall("metadata", {"query": query, **a}) for a in args]
    if calls or ent.unknown or ent.invalid:  # a bad name or address has its own note
        return calls, []
    return [], [f"a {query} lookup needs {NEEDS[query]}, and the question gave none"]


def _subjects(ent: Entities, vocab: Vocabulary, query: str) -> list[dict[str, str]]:
    """What a one-subject lookup is about: devices by name; IPs where the tool takes them, else
    the host that has the IP."""
    names = [{"name": d} for d in ent.devices]
    if query in ("neighbors", "interfaces") and len(ent.devices) == 1 and ent.interfaces:
        return [{"name": ent.devices[0], "interface": ent.interfaces[0]}]  # "what is on X Y?"
    if query == "ip":
        return [{"ip": ip} for ip in ent.ips]
    if query == "upstream":  # "dc1-host-03-1 (10.1.3.20)" is one subject, not two
        own = {vocab.addresses.get(d) for d in ent.devices}
        return names + [{"ip": ip} for ip in ent.ips if ip not in own]
    return names or [{"name": n} for ip in ent.ips if (n := _host_of(ip, vocab))]


def _listing(ent: Entities, vocab: Vocabulary, query: str) -> list[ToolCall]:
    """pods, segments, devices, hosts: one call per scope (and per role for devices)."""
    scopes = _scopes(ent, vocab, with_pod=query != "pods")
    extra: list[dict[str, Any]] = [{}]
    if query == "devices":
        roles = [r for r in ent.roles if r != "host"]
        extra = [{"role": r} for r in roles] or [{}]
        extra = [dict(e, name=g) for e in extra for g in ent.globs] if ent.globs else extra
    if query == "hosts":
        extra = [{"name": g} for g in ent.globs] or [{"name": d} for d in ent.devices] or [{}]
    return [ToolCall("metadata", {"query": query, **s, **e}) for s in scopes for e in extra]


def _hosts_named(ent: Entities, vocab: Vocabulary) -> bool:
    return all(vocab.meta.get(d, {}).get("role") == "host" for d in ent.devices)


def _host_of(ip: str, vocab: Vocabulary) -> str | None:
    return next((n for n, a in vocab.addresses.items() if a == ip), None)


def _telemetry(ent: Entities, vocab: Vocabulary, metric: str) -> tuple[list[ToolCall], Notes]:
    base: dict[str, Any] = {"metric": metric, **_window(ent), **({"top": ent.top} if ent.top else {})}
    ports = _each("interface", ent.interfaces)
    if ent.devices:
        return [ToolCall("telemetry", {**base, "devices": ent.devices, **p}) for p in ports], []
    roles = _each("role", [r for r in ent.roles if r != "host"])
    return [ToolCall("telemetry", {**base, **s, **r, **p}) for r in roles for s in _scopes(ent, vocab)
            for p in ports], []


def _device_scopes(ent: Entities, vocab: Vocabulary, roles: list[str]) -> list[dict[str, Any]]:
    """For tools without role/PoD filters: the devices meant, else one scope per site."""
    devices = _scoped_devices(ent, vocab, roles) if ent.devices or roles or ent.pods else []
    return [{"devices": devices}] if devices else _scopes(ent, vocab, with_pod=False)


def _alarms(ent: Entities, vocab: Vocabulary) -> tuple[list[ToolCall], Notes]:
    base: dict[str, Any] = {**_window(ent)}
    if ent.state:
        base["state"] = ent.state
    roles = [r for r in ent.roles if r not in ("host", "dci")]  # "DCI alarms" is the dci category
    scopes = _device_scopes(ent, vocab, roles)
    return [ToolCall("alarms", {**base, **s, **c}) for c in _each("category", ent.categories)
            for s in scopes], []


def _changes(ent: Entities, vocab: Vocabulary) -> tuple[list[ToolCall], Notes]:
    base: dict[str, Any] = {**_window(ent, DEFAULT_CHANGE_WINDOW)}
    notes = [] if ent.window else [f"no time window given: changes of the last {DEFAULT_CHANGE_WINDOW}"]
    if ent.tickets:
        return [ToolCall("changelog", {**base, "ticket": t}) for t in ent.tickets], notes
    scopes = _device_scopes(ent, vocab, [r for r in ent.roles if r != "host"])
    return [ToolCall("changelog", {**base, **s}) for s in scopes], notes


def _traces(ent: Entities, sizes: list[int | None]) -> tuple[list[ToolCall], Notes]:
    if len(ent.endpoints) < 2 and ent.repeated:
        return [], ent.repeated  # "A cannot reach A": which end was named twice
    if len(ent.endpoints) < 2:
        return [], ["a path needs a source and a destination (two IPs or host names); got "
                    + (", ".join(ent.endpoints) or "none")]
    src, dst = ent.endpoints[:2]
    extra = {"at": ent.at} if ent.at else {}
    return [ToolCall("traceroute", {"src": src, "dst": dst, **extra, **({"size": s} if s else {})})
            for s in sizes], []


def _diagnose(ent: Entities, vocab: Vocabulary) -> tuple[list[ToolCall], Notes]:
    if len(ent.endpoints) == 1 and ent.ips and not ent.repeated:
        return _metadata(ent, vocab, "ip")[0], [
            "connectivity needs a source and a destination; showing who owns the address given"]
    sizes: list[int | None] = [None] + ([ent.size] if ent.size else [])
    return _traces(ent, sizes)  # an MTU question also probes with big packets


def _device_health(ent: Entities, vocab: Vocabulary) -> tuple[list[ToolCall], Notes]:
    """A device diagnosis' first round (diagnosis/device.py); the engine then probes and checks."""
    from netopsai.diagnosis.device import device_calls

    if len(ent.devices) != 1:
        return [], ["a device diagnosis needs exactly one device name"]
    return [ToolCall(c["tool"], c["args"]) for c in device_calls(ent.devices[0], ent.window, ent.at)], []


BUILDERS: dict[str, Callable[[Entities, Vocabulary], tuple[list[ToolCall], Notes]]] = {
    "inventory.pods": lambda e, v: _metadata(e, v, "pods"),
    "inventory.segments": lambda e, v: _metadata(e, v, "segments"),
    "inventory.device": lambda e, v: _metadata(e, v, "device"),
    "inventory.devices": lambda e, v: _metadata(e, v, "devices"),
    "inventory.ip": lambda e, v: _metadata(e, v, "ip"),
    "inventory.upstream": lambda e, v: _metadata(e, v, "upstream"),
    "inventory.neighbors": lambda e, v: _metadata(e, v, "neighbors"),
    "inventory.interfaces": lambda e, v: _metadata(e, v, "interfaces"),
    "inventory.hosts": lambda e, v: _metadata(e, v, "hosts"),
    "inventory.sites": lambda e, v: _metadata(e, v, "sites"),
    "alarms": _alarms,
    "changes": _changes,
    "trace": lambda e, v: _traces(e, [e.size]),
    "diagnose.connectivity": _diagnose,
    "diagnose.device": _device_health,
    **{intent: (lambda m: lambda e, v: _telemetry(e, v, m))(metric)
       for intent, metric in INTENT_METRICS.items()},
}


def build_calls(intent: str, ent: Entities, vocab: Vocabulary) -> tuple[list[ToolCall], Notes]:
    builder = BUILDERS.get(intent)
    return builder(ent, vocab) if builder else ([], [])


def port_calls(ent: Entities) -> list[ToolCall]:
    """One port's story: what it logged, its state history, its device's alarms, its link."""
    dev, port, w = ent.devices[0], ent.interfaces[0], ent.window
    return [ToolCall("events", {"devices": [dev], "interface": port, "window": w}),
            ToolCall("telemetry", {"metric": "oper_status", "devices": [dev], "interface": port,
                                   "window": w}),
            ToolCall("alarms", {"devices": [dev], "state": "any", "window": w}),
            ToolCall("metadata", {"query": "neighbors", "name": dev, "interface": port})]
