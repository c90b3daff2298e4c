"""Parsing `traceroute -n` output (Linux traceroute 2.x), one hop line at a time.

A hop line is its number, then per probe either `*` (no reply) or an address (printed when it
differs from the previous probe's), the RTT in ms, and an optional stop code: !H host, !N
network, !P protocol unreachable, !X administratively prohibited, !S source route failed,
!F-<mtu> fragmentation needed, !<n> other ICMP codes.

Under `traceroute -6` (or traceroute6) the address is IPv6 (`2001:db8::1`, a link-local one with
its zone `fe80::1%eth0`), printed bare under -n or in brackets after a name without it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field

_HOP = re.compile(r"^\s*(\d+)\s+(.*)$")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_RTT = re.compile(r"^\d+(?:\.\d+)?$")
_CODE = re.compile(r"^!(?:[HNPXSUWVCT]|F-?\d*|\d+)?$")


def _ipv6(tok: str) -> str | None:
    """The IPv6 address a hop token holds (its brackets and zone left off: the inventory keeps
    bare addresses, as the syslog rules' peers), or None. Only a token with a colon is a
    candidate, so an RTT, `ms` or a name never is; the ipaddress module judges the rest."""
    if ":" not in tok:
        return None
    bare = tok.removeprefix("(").removesuffix(")").partition("%")[0]
    try:
        return bare if ipaddress.ip_address(bare).version == 6 else None
    except ValueError:
        return None


@dataclass
class Probe:
    ip: str | None  # None: no reply (`*`)
    rtt_ms: float | None = None
    code: str | None = None  # '!H', '!X' ...


@dataclass
class RawHop:
    hop: int
    probes: list[Probe] = field(default_factory=list)

    @property
    def answered(self) -> list[Probe]:
        return [p for p in self.probes if p.ip]

    @property
    def ip(self) -> str | None:
        return self.answered[0].ip if self.answered else None

    @property
    def code(self) -> str | None:
        return next((p.code for p in self.probes if p.code), None)

    @property
    def rtt_ms(self) -> float | None:
        rtts = [p.rtt_ms for p in self.probes if p.rtt_ms is not None]
        return round(min(rtts), 3) if rtts else None

    @property
    def loss_pct(self) -> float:
        return round(100.0 * (len(self.probes) - len(self.answered)) / max(1, len(self.probes)), 1)


def parse_hop(line: str) -> RawHop | None:
    """One hop line, or None for the header and anything else."""
    m = _HOP.match(line)
    if not m:
        return None
    hop = RawHop(int(m.group(1)))
    ip: str | None = None
    tokens = m.group(2).split()
    for i, tok in enumerate(tokens):
        if tok == "*":
            hop.probes.append(Probe(None))
        elif _IP.match(tok):  # IPv4: exactly as before
            ip = tok
        elif (v6 := _ipv6(tok)) is not None:
            ip = v6
        elif _RTT.match(tok) and i + 1 < len(tokens) and tokens[i + 1] == "ms":
            hop.probes.append(Probe(ip, float(tok)))
        elif _CODE.match(tok) and hop.probes and hop.probes[-1].ip:
            hop.probes[-1].code = "!N" if tok == "!" else tok
    return hop if hop.probes else None


def parse_output(text: str) -> list[RawHop]:
    return [h for h in (parse_hop(line) for line in text.splitlines()) if h is not None]
