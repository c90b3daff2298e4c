"""What a syslog server did to a device's line, undone: the server's own header peeled off and
the device's line put back as the device sent it, so that header.peel reads it as if it had
arrived directly (the innermost device stamp wins; the server's stamp is only the receive time).

rsyslog and syslog-ng parse a device's RFC 3164 line before they write or forward it, and where
the device's line is not the RFC 3164 they expect they cut it in the wrong places (seen with a
real rsyslog 8 and syslog-ng 3 on the real-line corpus, bench/real_logs_relay.py):

- a zone word after the stamp (`Jul  3 16:39:13 CEST: %LINK...`) becomes the TAG, or RFC 5424
  APP-NAME, and the stamp gets the server's own UTC offset;
- a stamp they cannot read (`2018-7-23 01:00:34`, `14-Nov-2023 10:22:15`, `...T16:10:00+0800`)
  is split into HOSTNAME and TAG (`2018-7-23` and `01:`), or the offset into HOSTNAME (`+0800`);
- Cisco's clock mark and month (`*Jun`) or an origin id (`FE05:`) become APP-NAME;
- the device's own name after an empty HOSTNAME (`Sep 24 19:17:38  vSRX-4 rpd[1582]:`), or an
  ASA's device id (`asa %ASA-...`), is left in the message behind the server's host;
- an RFC 5424 line is kept whole behind syslog-ng's own BSD stamp and host;
- RFC 5424 forwarding writes an empty PROCID (`bird[]`) as nothing between two spaces;
- a Kiwi forward's `Original Address=` is taken as a host, a FortiOS `date=` as APP-NAME.

`unwrap` recognises those shapes only (a line in none of them comes back unchanged) and gives
the device's line back with the server's host as an origin id (`HOST: stamp ...`) where the
device sent no name of its own. A stamp the server rewrote keeps its wall clock and loses the
server-made offset, so a zone word the device printed, or `ingest.timezones`, decides.
"""

from __future__ import annotations

import re
from functools import cache
from zoneinfo import available_timezones

from netopsai.backends.syslog import header
from netopsai.backends.syslog.clock import ABBREVIATIONS, STAMP, zone_hours

_BSD = re.compile(r"(?P<stamp>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) (?P<host>\S+) (?P<msg>.*)", re.S)
_ISO = re.compile(r"(?P<stamp>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)(?P<off>Z|[+-]\d\d:\d\d) "
                  r"(?P<host>\S+) (?P<msg>.*)", re.S)
# rsyslog's RFC 5424 forward (RSYSLOG_SyslogProtocol23Format): PROCID may come out empty
_FWD = re.compile(r"1 (?P<ts>\S+) (?P<host>\S+) (?P<app>\S+) (?P<procid>\S*) (?P<msgid>\S+) "
                  r"(?P<sd>-|\[.*?\]) ?(?P<msg>.*)", re.S)
_ZONE_TAG = re.compile(r"(?P<zone>[A-Za-z]{2,32}): (?P<rest>.*)", re.S)
_TWO_SPACE = re.compile(r" (?P<name>[A-Za-z0-9][\w.-]*) (?P<rest>[\w./-]+\[\d*\]:? .*)", re.S)
_DEVICE_ID = re.compile(r"(?P<name>[A-Za-z0-9][\w.-]*) (?P<rest>%[A-Z][A-Z0-9_]*-.*)", re.S)
_EMPTY_TAG = re.compile(r": (?P<rest>[A-Za-z0-9][\w.-]*: .*)", re.S)  # ": NAME: stamp: ..."
# an ASA's or FTD's device id before its mnemonic (`dev01: %ASA-...`; EOS's agents print
# `Rib: %BGP-...`, so other mnemonics say nothing), or UniFi's comma name before its TAG
_NAMED_MNEMONIC = re.compile(r"(?P<name>[A-Za-z0-9][\w.-]*): (?P<rest>%(?:ASA|FTD)-.*)", re.S)
_ADDRESS = re.compile(r"[\d.]+|[\da-fA-F:]*:[\da-fA-F:.]+")  # a sender's address, IPv4 or IPv6
_COMMA_NAME = re.compile(r"[\w.-]+(?:,[\w.-]+)+")
_TAGGED = re.compile(r"[\w./-]+(?:\[\d*\])?: ")
_OFFSET_HOST = re.compile(r"[+-]\d\d:?\d\d")  # syslog-ng: "Mar 28 16:10:00 +0800 host ..."
_INNER_5424 = re.compile(r"1 \d{4}-\d\d-\d\dT\S+ \S+ \S+ \S+ \S+ ")
_DATE_HOST = re.compile(r"\d{4}-\d{1,2}-\d{1,2}(?:T\d{1,2})?|\d{1,2}-[A-Z][a-z]{2}-\d{4}")
_DATE_TAG = re.compile(rf"(?P<date>{_DATE_HOST.pattern}): ?(?P<rest>\d\d:\d\d.*)", re.S)
_FIRST_WORD = re.compile(r"(?P<name>\S+) (?P<rest>.*)", re.S)
_MADE_OFFSET = re.compile(r"(Z|[+-]\d\d:\d\d)$")
_LOWER = re.compile(r"[a-z]+")
_SPLIT_TIME = re.compile(r"(?P<h>\d{1,2}): ?(?P<rest>\d\d:\d\d.*)", re.S)
# an origin id as APP-NAME; not a sequence number (`000049`) nor IOS-XR's node id cut at its
# first slash (`RP/0/RSP0/CPU0:` comes out as `RP`)
_ORIGIN = re.compile(r"(?!\d+$|(?:RP|LC)$)[A-Za-z0-9][\w.-]*")


def unwrap(rest: str) -> str:
    """The device's line inside a syslog server's line `rest` (after the PRI), or `rest`."""
    c, every = rest[:1], not header.SHORTCUTS  # each pattern tried where it can start
    if (every or c == "1") and (m := _FWD.match(rest)) \
            and not _INNER_5424.match(rest[m.start("msg"):]):
        return _forwarded(rest, m)
    if (every or "A" <= c <= "Z") and (m := _BSD.match(rest)):
        return _filed(rest, m)
    if (every or c.isdecimal()) and (m := _ISO.match(rest)):  # \d: a decimal digit
        return _filed(rest, m)
    return rest


def _wall(stamp: str) -> str:
    """A server's RFC 3339 rendering of a device stamp, without the offset the server made up."""
    return _MADE_OFFSET.sub("", stamp).replace("T", " ", 1)


def _device_name(word: str) -> bool:
    """A device's name before its mnemonic, not a program (all lower-case letters), a
    sequence number or a zone word."""
    return (_ORIGIN.fullmatch(word) is not None and not _LOWER.fullmatch(word)
            and not _is_zone(word))


def _is_zone(word: str) -> bool:
    """A zone word a device prints after its stamp, not a program name: an abbreviation
    (IOS-XE's `mdt` too), or the city of a tz database zone (NX-OS `clock timezone Berlin 1 0`,
    IOS `NewYork`),
    whose hours `ingest.timezones` gives."""
    if not word.isalpha():
        return False
    if word.isupper() or word.upper() in ABBREVIATIONS:
        return zone_hours(word) is not None
    return word[0].isupper() and word in _cities()


@cache
def _cities() -> frozenset[str]:
    cities = [z.rsplit("/", 1)[1] for z in available_timezones() if "/" in z]
    return frozenset(cities + [c.replace("_", "") for c in cities])  # `NewYork` for New_York


def _is_stamp(text: str, past: int) -> bool:
    """Whether a device stamp starts `text` and runs beyond its first `past` characters."""
    m = STAMP.match(text)
    return m is not None and m.end() > past


def _filed(rest: str, m: re.Match[str]) -> str:
    """A file line (or a relayed BSD datagram): the server's stamp and host, then the rest."""
    stamp, host, msg = m["stamp"], m["host"], m["msg"]
    wall = _wall(stamp) if m.re is _ISO else stamp
    if _INNER_5424.match(msg):  # syslog-ng: a whole RFC 5424 line behind its own header
        return msg
    if host == "Original" and msg.startswith("Address="):  # a Kiwi forward
        return f"{host} {msg}"
    if msg.startswith("Original Address="):
        return msg
    if _is_stamp(f"{host} {msg}", len(host) + 1):  # `May  5 2015 ...+08:00`: month as host
        return f"{host} {msg}"
    if host.isupper() and _is_zone(host):  # `... 00:07:38 UTC firepower : %FTD-...`
        return f"{wall} {host} {msg}"
    if _OFFSET_HOST.fullmatch(host):  # syslog-ng took the stamp, the offset became the host
        return f"{wall}{host} {msg}"
    if _DATE_HOST.fullmatch(host) and (t := _SPLIT_TIME.match(msg)):  # `2018-7-23` + `01:`
        sep = "" if "T" in host else " "
        return f"{host}{sep}{t['h']}:{t['rest']}"
    if (d := _DATE_TAG.match(msg)) \
            and _is_stamp(f"{d['date']}:{d['rest']}", len(d["date"]) + 1):
        return f"{host}: {d['date']}:{d['rest']}"  # the stamp's first half as the TAG
    if (z := _ZONE_TAG.match(msg)) and _is_zone(z["zone"]):
        return f"{host}: {wall} {z['zone']}: {z['rest']}"
    if t2 := _TWO_SPACE.match(msg):  # an empty HOSTNAME: the device's name is in the message
        return f"{wall} {t2['name']} {t2['rest']}"
    if dev := _DEVICE_ID.match(msg):  # an ASA's device id, no stamp of its own
        return f"{wall} {dev['name']} {dev['rest']}"
    if (n := _NAMED_MNEMONIC.match(msg)) and _device_name(n["name"]):
        return f"{stamp}{m['off'] if m.re is _ISO else ''} {n['name']} {n['rest']}"
    if (c := _FIRST_WORD.match(msg)) \
            and _COMMA_NAME.fullmatch(c["name"]) and _TAGGED.match(c["rest"]) \
            and _ADDRESS.fullmatch(host):  # the server put the sender's address for the name
        return f"{stamp}{m['off'] if m.re is _ISO else ''} {c['name']} {c['rest']}"
    if e := _EMPTY_TAG.match(msg):
        return f"{stamp} {host} {e['rest']}"
    return rest


def _forwarded(rest: str, m: re.Match[str]) -> str:
    """rsyslog's RFC 5424 forward of a line it read as RFC 3164."""
    ts, host, app, msg = m["ts"], m["host"], m["app"], m["msg"].lstrip(" ")
    if m["procid"] == "":  # `bird[]`: an empty PROCID is NILVALUE
        return rest[:m.start("procid")] + "-" + rest[m.end("procid"):]
    if m["msgid"] != "-" or m["sd"] != "-":  # the device's own RFC 5424
        return rest
    if host == "Original" and app.startswith("Address="):  # a Kiwi forward
        return f"{host} {app} {msg}"
    if "=" in app:  # FortiOS key=value: the first pair is no program; read as rsyslog's file
        return f"{ts} {host} {app} {msg}"  # line would be (header.py: the host column stays)
    if _is_stamp(f"{host} {msg}", len(host) + 1):  # `May` as HOSTNAME, the rest of the stamp
        return f"{host} {msg}"
    if host.isupper() and _is_zone(host):  # `UTC` as HOSTNAME, the device's name as APP-NAME
        return f"{_wall(ts)} {host} {app} {msg}"
    if _DATE_HOST.fullmatch(host) and _is_stamp(f"{host} {app}:{msg}", len(host) + len(app) + 2):
        return f"{host} {app}:{msg}"  # rsyslog split the device's stamp into HOSTNAME and TAG
    if _is_stamp(f"{app}:{msg}", len(app) + 1):
        return f"{host}: {app}:{msg}"
    if _is_stamp(f"{app} {msg}", len(app) + 1):  # `*Jun` + `22 21:02:17.290: ...`
        return f"{host}: {app} {msg}"
    if _ORIGIN.fullmatch(app) and STAMP.match(msg):  # an origin id, then the device's stamp
        return f"{app}: {msg}"
    if _is_zone(app):
        return f"{host}: {_wall(ts)} {app}: {msg}"
    if app == "-" and (t := _TWO_SPACE.match(" " + msg)):
        return f"{_wall(ts)} {t['name']} {t['rest']}"
    if (msg.startswith(("%ASA-", "%FTD-")) and _device_name(app)) or (
            _COMMA_NAME.fullmatch(app) and _TAGGED.match(msg) and _ADDRESS.fullmatch(host)):
        return f"{ts} {app} {msg}"
    if app.startswith("%"):  # the mnemonic as APP-NAME: the device's line had no TAG
        return f"{host}: {ts} {app}: {msg}"
    # an RFC 3164 `TAG: msg` (MSG keeps the blank after the TAG's colon; a device's own RFC 5424
    # has none): read as rsyslog's RFC 3339 file has it, the TAG in the text the rules read
    if app != "-" and m["msg"].startswith(" ") and not STAMP.match(msg):
        pid = f"[{m['procid']}]" if m["procid"] != "-" else ""
        return f"{ts} {host} {app}{pid}:{m['msg']}"
    return rest
