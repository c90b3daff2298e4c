"""Devices as networks and their logs name them (issue 24 items 2 and 6): a fully qualified name
("host.example.net" for the inventory's "host"), a device's management or interface address,
and a device the inventory does not know but whose log lines were loaded ("leaf9.example.net"):
a provisional device, read from its events only, and said to be one ("not in the inventory;
seen in N log lines from SENDER"). A name stored with a configured domain (`ingest.domains`)
and without it is one device, read under both: nothing stored is rewritten. A plain word
("gateway", "BORDER") is a device only when the store holds exactly that name (any case), never
by likeness.

This module holds the names and look-ups (the spellings a device may be stored under, the
events store's names, the inventory's address owners) and the calls a question about such a
device makes; planner/host_mentions.py reads them in a question's text. The look-ups at question
time are callbacks the vocabulary carries: the planner itself stays a function of text,
vocabulary and clock."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from netopsai.config.domains import device_key, strip_domain

# a dotted host name: labels of letters, digits and hyphens, the first starting with a letter
# (an address is four numbers and is read elsewhere); a sentence's final dot is no label
FQDN = re.compile(r"(?<![\w.-])[A-Za-z][\w-]{0,62}(?:\.[A-Za-z0-9][\w-]{0,62}){1,8}(?![\w-]|\.\w)")
KNOWN_TTL = 30.0  # seconds the store's device names are remembered: lines keep arriving


@dataclass(frozen=True)
class Logged:
    """A device name the events store holds: as stored, how many lines (at most `cap`), and
    where they came from (the sender's address, or the file they were loaded from)."""

    name: str
    lines: int
    sender: str
    capped: bool = False
    aliases: tuple[str, ...] = ()  # the same device stored with or without a configured domain

    def note(self) -> str:
        many = f"at least {self.lines}" if self.capped else str(self.lines)
        also = f" (also stored as {', '.join(self.aliases)})" if self.aliases else ""
        return (f"{self.name} is not in the inventory; seen in {many} log "
                f"line{'s' * (self.lines != 1)} from {self.sender or 'an unknown sender'}{also}")


LoggedLookup = Callable[[str], "Logged | None"]
OwnerLookup = Callable[[str], "str | None"]


def spellings(typed: str, domains: tuple[str, ...]) -> list[str]:
    """The names a typed device may be stored under: as typed, in lower case, with a configured
    domain added or removed, and (for a dotted name) its first label."""
    out = [typed, typed.lower()]
    bare = strip_domain(typed, domains)
    if bare:
        out += [bare, bare.lower()]
    elif "." not in typed:
        out += [f"{typed}.{d}" for d in domains] + [f"{typed.lower()}.{d}" for d in domains]
    if "." in typed:
        first = typed.split(".")[0]
        out += [first, first.lower()]
    return list(dict.fromkeys(out))


def inventory_name(typed: str, lowered: dict[str, str], domains: tuple[str, ...]) -> str | None:
    """The inventory device a dotted name stands for: itself in any case, else without its
    configured domain, else its first label (the domain learned: the inventory's short name)."""
    for cand in spellings(typed, domains):
        hit = lowered.get(cand.lower())
        if hit is not None:
            return hit
    return None


class LoggedNames:
    """Device names in the events store (the Alarms backend's `events`; `logged_devices` lists
    them): called with a typed name, the first spelling that logged anything, with its line
    count, sender and the other names the same device is stored under; `known()` every stored
    name by its device_key."""

    def __init__(self, events: Any, domains: tuple[str, ...], clock: Callable[[], datetime],
                 cap: int = 20_000) -> None:
        self.events, self.domains, self.clock, self.cap = events, domains, clock, cap
        self._known: tuple[float, dict[str, list[str]]] | None = None

    def known(self) -> dict[str, list[str]]:
        """Stored names by device_key, remembered KNOWN_TTL seconds; none when the store cannot
        list them (an older backend: names are then found by spelling only)."""
        now = time.monotonic()
        if self._known is not None and now - self._known[0] < KNOWN_TTL:
            return self._known[1]
        lister = getattr(self.events, "logged_devices", None)
        try:
            names = [str(n) for n in lister()] if callable(lister) else []
        except Exception:  # noqa: BLE001 - a store that cannot list names: spellings still work
            names = []
        grouped: dict[str, list[str]] = {}
        for n in names:
            grouped.setdefault(device_key(n, self.domains), []).append(n)
        self._known = (now, grouped)
        return grouped

    def stored(self, name: str) -> list[str]:
        """Every name the device `name` is stored under (itself included when stored)."""
        return self.known().get(device_key(name, self.domains), [])

    def __call__(self, typed: str) -> Logged | None:
        from netopsai.common.timewin import Window

        w = Window(start=datetime(1970, 1, 1, tzinfo=UTC), end=self.clock())
        names = list(dict.fromkeys(spellings(typed, self.domains) + self.stored(typed)))
        try:  # every spelling in one read: a question may try a few names
            rows, total = self.events.events(names, w, limit=1)
        except Exception:  # noqa: BLE001 - a store that cannot answer knows no such device
            return None
        if not rows:
            return None
        name = str(rows[-1].get("device") or typed)
        aliases = tuple(n for n in self.stored(name) if n != name)
        return Logged(name, total, str(rows[-1].get("host") or ""), capped=total >= self.cap,
                      aliases=aliases)


def logged_lookup(events: Any, domains: tuple[str, ...], clock: Callable[[], datetime],
                  cap: int = 20_000) -> LoggedNames:
    """A look-up of device names in the events store (see LoggedNames)."""
    return LoggedNames(events, domains, clock, cap)


def owner_lookup(inventory: Any) -> OwnerLookup:
    """The network device (not a host) holding an address: management, loopback or a port's."""
    def owner(ip: str) -> str | None:
        try:
            row = inventory.ip_owner(ip)
        except Exception:  # noqa: BLE001 - an address nobody holds
            return None
        if not row.get("device") or row.get("role") == "host":
            return None
        return str(row["device"])
    return owner


# what a telemetry question about a device known only from its logs reads instead: its alarms
# of the matching category (raised and cleared at the device's time) and its log lines
_LOG_CATEGORY = {"flaps": "link", "oper_status": "link", "rx_power": "optics", "tx_power": "optics"}


def logged_only(intent: str, calls: list[Any], ent: Any,
                vocab: Any) -> tuple[str, list[Any], list[str]]:
    """_logged_only, then every read of the events store also under the other names each device
    is stored under (with or without a configured domain), said once."""
    intent, calls, notes = _logged_only(intent, calls, ent, vocab)
    calls, read_too = with_aliases(calls, vocab)
    return intent, calls, notes + read_too


def with_aliases(calls: list[Any], vocab: Any) -> tuple[list[Any], list[str]]:
    """Events and alarms calls for a device read its lines stored under another spelling too
    (leaf1.dc.example.net, stored before `ingest.domains` or the inventory named it leaf1):
    nothing stored is renamed."""
    out, said = [], {}
    for c in calls:
        devices = list(c.args.get("devices") or [])
        extra = also_stored(vocab.logged, devices, c.tool, c.args.get("window")) \
            if c.tool in ("events", "alarms") else []
        if not extra:
            out.append(c)
            continue
        said.update({a: d for d in devices for a in extra
                     if device_key(a, vocab.domains) == device_key(d, vocab.domains)})
        out.append(replace(c, args={**c.args, "devices": devices + extra}))
    return out, [f"{d}: its lines stored as {a} read too (ingest.domains)" for a, d in said.items()]


def also_stored(logged: Any, devices: list[str], tool: str, window: Any) -> list[str]:
    """The other names `devices` are stored under, for a `tool` call over `window`: an alarms
    call takes a name only when it raised alarms in that window (the alarms tool refuses a
    device it knows nothing of there)."""
    stored = getattr(logged, "stored", None)
    if not callable(stored):
        return []
    extra = list(dict.fromkeys(a for d in devices for a in stored(d) if a not in devices))
    return [a for a in extra if tool != "alarms" or _alarmed(logged, a, window)]


def _alarmed(logged: Any, name: str, window: Any) -> bool:
    from netopsai.common.timewin import parse_window

    try:
        w = parse_window(window, logged.clock())  # as the tool reads it
        return bool(logged.events.alarms(None, "any", [name], None, w))
    except Exception:  # noqa: BLE001 - a window or store that cannot answer: not read
        return False


def _logged_only(intent: str, calls: list[Any], ent: Any,
                 vocab: Any) -> tuple[str, list[Any], list[str]]:
    """Calls for a question about a provisional device: the inventory and counters know nothing
    of it (telemetry and metadata would only fail), its events and alarms know all there is. A
    device diagnosis or an inventory question about it becomes its alarms and lines: a diagnosis
    of a device without ports or links could only say "healthy" over its alarms. A device
    outside the inventory can only have come from its logs (this question's or, in a follow-up,
    the one before)."""
    provisional = [d for d in ent.devices if d not in vocab.meta]
    if not provisional:
        return intent, calls, []
    note = [f"{', '.join(provisional)}: read from its log lines and alarms (no counters or "
            "links without an inventory entry)"]
    if intent == "diagnose.device" or intent.startswith("inventory."):
        return "alarms", _lines_and_alarms(provisional, ent.window, None, None), note
    kept: list[Any] = []
    rerouted = False
    for c in calls:
        devices = c.args.get("devices") or ([c.args["name"]] if c.args.get("name") else [])
        if c.tool not in ("telemetry", "metadata") or not set(devices) & set(provisional):
            kept.append(c)
            continue
        rerouted = True
        if c.tool == "metadata" or intent == "interface.history":
            continue  # the port's timeline already reads its events and alarms
        cat = _LOG_CATEGORY.get(str(c.args.get("metric")))
        kept += _lines_and_alarms(devices, c.args.get("window"), c.args.get("interface"), cat)
    if not rerouted:
        return intent, calls, []
    return ("alarms" if intent.startswith("telemetry.") else intent), kept, note


def _lines_and_alarms(devices: list[str], window: Any, interface: str | None,
                      category: str | None) -> list[Any]:
    """The devices' log lines and alarms (of `category`) in the window; for a question about
    ports going down and up, the lines first: they name the ports."""
    from netopsai.planner.calls import ToolCall

    w = {"window": window} if window else {}
    lines = ToolCall("events", {"devices": list(devices), **w,
                                **({"interface": interface} if interface else {})})
    alarms = ToolCall("alarms", {"devices": list(devices), "state": "any", **w,
                                 **({"category": category} if category else {})})
    return [lines, alarms] if category == "link" else [alarms, lines]
