"""Hosts in a question's text (issue 24 items 2 and 6), read by the planner's entity pass
(planner/entities.py) after addresses and port names: fully qualified names ("host.example.net"
for the inventory's "host"), a lone address that is a device's own ("what happened to
10.100.0.32 Ethernet1/33?"), and names the inventory lacks but the events store holds (a
provisional device, "leaf9.example.net", "gateway"), each noted as such. What a name may be
stored under, and the look-ups behind these passes, are planner/hostnames.py's."""

from __future__ import annotations

import re
from typing import Any

from netopsai.config.domains import device_key
from netopsai.planner.hostnames import FQDN, Logged, inventory_name

# a bare name with a digit ("leaf9", "fw-02"): a candidate for a device known only from its logs
NAMEISH = re.compile(r"(?<![\w.-])[A-Za-z][\w-]{0,62}\d[\w-]{0,62}(?![\w.-])")
# a plain word with no digit and no dot ("gateway", "fw-edge", "BORDER"): a device only when the
# events store holds exactly that name
WORD = re.compile(r"(?<![\w.-])[A-Za-z][A-Za-z_-]{0,62}(?![\w.-])")
MAX_LOOKUPS = 6  # store look-ups for one question at most: a question is short
# words that make a lone address a device's (its logs, ports, alarms), not a host to reach
ABOUT_DEVICE = re.compile(r"\bhappened\b|\bflap\w*|\boptic\w*|\btransceiver\w*|\blogs?\b"
                          r"|\bevents?\b|\balarms?\b|\bwarnings?\b|\bports?\b|\binterfaces?\b"
                          r"|\bsyslog\b|\btimeline\b|\bhistory\b", re.I)


def _add(ent: Any, typed: str, name: str) -> None:
    if name not in ent.devices:
        ent.devices.append(name)
    if typed != name:
        ent.corrections[typed] = name


def _provisional(ent: Any, typed: str, found: Logged, notes: list[str]) -> None:
    _add(ent, typed, found.name)
    if found.name not in ent.provisional:
        ent.provisional.append(found.name)
        notes.append(found.note())


def dotted_names(text: Any, ent: Any, vocab: Any, notes: list[str]) -> None:
    """Fully qualified names: the inventory's device (in any case, with or without its
    domain), else a device known only from its logs. Names that are neither stay in the text
    for the other passes (the "sw-01" of an unknown "sw-01.lab" is still tried)."""
    spans, looked = [], 0
    for m in FQDN.finditer(text.masked):
        typed = m.group(0)
        name = inventory_name(typed, vocab.lowered, vocab.domains)
        if name is not None:
            _add(ent, typed, name)
            spans.append(m.span())
            continue
        if vocab.logged is None or looked >= MAX_LOOKUPS:
            continue
        looked += 1
        found = vocab.logged(typed)
        if found is not None and found.name.lower() not in vocab.lowered:
            _provisional(ent, typed, found, notes)
            spans.append(m.span())
    text.mask(spans)


def logged_names(text: Any, ent: Any, vocab: Any, notes: list[str]) -> None:
    """Bare names with a digit that no inventory name matched ("leaf9", "fw-02") but that
    logged, and plain words ("gateway", "BORDER") that are exactly a stored device name in any
    case (with or without a configured domain): devices known only from their logs, read, not
    reported as unknown. A plain word no device is stored under stays a word."""
    if vocab.logged is None:
        return
    known = _stored(vocab)
    words = [m for m in WORD.finditer(text.masked) if device_key(m.group(0), vocab.domains) in known]
    spans = []
    for m in (list(NAMEISH.finditer(text.masked))[:MAX_LOOKUPS] + words[:MAX_LOOKUPS]):
        found = vocab.logged(m.group(0))
        if found is not None and found.name.lower() not in vocab.lowered:
            _provisional(ent, m.group(0), found, notes)
            spans.append(m.span())
    text.mask(spans)


def _stored(vocab: Any) -> dict[str, list[str]]:
    """The events store's device names by device_key (none from a look-up that cannot list)."""
    known = getattr(vocab.logged, "known", None)
    return known() if callable(known) else {}


def address_device(question: str, ent: Any, vocab: Any, positions: list[Any],
                   notes: list[str]) -> list[Any]:
    """A lone address that is a network device's own (management, loopback, a port's), in a
    question about that device's ports or logs ("which ports flapped on 10.100.0.32?"), is the
    device: syslog headers name devices so; an address no device holds but that logged (a
    device kept under its sender's address) is that provisional device. An address to reach,
    or a host's, stays an address."""
    if len(ent.ips) != 1 or ent.devices or len(positions) > 1:
        return positions
    if not (ent.interfaces or ABOUT_DEVICE.search(question)):
        return positions
    ip = ent.ips[0]
    if any(a == ip and vocab.meta.get(n, {}).get("role") == "host"
           for n, a in vocab.addresses.items()):
        return positions  # a server: an end to reach
    device = vocab.owner(ip) if vocab.owner is not None else None
    found = vocab.logged(ip) if device is None and vocab.logged is not None else None
    if device is None and found is None:
        return positions
    ent.ips.remove(ip)
    if found is not None:
        _provisional(ent, ip, found, notes)
    else:
        _add(ent, ip, str(device))
    return [p for p in positions if getattr(p, "ip", None) != ip]
