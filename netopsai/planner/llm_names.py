"""The LLM planner reads names as the offline planner does (planner/hostnames.py): a name the
model proposes in a tool call — a fully qualified one ("core-rtr.example.net"), a device's own
address, a device known only from its logs — is resolved before the call is validated and run,
so the tools never refuse what the offline path would have read. What was read as what goes
into the answer's lead ("Read 'X' as Y"), as on the offline path.

And the floor: for the questions the offline planner learned this way (a name read as another,
a provisional device, one-way words, the network overview, what went down network-wide), the
model's calls are topped up with the offline plan's, so the LLM path never looks at less."""

from __future__ import annotations

from dataclasses import dataclass, field
from ipaddress import IPv4Address
from typing import Any

from netopsai.planner.complaints import ONE_WAY
from netopsai.planner.hostnames import FQDN, inventory_name
from netopsai.planner.overview import INTENT as OVERVIEW

NAME_LISTS = ("devices",)  # tool arguments that list devices by name
NAME_FIELDS = ("name",)  # one device by name (metadata; a glob stays as it is)
ADDRESS_FIELDS = ("src", "dst", "ip")  # addresses: a device or host named there is its address


@dataclass
class Resolved:
    """How the names of one planner step were read: typed -> name, and provisional devices'
    notes ("X is not in the inventory; seen in N log lines from S")."""

    read_as: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _address(text: str) -> bool:
    try:
        IPv4Address(text)
    except ValueError:
        return False
    return True


def device_name(typed: str, vocab: Any, out: Resolved) -> str:
    """The device `typed` stands for: the inventory's (in any case, with or without a configured
    domain), the device holding an address, or a device known only from its logs; else `typed`
    unchanged (the tool says what is wrong with it)."""
    if typed in vocab.meta:
        return typed
    name = inventory_name(typed, vocab.lowered, vocab.domains)
    if name is None and _address(typed) and vocab.owner is not None:
        name = vocab.owner(typed)
    if name is None and vocab.logged is not None:
        found = vocab.logged(typed)
        if found is not None and found.name.lower() not in vocab.lowered:
            name = found.name
            if found.note() not in out.notes:
                out.notes.append(found.note())
    if name is None:
        return typed
    if name.lower() != typed.lower():
        out.read_as[typed] = name
    return name


def resolve_args(args: Any, vocab: Any, out: Resolved) -> Any:
    """A tool call's arguments with its device names resolved (before validation: a host's full
    name given as a traceroute end becomes its address)."""
    if vocab is None or not isinstance(args, dict):
        return args
    new = dict(args)
    for key in NAME_LISTS:
        if isinstance(new.get(key), list):
            new[key] = [device_name(v, vocab, out) if isinstance(v, str) else v for v in new[key]]
    for key in NAME_FIELDS:
        v = new.get(key)
        if isinstance(v, str) and not any(c in v for c in "*?["):
            new[key] = device_name(v, vocab, out)
    for key in ADDRESS_FIELDS:
        v = new.get(key)
        if isinstance(v, str) and not _address(v.strip()):
            ip = vocab.addresses.get(device_name(v.strip(), vocab, out))
            if ip:
                new[key] = ip
    return new


def needs_floor(question: str, intent: str | None, entities: dict[str, Any] | None) -> bool:
    """Questions where the offline plan is the floor of the model's: the overview, one-way
    words (the diagnosis traces both ways), state changes of the whole network, a provisional
    device, a name the offline planner read as another (a full name or an address)."""
    ent = entities or {}
    if intent == OVERVIEW or ent.get("provisional"):
        return True
    if intent == "diagnose.connectivity" and ONE_WAY.search(question):
        return True
    if intent == "telemetry.status" and not (ent.get("devices") or ent.get("interfaces")):
        return True  # "what went down between 09:40 and 09:45?": every port's state
    return any(FQDN.fullmatch(t) or _address(t) for t in (ent.get("corrections") or {}))


def with_floor(pending: list[dict[str, Any]], floor: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The offline calls, then every call of the model's they do not hold (same tool and
    arguments). Offline first: a diagnosis reads its first trace as the flow asked about, so
    a model that traced the way back only does not turn the flow around. A model's trace
    between the ends of an offline trace is left to the diagnosis, which traces the way back
    itself (and probes jumbo frames) once the flow's one trace is in."""
    ends = [_ends(c) for c in floor if c["tool"] == "traceroute"]
    return floor + [c for c in pending if c not in floor
                    and not (c["tool"] == "traceroute" and _ends(c) in ends)]


def _ends(call: dict[str, Any]) -> frozenset[str]:
    return frozenset((str(call["args"].get("src")), str(call["args"].get("dst"))))


def read_names(decision: Any, base: dict[str, Any], state: Any) -> dict[str, Any]:
    """The state update for the names the model's calls were read as: lead lines ("read 'X' as
    Y", as the offline plan words them) and provisional devices' notes, each said once."""
    out: dict[str, Any] = {}
    had = list(base.get("read_as") or state.get("read_as") or [])
    said = [f"read {t!r} as {n}" for t, n in decision.read_as.items()]
    if [s for s in said if s not in had]:
        out["read_as"] = list(dict.fromkeys(had + said))
    notes = list(base.get("notes") or state.get("notes") or [])
    new = [n for n in decision.notes if not any(n in h for h in notes)]
    if new:
        out["notes"] = notes + [n + "." for n in new]
    return out
