"""Syslog frames (RFC 5424, RFC 3164 and the variants network devices really send); what the
messages mean is in the vendor rules (netopsai.backends.syslog.rules).

Hand-written: the PyPI parsers are unmaintained and strict RFC 3164 parsers reject what Cisco
sends (sequence numbers, `*` unsynced-clock marks, IOS-XR node ids before the timestamp, no
HOSTNAME). `parse_frame` never fails: whatever cannot be split is kept whole as the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

FACILITIES = ("kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
              "authpriv", "ftp", "ntp", "security", "console", "solaris-cron",
              *(f"local{i}" for i in range(8)))
SEVERITIES = ("emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")

_PRI = re.compile(r"<(\d{1,3})>")
_V5424 = re.compile(r"1 (\S+) (\S+) (\S+) (\S+) (\S+) ")
_SEQ = re.compile(r"\d*:\s+")  # Cisco `service sequence-numbers`; NX-OS sends a bare ": "
_XR_NODE = re.compile(r"((?:RP|LC|\d+)/\S*?CPU\d+):")  # IOS-XR "RP/0/RSP0/CPU0:" before the time
# IOS-XR `logging hostnameprefix` / a relay: "2345: router1 LC/0/2/CPU0:Nov 23 ..."
_XR_HOST = re.compile(r"([A-Za-z][\w.-]*) (?=(?:RP|LC|\d+)/\S*?CPU\d+:)")
_TS = re.compile(
    r"[*.]?(?:(?:\d{4} )?[A-Z][a-z]{2} +\d{1,2} (?:\d{4} )?\d{2}:\d{2}:\d{2}(?:\.\d+)?"
    r"(?: [A-Z]{2,5}(?=:? )|[+-]\d{2}:?\d{2}(?=:? ))?"
    r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?):?\s+")
# Cisco `logging origin-id hostname`: "R1: *Mar  1 ..." (a name, then the time or an XR node)
_ORIGIN = re.compile(r"([A-Za-z][\w.-]*):\s+(?=[*.]?[A-Z][a-z]{2} |\d{4}[ -]|RP/|LC/)")


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


def parse_frame(data: bytes) -> SyslogMessage:
    """One datagram. No PRI means user.notice (RFC 3164 4.3.3)."""
    raw = data.decode("utf-8", errors="replace").strip("\x00\r\n ")
    pri = _PRI.match(raw)
    value = int(pri.group(1)) if pri and int(pri.group(1)) < 192 else 13
    rest = raw[pri.end():] if pri else raw
    facility, severity = FACILITIES[value >> 3], SEVERITIES[value & 7]
    v5 = _V5424.match(rest)
    if v5:
        return _rfc5424(rest, v5, facility, severity)
    return _rfc3164(rest, facility, severity)


def _nil(text: str) -> str | None:
    return None if text == "-" else text


def _rfc5424(rest: str, v5: re.Match[str], facility: str, severity: str) -> SyslogMessage:
    ts, host, app, _procid, msgid = (_nil(g) for g in v5.groups())
    sd, pos = _structured(rest, v5.end())
    msg = rest[pos:].lstrip(" ").removeprefix("\ufeff")
    text = f"{msgid}: {msg}" if msgid and not msg.startswith(msgid) else msg
    return SyslogMessage("rfc5424", facility, severity, text, ts, host, app, msgid, sd)


def _structured(s: str, pos: int) -> tuple[dict[str, dict[str, str]], int]:
    """STRUCTURED-DATA: '-' or [id k="v" ...]... with \\" \\] \\\\ escapes in values."""
    out: dict[str, dict[str, str]] = {}
    if s.startswith("-", pos):
        return out, pos + 1
    while pos < len(s) and s[pos] == "[":
        end = pos + 1
        params: dict[str, str] = {}
        m = re.compile(r"([^\s\]=]+)").match(s, end)
        sd_id = m.group(1) if m else ""
        end = m.end() if m else end
        param = re.compile(r'\s+([^\s=\]]+)="((?:[^"\\]|\\.)*)"')
        while (pm := param.match(s, end)) is not None:
            params[pm.group(1)] = re.sub(r"\\(.)", r"\1", pm.group(2))
            end = pm.end()
        close = s.find("]", end)
        if close < 0:  # broken: keep the rest as the message
            return out, pos
        out[sd_id] = params
        pos = close + 1
    return out, pos


def _rfc3164(rest: str, facility: str, severity: str) -> SyslogMessage:
    pos = 0
    if m := _SEQ.match(rest, pos):
        pos = m.end()
    host = node = None
    if m := _ORIGIN.match(rest, pos) or _XR_HOST.match(rest, pos):
        host, pos = m.group(1), m.end()
    if m := _XR_NODE.match(rest, pos):
        node, pos = m.group(1), m.end()
    ts = None
    if m := _TS.match(rest, pos):
        ts, pos = m.group(0).rstrip(": \t"), m.end()
        token = re.match(r"(\S+)\s+(?=\S)", rest[pos:])
        if host is None and token and _is_hostname(token.group(1)):
            host, pos = token.group(1), pos + token.end()
    text = rest[pos:]
    if ts is not None and host is not None and (inner := _device_header(text)) is not None:
        # a relay's header (its own clock) around the device's own: the device's time wins
        ts, node, text = inner
    app = re.match(r"([\w./-]+)(?:\[\d+\])?:\s", text)
    return SyslogMessage("rfc3164", facility, severity, text, ts, host,
                         app.group(1) if app else node)


def _device_header(text: str) -> tuple[str, str | None, str] | None:
    """A Cisco header inside a relayed line ("1201: RP/0/RP0/CPU0:Sep  1 10:15:00.100 UTC: "):
    its time, node and the text after it; None when the text does not start with one."""
    pos, node = 0, None
    if m := _SEQ.match(text):
        pos = m.end()
    if m := _XR_NODE.match(text, pos):
        node, pos = m.group(1), m.end()
    if pos == 0 or not (m := _TS.match(text, pos)):
        return None
    return m.group(0).rstrip(": \t"), node, text[m.end():]


def _is_hostname(token: str) -> bool:
    """After the timestamp: a HOSTNAME, unless the token is already the message (%FAC-S-MN,
    a TAG ending in ':' or carrying a [pid])."""
    return not (token.startswith("%") or token.endswith(":") or "[" in token)


_MNEMONIC = (
    re.compile(r"%%\d\d([A-Z][\w-]*/\d/[\w-]+)"),  # Huawei VRP %%01IFNET/4/LINK_STATE(l)
    re.compile(r"%([A-Z][A-Z0-9_]*(?:-[A-Z0-9_]+)*-\d-[A-Z0-9_]+)"),  # Cisco, Arista, NX-OS
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
