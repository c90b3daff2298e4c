"""Syslog frames (RFC 5424, RFC 3164 and the variants network devices really send); what the
messages mean is in the vendor rules (netopsai.backends.syslog.rules).

RFC 5424 is split here (its fixed fields, then STRUCTURED-DATA by header.structured_data);
everything else by header.peel, which takes off the layers real lines carry before the
device's message (relay and syslog-server stamps and hosts, sequence numbers, origin ids, IOS-XR
nodes) so that the innermost device stamp and host win. Hand-written, not a PyPI parser: see
header.py for the ones weighed. `parse_frame` never fails: what cannot be split stays the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from netopsai.backends.syslog import header
from netopsai.backends.syslog.header import peel, structured_data
from netopsai.backends.syslog.relayed import unwrap

FACILITIES = ("kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
              "authpriv", "ftp", "ntp", "security", "console", "solaris-cron",
              *(f"local{i}" for i in range(8)))
SEVERITIES = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")

_PRI = re.compile(r"<(\d{1,3})>")
_V5424 = re.compile(r"1 (\S+) (\S+) (\S+) (\S+) (\S+) ")
_TAG = re.compile(r"([\w./-]+)(?:\[\d+\])?:\s")  # RFC 3164's TAG (a program, a pid)
_KIWI = re.compile(r"Original Address=\S+ ")  # Kiwi Syslog Server's forward, RFC 5424 after it


@dataclass
class SyslogMessage:
    format: Literal["rfc5424", "rfc3164"]
    facility: str
    severity: str
    text: str  # what the vendor parsers read: the message after the header
    timestamp: str | None = None
    hostname: str | None = None
    app: str | None = None  # the program (TAG, APP-NAME), or the IOS-XR node that logged it
    msgid: str | None = None
    structured: dict[str, dict[str, str]] = field(default_factory=dict)
    uptime: str | None = None  # an uptime stamp where the time should be: no time of day


def parse_frame(data: bytes) -> SyslogMessage:
    """One datagram. No PRI means user.notice (RFC 3164 4.3.3)."""
    raw = data.decode("utf-8", errors="replace").strip("\x00\r\n ")
    pri = _PRI.match(raw)
    value = int(pri.group(1)) if pri and int(pri.group(1)) < 192 else 13
    rest = raw[pri.end():] if pri else raw
    facility, severity = FACILITIES[value >> 3], SEVERITIES[value & 7]
    rest = unwrap(rest)  # what a syslog server did to the device's line, undone (relayed.py)
    every = not header.SHORTCUTS  # the shortcuts: both patterns open with a literal
    if every or rest.startswith("Original"):
        rest = rest[k.end():] if (k := _KIWI.match(rest)) else rest
    v5 = _V5424.match(rest) if every or rest.startswith("1 ") else None
    if v5:
        return _rfc5424(rest, v5, facility, severity)
    return _rfc3164(rest, facility, severity)


def _nil(text: str) -> str | None:
    return None if text == "-" else text


def _rfc5424(rest: str, v5: re.Match[str], facility: str, severity: str) -> SyslogMessage:
    ts, host, app, _procid, msgid = (_nil(g) for g in v5.groups())
    sd, pos = _structured(rest, v5.end())
    msg = rest[pos:].lstrip(" ").removeprefix("\ufeff")
    inner = peel(msg)  # a relay's RFC 5424 around the device's own line (Kiwi): the device wins
    if inner.timestamp is not None:
        ts, host, msg = inner.timestamp, inner.hostname or host, inner.text
    text = f"{msgid}: {msg}" if msgid and not msg.startswith(msgid) else msg
    if sd and not msg.strip():  # Junos `structured-data`: the port and states are there
        text = f"{text.rstrip()} {rest[v5.end():pos].strip()}".lstrip()
    return SyslogMessage("rfc5424", facility, severity, text, ts, host, app, msgid, sd)


def _structured(s: str, pos: int) -> tuple[dict[str, dict[str, str]], int]:
    """STRUCTURED-DATA: '-' or [id k="v" ...]...; a broken element leaves the rest as the
    message."""
    out: dict[str, dict[str, str]] = {}
    if s.startswith("-", pos):
        return out, pos + 1
    while (found := structured_data(s, pos)) is not None:
        out.update(found[0])
        pos = found[1]
    return out, pos


def _rfc3164(rest: str, facility: str, severity: str) -> SyslogMessage:
    h = peel(rest)
    app = _TAG.match(h.text)
    return SyslogMessage("rfc3164", facility, severity, h.text, h.timestamp, h.hostname,
                         app.group(1) if app else h.node, structured=h.structured,
                         uptime=h.uptime)


_MNEMONIC = (
    re.compile(r"%%\d\d([A-Z][\w-]*/\d/[\w-]+)"),  # Huawei VRP %%01IFNET/4/LINK_STATE(l)
    re.compile(r"%([A-Z][A-Z0-9_]*(?:-[A-Z0-9_]+)*-\d-[A-Z0-9_]+)"),  # Cisco, Arista, NX-OS
    re.compile(r"%(\d?[A-Z][A-Z0-9_]*-[A-Z]-[A-Za-z][A-Za-z0-9_]*)(?=:)"),  # Cisco SB %LINK-W-Down
    re.compile(r"^(?:[\w./-]+(?:\[\d+\])?:\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?::|\s|$)"),  # Junos
)


def mnemonic(msg: SyslogMessage) -> str | None:
    """The vendor's message id: %FAC-SEV-MNEMONIC, Huawei's MODULE/SEV/NAME, a Junos tag, or
    RFC 5424's MSGID."""
    for pattern in _MNEMONIC:
        if m := pattern.search(msg.text):
            return m.group(1)
    return msg.msgid


# --- what the messages mean: vendor rules as data (netopsai.backends.syslog.rules) ---------

from netopsai.backends.syslog.rules import Parsed, classify  # noqa: E402  (re-exported)

__all__ = ["Parsed", "SyslogMessage", "classify", "mnemonic", "parse_frame"]
