"""Batch input: one IP per line (checked from the probe source) or CSV `src,dst`, with an
optional header, `#` comments, blank lines and duplicate pairs. A bad line is reported with its
number and the others still run."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from ipaddress import IPv4Address
from pathlib import Path
from socket import inet_aton

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.common.errors import read_text as read_file

SOURCE_ENV = "NETOPSAI_PROBE_SOURCE"  # the configured probe source for bare IPs
DEFAULT_SITE = "dc1"
SRC_NAMES = {"src", "source", "from", "src_ip", "source_ip"}
DST_NAMES = {"dst", "dest", "destination", "to", "dst_ip", "dest_ip", "destination_ip", "ip",
             "address", "ip_address", "target", "host"}


@dataclass
class Pair:
    line: int
    src: str
    dst: str


@dataclass
class Parsed:
    pairs: list[Pair] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "line N: why"
    duplicates: int = 0
    header: bool = False


def parse_pairs(text: str, source: str | None) -> tuple[list[Pair], list[str]]:
    """The pairs to check, and a "line N: why" message per line that could not be read."""
    p = parse_input(text, source)
    return p.pairs, p.errors


def parse_input(text: str, source: str | None) -> Parsed:
    out, seen = Parsed(), {}
    order: tuple[int, int] | None = None  # (src column, dst column) named by a header
    first = True
    for n, raw in enumerate(text.splitlines(), 1):
        fields = _fields(raw)
        if not fields:
            continue
        if first and _is_header(fields):
            order, out.header = _header_order(fields), True
            first = False
            continue
        first = False
        try:
            src, dst = _pair(fields, source, order)
        except ValueError as exc:
            out.errors.append(f"line {n}: {exc}")
            continue
        if (src, dst) in seen:
            out.duplicates += 1
            continue
        seen[(src, dst)] = n
        out.pairs.append(Pair(n, src, dst))
    return out


def _fields(raw: str) -> list[str]:
    """The line's cells without its comment; commas (CSV) or, without any, whitespace separate."""
    line = raw.split("#", 1)[0].strip().strip("\ufeff")
    if not line:
        return []
    cells = [c.strip().strip('"').strip() for c in line.split(",")] if "," in line else line.split()
    while cells and not cells[-1]:  # a spreadsheet's trailing comma
        cells.pop()
    return cells


def _names(fields: list[str]) -> list[str]:
    return [re.sub(r"[\s-]+", "_", f.lower()) for f in fields]  # "Source IP" is source_ip


def _is_header(fields: list[str]) -> bool:
    """Only column names we know: anything else on line 1 is a bad line, reported as such."""
    return len(fields) <= 2 and all(n in SRC_NAMES | DST_NAMES for n in _names(fields))


def _header_order(fields: list[str]) -> tuple[int, int] | None:
    names = _names(fields)
    if len(names) == 2 and names[0] in DST_NAMES and names[1] in SRC_NAMES:
        return (1, 0)  # a "dst,src" header: honour it rather than trace the wrong way
    return None


# an address already written as IPv4Address writes it (octets 0-255 without leading zeros, ASCII
# digits only): taken as it is, as parsing 20,000 of them was most of a 10,000-pair file's reading
_CANONICAL = re.compile(r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
                        r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])")


def _ip(text: str) -> str:
    if _CANONICAL.fullmatch(text):
        return text
    try:
        return str(IPv4Address(text))
    except ValueError:
        raise ValueError(f"{text!r} is not an IPv4 address") from None


def _pair(fields: list[str], source: str | None, order: tuple[int, int] | None) -> tuple[str, str]:
    if len(fields) == 1:
        if not source:
            raise ValueError("a single IP needs a probe source (--source)")
        src, dst = source, _ip(fields[0])
    elif len(fields) == 2:
        s, d = order or (0, 1)
        src, dst = _ip(fields[s]), _ip(fields[d])
    else:
        raise ValueError(f"expected an IP or src,dst but got {len(fields)} columns")
    if src == dst:
        raise ValueError(f"source and destination are both {src}")
    return src, dst


def default_source(backends: Backends) -> str:
    """The configured probe source ($NETOPSAI_PROBE_SOURCE), else the first host of dc1 in
    the inventory (else the first host anywhere)."""
    configured = os.environ.get(SOURCE_ENV, "").strip()
    if configured:
        return check_source(configured)
    inv = backends.inventory
    sites = {s["site"] for s in inv.sites()}
    hosts = inv.hosts(DEFAULT_SITE if DEFAULT_SITE in sites else None, None, None)
    if not hosts:
        raise NetopsError("the inventory has no hosts to probe from; pass --source IP")
    return str(hosts[0]["ip"])


def ip_key(ip: str) -> bytes:
    """An address read by this parser (dotted decimal), as a sort key in IPv4Address's order:
    its four bytes, most significant first."""
    return inet_aton(ip)


def pair_key(pair: Pair) -> bytes:
    """The order the runners cut chunks in: by destination, then source (IPv4Address's order).
    Two C calls a pair: sorting 10,000 pairs by tuples of ints took ~0.04 s of the batch's
    serial start."""
    return inet_aton(pair.dst) + inet_aton(pair.src)


def check_source(source: str) -> str:
    try:
        return str(IPv4Address(source.strip()))
    except ValueError:
        raise NetopsError(f"probe source {source!r} is not an IPv4 address") from None


def read_text(path: Path) -> str:
    """The input file's text, or a one-line error naming what is wrong with it."""
    return read_file(path, "batch file")
