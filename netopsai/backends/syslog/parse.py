"""Syslog frames (RFC 5424, RFC 3164 and the variants network devices really send) and the
vendor messages that mean a link, a BGP session or an optic went down or came back.

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


# --- what the messages mean -------------------------------------------------------------------

Kind = Literal["LINK_DOWN", "BGP_DOWN", "OPTICS_LOS"]
_IP = r"[0-9A-Fa-f:.]*[0-9A-Fa-f]"
_IF_TAIL = r"[\w./:-]*\d"
_IF = r"[A-Za-z]" + _IF_TAIL


@dataclass(frozen=True)
class Parsed:
    kind: Kind
    action: Literal["raise", "clear"]
    category: str
    interface: str | None = None
    peer: str | None = None

    @property
    def subject(self) -> str | None:
        return self.peer or self.interface


def _updown(state: str) -> Literal["raise", "clear"] | None:
    return {"down": "raise", "up": "clear"}.get(state.lower())  # type: ignore[return-value]


def _link(text: str) -> Parsed | None:
    """Cisco IOS/NX-OS/IOS-XR and Arista LINK/LINEPROTO UPDOWN, NX-OS ETHPORT, Junos mib2d."""
    m = (re.search(rf"%(?:PKT_INFRA-)?LINK-\d-UPDOWN\s*:\s*Interface ({_IF}), changed state to (\w+)",
                   text)
         or re.search(rf"%(?:PKT_INFRA-)?LINEPROTO-\d-UPDOWN\s*:\s*Line protocol on Interface ({_IF}),"
                      r" changed state to (\w+)", text)
         or re.search(rf"SNMP_TRAP_LINK_(DOWN|UP)\b.*?\bifName ({_IF})", text))
    if m:
        ifname, state = (m.group(2), m.group(1)) if m.group(1) in ("DOWN", "UP") else m.groups()
        action = _updown(state)
        return Parsed("LINK_DOWN", action, "link", interface=ifname) if action else None
    if m := re.search(rf"%ETHPORT-\d-IF_DOWN_(\w+)\s*:\s*Interface ({_IF}) is down", text):
        if m.group(1).startswith(("ADMIN", "CFG", "NONE")):  # shut by an operator: no fault
            return None
        return Parsed("LINK_DOWN", "raise", "link", interface=m.group(2))
    if m := re.search(rf"%ETHPORT-\d-IF_UP\s*:\s*Interface ({_IF}) is up", text):
        return Parsed("LINK_DOWN", "clear", "link", interface=m.group(1))
    return None


def _bgp(text: str) -> Parsed | None:
    """Cisco/Arista %BGP-5-ADJCHANGE and %BGP-3-NOTIFICATION, IOS-XR ROUTING-BGP, Junos rpd
    (RPD_BGP_NEIGHBOR_STATE_CHANGED, bgp_event) and Arista's old/new state form."""
    if m := re.search(rf"%(?:ROUTING-)?BGP-\d-ADJCHANGE\s*:.*?\bneighbor ({_IP})(?: vpn vrf \S+)?"
                      r" (Up|Down)\b", text):
        action = _updown(m.group(2))
        return Parsed("BGP_DOWN", action, "bgp", peer=m.group(1)) if action else None
    if m := re.search(rf"%BGP-\d-NOTIFICATION\s*:\s*(?:sent to|received from) neighbor ({_IP})", text):
        return Parsed("BGP_DOWN", "raise", "bgp", peer=m.group(1))
    m = re.search(rf"\bpeer ({_IP})\s*\([^)]*\)\s*(?:old state (\w+) event \w+ new state (\w+)"
                  r"|changed state from (\w+) to (\w+))", text)
    if not m:
        return None
    old, new = (m.group(2), m.group(3)) if m.group(2) else (m.group(4), m.group(5))
    if new == "Established":
        return Parsed("BGP_DOWN", "clear", "bgp", peer=m.group(1))
    if old == "Established":
        return Parsed("BGP_DOWN", "raise", "bgp", peer=m.group(1))
    return None  # Idle -> Connect and the like: logged as a raw event


_LOS = re.compile(r"(?i:loss of signal)|\bRX[ _-]?LOS\b|\bLOS\b")
_CLEARED = re.compile(r"(?i:\b(?:clear(?:ed)?|deasserted|recovered|restored)\b)")


def _optics(text: str) -> Parsed | None:
    """Optics loss of signal in its vendor spellings: 'loss of signal', RX_LOS, IOS-XR fault
    manager 'RX LOS :DECLARE' / ':CLEAR'."""
    if not _LOS.search(text):
        return None
    m = (re.search(rf"\bInterface ({_IF})", text)
         or re.search(rf"\b((?:Optics|TenGig|TwentyFiveGig|FortyGig|HundredGig|FourHundredGig"
                      rf"|Ethernet|Eth|Gi|Te|Hu|xe-|et-|ge-){_IF_TAIL})", text))
    action: Literal["raise", "clear"] = "clear" if _CLEARED.search(text) else "raise"
    return Parsed("OPTICS_LOS", action, "optics", interface=m.group(1) if m else None)


def classify(text: str) -> Parsed | None:
    """What a message says happened, or None for a line we do not understand (kept raw)."""
    return _link(text) or _bgp(text) or _optics(text)
