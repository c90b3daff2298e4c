"""The header of a line that is not RFC 5424: the layers that come before the device's message,
peeled from the outside in, the innermost device stamp and host winning.

What real lines put there, in any number and nesting: a syslog server's or relay's own stamp and
host column (rsyslog, syslog-ng traditional or RFC 3339, Kiwi's tab-delimited file), a whole
datagram inside it (`<189>`), Cisco sequence numbers (one or two, `000052:`, NX-OS's bare `:`,
IOS-XR's negative ones), `logging origin-id` hosts (`sw01:`, `10.100.0.32:`), IOS session-id
structured data (`[syslog@9 s_id="sw1:666"]:`), IOS-XR node ids (`RP/0/RSP0/CPU0:`), a colon
that only separates layers (`host1 : Sep 25 ...`), then the device's stamp in any form
clock.STAMP knows (or an uptime stamp, `00:00:43:`, `2y10w:`, which is no time), then an RFC
3164 HOSTNAME when the stamp did not end in `:`; with no stamp, an ASA-style device id before
the mnemonic (`<123>asa %ASA-...`). A FortiOS key=value body's own date=/time=/tz=/devname= win
last.

Hand-written over the clock's one stamp pattern: the PyPI syslog parsers are strict RFC 3164 or
RFC 5424 readers (syslogmp, syslog-rfc5424-parser, hat-syslog), unmaintained or tied to a
server, and refuse the nesting and the vendor fields above. Peeling never fails: what is not a
header stays in the text. Elements seen after an outer stamp count only when an inner stamp
follows them (else `123: text` of a relayed message would lose its `123: `).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netopsai.backends.syslog.clock import STAMP, zone_hours

_PRI = re.compile(r"<(\d{1,3})>")
_SEQ = re.compile(r"-?\d+:\s+")  # `service sequence-numbers`; IOS-XR relays print negative ones
_BARE_SEQ = re.compile(r":\s+")  # NX-OS right after the PRI: "<189>: 2021 Sep  9 ..."
# a colon that only separates layers, before a stamp: FTD "<166>:Feb 26 11:26:52 UTC:", an ASA
# behind a server "host1.example.com : Sep 25 15:47:07 EDT: %ASA-..."
_COLON = re.compile(rf"\s?:\s*(?={STAMP.pattern})")
# IOS-XR "RP/0/RSP0/CPU0:" (and its admin plane's "0/RP0/ADMIN0:") before the time
_NODE = re.compile(r"((?:RP|LC|\d+)/\S*?(?:CPU|ADMIN)\d+):\s*")
# FortiOS's key=value body: its own date=, time=, tz= ("+0800", "UTC+2:00") and devname= fields,
# wherever they stand ("logver=... tz=... devname=... date=... time=..." or date= first)
_KV = re.compile(r'(?<![\w"])(date|time|tz|devname)=("[^"]*"|\S+)')
_KV_TZ = re.compile(r"(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})")
_UPTIME = re.compile(r"(?:\d+[ywdh]\d+[ywdhm]|\d+:\d{2}:\d{2}(?:\.\d+)?):\s+")  # 2y10w: 00:00:43:
_NAME = r"[A-Za-z0-9][\w.-]*"
# `logging origin-id`: a name, a colon, then more header (a sequence number, a stamp, a node, SD)
# (the IOS session id's `[syslog@9 s_id="..."]` has a param: FRR's log id `[MR3ZF-ATDBY]` has none)
_ORIGIN = re.compile(rf"({_NAME}):\s+(?=(?:{STAMP.pattern})|-?\d+:\s|(?:RP|LC|\d+)/|\[[^\]]*=|"
                     rf"\d+[ywdh]\d+[ywdhm]:)")
# a device id right after the PRI when no stamp is sent: before the mnemonic ("<123>asa
# %ASA-..."), or before UniFi's "MAC,MODEL-FIRMWARE:" tag ("<15>Bedroom 7483c2,USW-8-6.5.59: ")
_DEVICE_ID = re.compile(rf"({_NAME}) (?=%[A-Z][A-Z0-9_]*-|[^\s,:]+,[^\s:]+:\s)")
_XR_HOST = re.compile(rf"({_NAME}) (?=(?:RP|LC|\d+)/\S*?CPU\d+:)")  # "router1 LC/0/2/CPU0:..."
_SD = re.compile(r"\[([^\s\]=]+)((?:\s+[^\s=\]]+\s*=\s*\"(?:[^\"\\]|\\.)*\")*)\s*\](?::?\s+|(?=\[)|$)")
_PARAM = re.compile(r'([^\s=\]]+)\s*=\s*"((?:[^"\\]|\\.)*)"')
_BRACKETED = re.compile(r"\[\s*(?:\d+\.\d+|([A-Z][a-z]{2} [^\]]+))\]\s+")
# OpenWrt logread's "daemon.notice", MikroTik's "firewall,info" (words only: a UniFi host is
# "UDMPRO,a2edd0c6ae48,udm-1.10.0.3686"): the message's own words
# and SONiC's severity column after an empty host ("17:52:41.788610  INFO kernel: ...")
_NOT_HOST = re.compile(r"(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|"
                       r"local[0-7])\.(?:emerg|alert|crit|err|warn|warning|notice|info|debug)$|[a-z]+(?:,[a-z]+)+$|"
                       r"(?:EMERG|ALERT|CRIT|ERR|ERROR|WARN|WARNING|NOTICE|INFO|DEBUG)$")
# Kiwi Syslog Server's tab-delimited log file: date, time, facility.level, host, message; a copy
# whose tabs became blanks ("13:33:11     Local4.Critical 192.168.0.1     ...") is read by Kiwi's
# own facility and level names only, so a server's "date time host.lan addr msg" stays itself
_KIWI_LEVEL = (r"(?i:Local[0-7]|Kernel|User|Mail|System|Daemon|Auth|Security|Syslog|Lpr|News|"
               r"UUCP|Cron|Authpriv|FTP)\.(?i:Emerg|Emergency|Alert|Critical|Crit|Error|Err|"
               r"Warning|Warn|Notice|Info|Debug)")
_KIWI_FILE = re.compile(r"(\d{4}-\d{2}-\d{2})[\t ](\d{2}:\d{2}:\d{2})(?:\t[A-Za-z0-9]+\.[A-Za-z]+\t"
                        rf"([^\t]+)\t| +{_KIWI_LEVEL} +(\S+) +)")
# ArubaOS-Switch/ProCurve event log as `show logging` prints it: a severity letter, mm/dd/yy,
# the time, then the event number ("I 05/18/13 17:13:31 00077 ports: port 21 is now off-line")
_PROCURVE_LOG = re.compile(r"\s*[IWMDE] (\d{2})/(\d{2})/(\d{2}) (\d{2}:\d{2}:\d{2}) +(?=\d{5} )")
# compiled once: `re.match(text_pattern, ...)` looks its pattern up again on every call
_STAMP_END = re.compile(r" ?:\s+| :(?=\S)|:$|\s+|$")  # what may follow a stamp
_TOKEN = re.compile(r"(\S+)\s+(?=\S)")  # a word after a stamp: a HOSTNAME or the message
_KEY = re.compile(r"\w+=")
MAX_LAYERS = 12  # a header has a handful of elements; a line of "1: 1: 1: ..." stops here


@dataclass
class Header:
    timestamp: str | None = None  # the innermost device stamp, as written (None: none)
    hostname: str | None = None
    node: str | None = None  # the IOS-XR node that logged it
    uptime: str | None = None  # an uptime stamp instead of a time
    text: str = ""  # the message after the header
    structured: dict[str, dict[str, str]] = field(default_factory=dict)


def structured_data(text: str, pos: int = 0) -> tuple[dict[str, dict[str, str]], int] | None:
    """One `[id k="v" ...]` element at `pos` (RFC 5424 STRUCTURED-DATA, IOS's `s_id ="x"` with
    a blank before `=` too): its id and params (\\" \\] \\\\ unescaped), and where it ends."""
    m = _SD.match(text, pos)
    if m is None:
        return None
    params = {k: re.sub(r"\\(.)", r"\1", v) for k, v in _PARAM.findall(m.group(2))}
    return {m.group(1): params}, m.end()


def stamp_at(text: str, pos: int) -> tuple[str, int, bool] | None:
    """The device stamp at `pos`: its text, where the header goes on, and whether it ended in
    a colon (Cisco's `Mmm dd hh:mm:ss.mmm TZ:`, after which the message starts at once)."""
    m = STAMP.match(text, pos)
    if m is None:
        return None
    end = m.end()
    if m["zone"] and zone_hours(m["zone"]) is None:  # a hostname, not a zone: "... 10:00:00 core"
        end = m.start("zsp")
    # Cisco small-business puts a blank before the colon: "14-Nov-2023 09:06:35 :%LINK-W-Down"
    rest = _STAMP_END.match(text, end)
    if rest is None:  # "10:00:00x": not a stamp
        return None
    return text[pos:end], rest.end(), ":" in rest.group(0)


def peel(rest: str) -> Header:
    """The header of `rest` (a line after its PRI)."""
    c, every = rest[:1], not SHORTCUTS  # Kiwi's file opens with a year, ProCurve's with a letter
    if (every or c.isdecimal()) and (kiwi := _KIWI_FILE.match(rest)):  # the server's columns
        # as a stamp and a host column
        rest = f"{kiwi.group(1)} {kiwi.group(2)} {kiwi.group(3) or kiwi.group(4)} {rest[kiwi.end():]}"
        c = rest[:1]
    if (every or c.isspace() or c in "IWMDE") and (log := _PROCURVE_LOG.match(rest)):
        # the switch's own buffer: no host, 2-digit years
        month, day, yy, clock = log.groups()
        year = (1900 if int(yy) >= 70 else 2000) + int(yy)  # 01/01/90: a clock never set
        return Header(timestamp=f"{year}-{month}-{day} {clock}", text=rest[log.end():])
    h, pos, done = Header(), 0, 0  # done: where the last element that counts ended
    pending: str | None = None  # a host not yet confirmed by a stamp, node or uptime after it
    after_pri = True
    for _ in range(MAX_LAYERS):
        step = _element(rest, pos, h, after_pri)
        if step is None:
            break
        pos, kind, value, final = step
        after_pri = kind == "pri"
        if kind == "host":
            pending = value
        elif kind in ("stamp", "node", "uptime"):  # what came before it was header too
            h.hostname = value or pending or h.hostname
            pending, done = None, pos
        if final:
            break
    if done == 0 and h.timestamp is None:  # no stamp at all: numbers and names before the text
        h.hostname, done = pending or h.hostname, pos
    h.text = rest[done:]
    _key_values(h)
    return h


def _key_values(h: Header) -> None:
    """A key=value body (FortiOS) carries the device's own date, time and zone, and its name:
    they win over a server's stamp; a header's host (a server's column) stays."""
    if not _KEY.match(h.text):
        return
    kv: dict[str, str] = {}
    for key, value in _KV.findall(h.text):
        kv.setdefault(key, value.strip('"'))
    date, time = kv.get("date", ""), kv.get("time", "")
    if not (re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) and re.fullmatch(r"\d{2}:\d{2}:\d{2}", time)):
        return
    zone = _KV_TZ.fullmatch(kv.get("tz", ""))
    offset = f"{zone.group(1)}{int(zone.group(2)):02d}:{zone.group(3)}" if zone else ""
    h.timestamp, h.uptime = f"{date} {time}{offset}", None
    h.hostname = h.hostname or kv.get("devname") or None


# What each element can start with, for an ASCII character (any other tries every pattern): a
# line's header has two or three elements and its message none, and most of a header's time
# went to patterns tried where their first character could not match
SHORTCUTS = True  # False: every pattern everywhere (the tests compare the two)
_DIGIT = frozenset("0123456789")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") | _DIGIT
_OPENS = {
    "seq": _DIGIT | {"-"},
    "colon": frozenset(": \t\n\r\f\v\x1c\x1d\x1e\x1f"),  # \s? then ':'
    "node": _DIGIT | {"R", "L"},
    "stamp": _DIGIT | set("*.JFMASONDTW"),  # a clock mark, a year, a month, a weekday, a day
}


def _element(s: str, pos: int, h: Header,
             after_pri: bool) -> tuple[int, str, str | None, bool] | None:
    """The next header element at `pos`: where it ends, what it was, its value (a host) and
    whether the message follows at once; None when the message starts here. Fills `h` with
    stamps, nodes and structured data."""
    c = s[pos:pos + 1]
    every = not (SHORTCUTS and c and c.isascii())  # no shortcut: try each pattern
    if pos > 0 and (every or c == "<") and (m := _PRI.match(s, pos)):  # a datagram inside a
        return m.end(), "pri", None, False                             # server's file line
    if (m := (_BARE_SEQ.match(s, pos) if after_pri and (every or c == ":") else None)
            or (_SEQ.match(s, pos) if every or c in _OPENS["seq"] else None)):
        return m.end(), "seq", None, False
    if (every or c in _OPENS["colon"]) and (m := _COLON.match(s, pos)):
        return m.end(), "seq", None, False
    if s.startswith("[", pos) and (sd := structured_data(s, pos)) is not None:
        h.structured.update(sd[0])
        sid = next((p["s_id"] for p in sd[0].values() if "s_id" in p), None)
        return sd[1], "host" if sid else "sd", sid.rsplit(":", 1)[0] if sid else None, False
    if (every or c in _OPENS["node"]) and (m := _NODE.match(s, pos)):
        h.node = m.group(1)
        return m.end(), "node", None, False
    if (every or c == "[") and (m := _BRACKETED.match(s, pos)):  # dmesg: "[471069.670168] "
        if m.group(1) and (inner := stamp_at(m.group(1), 0)):    # uptime, -T "[Thu Sep 15 ...] "
            h.timestamp, h.uptime = inner[0], None
        else:
            h.timestamp, h.uptime = None, m.group(0).strip()
        return m.end(), "stamp", None, True
    if (every or c in _OPENS["stamp"]) and (stamp := stamp_at(s, pos)):
        h.timestamp, h.uptime = stamp[0], None
        end, colon = stamp[1], stamp[2]
        token = _TOKEN.match(s, end)
        if colon or token is None or not _is_hostname(token.group(1)):
            return end, "stamp", None, True
        return token.end(), "stamp", token.group(1), False  # RFC 3164's HOSTNAME
    if not (every or c in _ALNUM):  # uptime, origin, XR host and device id: a digit or a name
        return None
    if m := _UPTIME.match(s, pos):
        h.timestamp, h.uptime = None, m.group(0).rstrip(": \t")
        return m.end(), "uptime", None, True
    if m := _ORIGIN.match(s, pos) or _XR_HOST.match(s, pos):
        return m.end(), "host", m.group(1), False
    if after_pri and (m := _DEVICE_ID.match(s, pos)):
        return m.end(), "host", m.group(1), True
    return None


def _is_hostname(token: str) -> bool:
    """After a stamp: a HOSTNAME, unless the token is already the message (%FAC-S-MN, a TAG
    ending in ':' or carrying a [pid], an inner <PRI>, a facility.severity)."""
    return not (token.startswith(("%", "<")) or token.endswith(":") or "[" in token
                or _NOT_HOST.match(token))
