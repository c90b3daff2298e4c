"""What a question names: addresses, devices, sites/PoDs, roles, time window, alarm categories,
alarm state, telemetry metric. Pure functions of the text, the inventory vocabulary and a clock.

Order matters: time expressions, tickets, addresses and interface names are masked first, so
their digits are never read as device numbers; then names; then keywords on what is left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from ipaddress import IPv4Address, IPv4Network
from typing import Any

from netopsai.common.errors import closest
from netopsai.planner.endpoints import Mention, endpoints
from netopsai.planner.host_mentions import address_device, dotted_names, logged_names
from netopsai.planner.hostnames import LoggedLookup, OwnerLookup, logged_lookup, owner_lookup
from netopsai.planner.keywords import keywords
from netopsai.planner.names import Hit, NameIndex, find_names
from netopsai.planner.port_forms import found, placed
from netopsai.planner.windows import Span, WindowValue, parse_when


@dataclass
class Entities:
    """What was understood; also carried to the next turn for follow-ups."""

    ips: list[str] = field(default_factory=list)
    cidrs: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)  # inventory names (hosts included)
    sites: list[str] = field(default_factory=list)  # sites named on their own, not via a device/PoD
    pods: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    window: WindowValue | None = None
    categories: list[str] = field(default_factory=list)
    state: str | None = None
    metric: str | None = None
    corrections: dict[str, str] = field(default_factory=dict)  # typed name -> inventory name
    endpoints: list[str] = field(default_factory=list)  # distinct IPs in path order (hosts resolved)
    repeated: list[str] = field(default_factory=list)  # notes: no pair, one end named twice
    conflicts: list[str] = field(default_factory=list)  # "name (IP)" where the inventory disagrees
    problems: list[str] = field(default_factory=list)  # what in the question is bad input, said
    interfaces: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)  # address-like text that is not an IPv4
    unknown: list[str] = field(default_factory=list)  # name-like text matching no inventory name
    globs: list[str] = field(default_factory=list)
    top: int | None = None
    size: int | None = None
    at: str | None = None
    zone: str | None = None  # the time zone the question named ("PDT"); None: the configured one
    since_change: bool = False  # "since the maintenance window": the start is a change record's
    jobs: list[str] = field(default_factory=list)  # compute job ids ("job 4711")
    ports: list[int] = field(default_factory=list)  # "10.2.1.40:22": a hint, no tool reads ports
    provisional: list[str] = field(default_factory=list)  # devices known only from their logs


@dataclass
class Vocabulary:
    """Inventory names the planner matches against, built once per inventory."""

    devices: list[str]
    sites: list[str]
    pods: list[str]
    roles: list[str]
    addresses: dict[str, str] = field(default_factory=dict)  # host IP or device loopback, by name
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> role, site, pod
    segments: dict[str, str] = field(default_factory=dict)  # CIDR -> PoD
    pod_sites: dict[str, str] = field(default_factory=dict)  # PoD -> site
    # question-time look-ups (planner/hostnames.py; host_mentions.py reads them): the device
    # holding an address; a device name the events store holds; the domains `ingest.domains`
    # strips from host names
    owner: OwnerLookup | None = None
    logged: LoggedLookup | None = None
    domains: tuple[str, ...] = ()

    @classmethod
    def from_inventory(cls, inv: Any, events: Any = None,
                       domains: tuple[str, ...] = ()) -> Vocabulary:
        # network devices, then GPU hosts (listed apart, like hosts, but known by their role)
        devs = [*inv.devices(None, None, None, None), *inv.devices(None, None, "gpu_host", None)]
        hosts = inv.hosts(None, None, None)
        meta = {r["name"]: {"role": r["role"], "site": r["site"], "pod": r["pod"]} for r in devs}
        for h in hosts:
            meta.setdefault(h["name"], {"role": "host", "site": h["site"], "pod": h["pod"]})
        addresses = {r["name"]: r["loopback"] for r in devs if r.get("loopback")}
        for h in hosts:
            addresses.setdefault(h["name"], h["ip"])
        pods = {r["pod"]: r["site"] for r in inv.pods(None)}
        return cls(devices=list(meta), sites=[r["site"] for r in inv.sites()], pods=list(pods),
                   roles=sorted({m["role"] for m in meta.values()}), addresses=addresses,
                   meta=meta, segments={r["cidr"]: r["pod"] for r in inv.segments(None, None)},
                   pod_sites=pods, owner=owner_lookup(inv), domains=domains,
                   logged=logged_lookup(events, domains, inv.clock) if events is not None else None)

    @cached_property
    def index(self) -> NameIndex:
        return NameIndex(self.devices, self.pods, self.sites)

    @cached_property
    def lowered(self) -> dict[str, str]:
        """Device names by their lower case: host names are case-insensitive."""
        return {n.lower(): n for n in self.devices}

    @cached_property
    def name_words(self) -> frozenset[str]:
        """The words of the inventory's names ("spine", "rail", a site's): never spell-corrected."""
        return frozenset(w for n in [*self.devices, *self.pods, *self.sites]
                         for w in re.findall(r"[a-z]+", n.lower()))

    def named(self, role: str | None = None, site: str | None = None,
              pod: str | None = None) -> list[str]:
        """Device names by role/site/PoD, for tools that filter only by device."""
        return [n for n, m in self.meta.items()
                if (role is None or m["role"] == role) and (site is None or m["site"] == site)
                and (pod is None or m["pod"] == pod) and (role == "host" or m["role"] != "host")]


_ADDR = re.compile(r"(?<![\w.])(\d+(?:\.\d+){3})(?:/(\d+))?(?![\w/])(?!\.\d)")
_TICKET = re.compile(r"\b(?:chg[-\s#]?|change\s+(?:ticket\s+)?#)(\d{3,})\b", re.I)
_GLOB = re.compile(r"(?<![\w*-])[A-Za-z][\w-]*\*[\w*-]*")
# at most 12 hyphenated words: with `(?:-\w+)*` a long chain of them was rescanned from each
# of its words (quadratic); possessive words give back nothing they need not
_NAMEISH = re.compile(r"\b[A-Za-z][A-Za-z0-9]*+(?:-[A-Za-z0-9]++){0,12}-[A-Za-z]*\d+[A-Za-z0-9]*\b")
SUGGEST = 10  # unknown names given "did you mean": past these, each is only said
_TOP = re.compile(r"\btop[\s-]*(\d{1,4})\b|\b(\d{1,4})\s+(?:worst|busiest|noisiest)\b", re.I)
_SIZE = re.compile(r"\b(\d{2,4})[\s-]*(?:bytes?|b)\b", re.I)
_JUMBO = re.compile(r"\bjumbo\b|\bmtu\b|\blarge (?:packets|frames)\b", re.I)


@dataclass
class _Text:
    """The question with recognised spans blanked out, so later passes do not re-read them."""

    raw: str
    masked: str = ""

    def __post_init__(self) -> None:
        self.masked = self.raw

    def mask(self, spans: list[Span]) -> None:
        """Blank the spans in one pass (a copy of the text per span was quadratic)."""
        chars = list(self.masked)
        for s, e in spans:
            chars[s:e] = " " * (e - s)
        self.masked = "".join(chars)


def extract(question: str, vocab: Vocabulary, clock: datetime,
            hint_sites: list[str] | None = None, zone: str = "UTC") -> tuple[Entities, str, list[str]]:
    """Entities, the masked lower-case text left for keyword rules, and notes for the user.
    `zone` is the zone of clock times the question gives without one (`ingest.timezone`)."""
    text, ent, notes = _Text(question), Entities(), []
    when = parse_when(question, clock, zone)
    ent.window, ent.at, ent.since_change = when.window, when.at, when.since_change
    ent.zone = when.zone if when.zone_given else None
    notes += when.notes
    text.mask(when.spans)
    ent.tickets = [f"CHG-{m.group(1)}" for m in _TICKET.finditer(text.masked)]
    text.mask([m.span() for m in _TICKET.finditer(text.masked)])
    dotted_names(text, ent, vocab, notes)  # host.example.net: before its labels are read alone
    positions = _addresses(text, ent, notes)
    ports = found(text.masked, _not_ports(vocab))  # every form devices print (port_forms.py)
    ent.interfaces = [_iface(m.group(0)) for m in ports]
    text.mask([m.span() for m in ports])
    ent.globs = [m.group(0) for m in _GLOB.finditer(text.masked)]
    text.mask([m.span() for m in _GLOB.finditer(text.masked)])
    positions += _names(text, ent, vocab, notes, hint_sites or [])
    positions = address_device(question, ent, vocab, positions, notes)
    logged_names(text, ent, vocab, notes)
    _placed_ports(text, ent)
    ends = endpoints(question, positions)
    ent.endpoints, ent.repeated, ent.conflicts = ends.ips, ends.repeated, ends.conflicts
    notes += ends.notes
    _unknown(text, ent, vocab, notes)
    rest = text.masked.lower()
    _sizes(rest, ent)
    keywords(rest, ent, vocab)
    return ent, rest, notes


def _not_ports(vocab: Vocabulary) -> set[str]:
    """Names that are devices, sites or PoDs, in lower case, though shaped like a port (a
    device called "lan1"): the inventory's and the events store's."""
    names = {n.lower() for n in [*vocab.devices, *vocab.sites, *vocab.pods]}
    stored = getattr(vocab.logged, "known", None)
    if callable(stored):
        names |= {n.lower() for spellings in stored().values() for n in spellings}
    return names


def _placed_ports(text: _Text, ent: Entities) -> None:
    """Ports only their place says are ports: right after a device ("sw3 1/1/38", "gw wan",
    "sw3 port 22"), as the question typed the device."""
    typed = [*ent.devices, *(t for t, n in ent.corrections.items() if n in ent.devices)]
    hits = placed(text.raw, text.masked, typed)
    ent.interfaces += [tok for _, _, tok in hits if tok not in ent.interfaces]
    text.mask([(s, e) for s, e, _ in hits])


def _unknown(text: _Text, ent: Entities, vocab: Vocabulary, notes: list[str]) -> None:
    """Name-like text that is no inventory name: the closest names, and masked so its words
    ("host" in "dc1-host-03-9") are not read as keywords."""
    found = list(_NAMEISH.finditer(text.masked))
    for i, m in enumerate(found):
        ent.unknown.append(m.group(0))
        # suggestions of the kind asked: a PoD for a PoD-like name, devices for the rest
        pool = vocab.pods if "pod" in m.group(0).lower() else vocab.devices
        near = closest(m.group(0), pool) if i < SUGGEST else []
        ent.problems.append(f"{m.group(0)!r} is not in the inventory"
                            + (f"; did you mean {', '.join(near)}?" if near else "."))
        notes.append(ent.problems[-1])
    text.mask([m.span() for m in found])


def _addresses(text: _Text, ent: Entities, notes: list[str]) -> list[Mention]:
    positions = []
    for m in _ADDR.finditer(text.masked):
        addr, plen = m.group(1), m.group(2)
        try:
            if plen is not None:
                ent.cidrs.append(str(IPv4Network(f"{addr}/{plen}", strict=False)))
            else:
                ip = str(IPv4Address(addr))
                ent.ips += [ip] if ip not in ent.ips else []
                positions.append(Mention(m.start(), m.end(), ip))
        except ValueError:
            ent.invalid.append(m.group(0))
            ent.problems.append(f"{m.group(0)} is not a valid IPv4 "
                                f"{'network' if plen else 'address'} (four numbers 0-255"
                                + (", prefix length 0-32)" if plen else ")") + ", so it was not used")
            notes.append(ent.problems[-1])
    text.mask([m.span() for m in _ADDR.finditer(text.masked)])
    return positions


def _iface(name: str) -> str:
    """Arista-style names as the inventory has them: "ethernet49" and "Et49" -> Ethernet49
    (a host's "eth0" and Juniper's "et-0/0/1" stay as typed)."""
    m = re.fullmatch(r"(?:ethernet|et)(\d+(?:/\d+)*)", name, re.I)
    return f"Ethernet{m.group(1)}" if m else name


def _names(text: _Text, ent: Entities, vocab: Vocabulary, notes: list[str],
           hint_sites: list[str]) -> list[Mention]:
    index = vocab.index
    hints = index.sites_in(text.masked) or hint_sites
    hits = find_names(text.masked, index, hints)
    positions = []
    for hit in hits:
        if hit.ambiguous:
            ent.unknown.append(hit.typed)
            ent.problems.append(f"{hit.typed!r} is ambiguous: {' or '.join(hit.ambiguous)}; "
                                "name the site")
            notes.append(ent.problems[-1])
            continue
        _add(ent, hit)
        if hit.kind == "device" and hit.name in vocab.addresses:
            positions.append(Mention(hit.start, hit.end, vocab.addresses[hit.name], hit.name))
    covered = {vocab.meta.get(d, {}).get("site") for d in ent.devices}
    covered |= {vocab.pod_sites.get(p) for p in ent.pods}
    ent.sites = [s for s in ent.sites if s not in covered]  # "leaf-03 in dc1": dc1 only qualifies
    text.mask([(h.start, h.end) for h in hits])
    return positions


def _add(ent: Entities, hit: Hit) -> None:
    bucket = {"device": ent.devices, "pod": ent.pods, "site": ent.sites}[hit.kind]
    if hit.name not in bucket:
        bucket.append(hit.name)
    if hit.typed != hit.name:
        ent.corrections[hit.typed] = hit.name


def _sizes(rest: str, ent: Entities) -> None:
    m = _TOP.search(rest)
    if m:
        ent.top = int(m.group(1) or m.group(2))
    m = _SIZE.search(rest)
    if m and 28 <= int(m.group(1)) <= 9216:
        ent.size = int(m.group(1))
    elif _JUMBO.search(rest):
        ent.size = 9000
