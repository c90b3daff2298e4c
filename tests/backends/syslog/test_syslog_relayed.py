"""Real device lines as rsyslog and syslog-ng cut them (netopsai.backends.syslog.relayed): the
device's own stamp, name and message come back as if the line had arrived directly.

Each case takes a real line of bench/real_logs/ by id and writes it the way the servers were
seen to write it when bench/real_logs_relay.py ran them on this machine (rsyslog 8.2302,
syslog-ng 3.38): the server's own receive stamp and host column first, the device's line cut
where the server cut it. What is checked is what the corpus labels say: the device's time in
UTC (a stamp without a year is judged without it), its name, its port.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from netopsai.backends.syslog.clock import STAMP
from netopsai.backends.syslog.parse import parse_frame
from netopsai.backends.syslog.relayed import unwrap
from tests.paths import bench_module

relay = bench_module("real_logs_relay")
rls = bench_module("real_logs_score")

SENDER = "127.1.3.46"  # the device's address, as the server writes it in its host column
R_BSD = "Nov 27 09:17:05"  # the server's own receive stamp, in each of its forms
R_ISO = "2026-11-27T09:17:05.454791+00:00"
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in rls.load()}


def device(row: dict[str, Any]) -> tuple[str, str]:
    """The device's PRI (or '<13>') and the line after it, as it was sent."""
    data, _why = relay.device_message(row)
    assert data is not None
    m = re.match(r"(<\d+>)?(.*)", data.decode(), re.S)
    assert m is not None
    return m.group(1) or "<13>", m.group(2)


def stamp_parts(body: str) -> tuple[re.Match[str], str]:
    m = STAMP.match(body)
    assert m is not None, body
    return m, body[m.end():].lstrip()


def bsd(m: re.Match[str]) -> str:  # how a server writes a device stamp in its BSD header
    return f"{m['mon']} {int(m['day']):>2} {int(m['h']):02d}:{m['mi']}:{m['s']}"


def iso(m: re.Match[str]) -> str:  # rsyslog: the device's wall clock with its own offset
    year = m["y1"] or m["y2"] or m["y4"] or "2026"
    month = MONTHS.index(m["mon"]) + 1
    frac = f".{m['frac']}" if m["frac"] else ""
    return (f"{year}-{month:02d}-{int(m['day']):02d}T{int(m['h']):02d}:{m['mi']}:{m['s']}"
            f"{frac}+00:00")


# --- the server's cuts, one per shape the servers produced --------------------------------

def zone_tag_bsd(pri: str, body: str) -> str:
    """rsyslog's and syslog-ng's files: the stamp taken, its zone word left as the TAG."""
    m, rest = stamp_parts(body)
    return f"{bsd(m)} {SENDER} {m['zone']}:{rest.removeprefix(':')}"


def zone_tag_iso(pri: str, body: str) -> str:
    m, rest = stamp_parts(re.sub(r"^\d+: ", "", body))  # the servers drop IOS's sequence number
    word = m["zone"] or rest.split(":", 1)[0]  # NX-OS `Berlin:` is no abbreviation
    rest = rest.split(":", 1)[1] if not m["zone"] else rest.removeprefix(":")
    return f"{iso(m)} {SENDER} {word}:{rest}"


def zone_tag_fwd(pri: str, body: str) -> str:
    m, rest = stamp_parts(body)
    return f"{pri}1 {iso(m)} {SENDER} {m['zone']} - - -  {rest.removeprefix(':').lstrip()}"


def behind_syslog_ng(pri: str, body: str) -> str:
    """syslog-ng's network() source: an RFC 5424 line kept whole behind its own header."""
    return f"{pri}{R_BSD} {SENDER} {body}"


def origin_as_app(pri: str, body: str) -> str:
    """rsyslog's RFC 5424 forward: the origin id `NAME:` as APP-NAME."""
    name, rest = body.split(": ", 1)
    return f"{pri}1 {R_ISO} {SENDER} {name} - - -  {rest}"


def empty_hostname_bsd(pri: str, body: str) -> str:
    """`stamp  NAME prog[pid]:` (two blanks): the server's host, then the device's name."""
    m, rest = stamp_parts(body)
    return f"{bsd(m)} {SENDER}  {rest}"


def empty_hostname_fwd(pri: str, body: str) -> str:
    m, rest = stamp_parts(body)
    return f"{pri}1 {iso(m)} {SENDER} - - - -  {rest}"


def device_id_syslog_ng(pri: str, body: str) -> str:
    return f"{pri}{R_BSD} {SENDER} {body}"


def split_stamp_bsd(pri: str, body: str) -> str:
    """rsyslog cannot read `2018-7-23 01:00:34`: the date becomes HOSTNAME, the hour the TAG."""
    date, clock = body.split(" ", 1)
    hour, rest = clock.split(":", 1)
    return f"{R_BSD} {date} {hour}: {rest}"


def split_stamp_fwd(pri: str, body: str) -> str:
    date, clock = body.split(" ", 1)
    hour, rest = clock.split(":", 1)
    return f"{pri}1 {R_ISO} {date} {hour} - - - {rest}"


def iso_split_bsd(pri: str, body: str) -> str:
    """`2026-03-28T16:10:00+0800`: rsyslog keeps its host and cuts the stamp after the hour."""
    head, rest = body.split(":", 1)
    return f"{R_BSD} {SENDER} {head}: {rest}"


def offset_host_syslog_ng(pri: str, body: str) -> str:
    """syslog-ng reads the stamp without its `+0800`, which becomes the host."""
    m, rest = stamp_parts(body)
    month = MONTHS[int(m["mo"]) - 1]
    return f"{month} {int(m['d2']):>2} {m['h']}:{m['mi']}:{m['s']} {m['sign']}{m['oh']}{m['om']} {rest}"


def mark_as_app(pri: str, body: str) -> str:
    """rsyslog's forward: Cisco's `*Jun` as APP-NAME, the rest of the stamp in MSG."""
    mark_month, rest = body.split(" ", 1)
    return f"{pri}1 {R_ISO} {SENDER} {mark_month} - - -  {rest}"


def empty_procid(pri: str, body: str) -> str:
    """rsyslog's forward of `bird[]:`: nothing between two blanks for PROCID."""
    m, rest = stamp_parts(body)
    host, tag, msg = rest.split(" ", 2)
    return f"{pri}1 {iso(m)} {host} {tag.split('[')[0]}  - -  {msg}"


def mnemonic_as_app(pri: str, body: str) -> str:
    m, rest = stamp_parts(body)
    mnemonic, msg = rest.removeprefix(":").lstrip().split(": ", 1)
    return f"{pri}1 {iso(m)} {SENDER} {mnemonic} - - -  {msg}"


def tag_as_app(pri: str, body: str) -> str:
    """rsyslog's forward of `TAG: msg`: the TAG as APP-NAME, MSG with the blank after the colon."""
    m, rest = stamp_parts(body)
    tag, msg = rest.split(":", 1)
    return f"{pri}1 {iso(m)} {SENDER} {tag} - - - {msg}"


def empty_tag_bsd(pri: str, body: str) -> str:
    return f"{R_BSD} {SENDER} {body}"


def first_pair_as_app(pri: str, body: str) -> str:
    first, rest = body.split(" ", 1)
    return f"{pri}1 {R_ISO} {SENDER} {first} - - -  {rest}"


def month_as_host(pri: str, body: str) -> str:
    """rsyslog cannot read `May  5 2015 11:02:10+08:00`: the month becomes HOSTNAME."""
    return f"{R_BSD} {body}"


def month_as_host_fwd(pri: str, body: str) -> str:
    month, rest = body.split(" ", 1)
    return f"{pri}1 {R_ISO} {month} - - - -  {rest.lstrip()}"


def zone_as_host(pri: str, body: str) -> str:
    """FTD's `Dec 30 00:07:38 UTC firepower : %FTD-...`: the zone word read as HOSTNAME."""
    m, rest = stamp_parts(body)
    name, msg = rest.split(" ", 1)
    return f"{pri}1 {iso(m)} {m['zone']} {name} - - -  {msg}"


def server_host_then_name(pri: str, body: str) -> str:
    """The device's name where the server wants a TAG; the server writes the sender's address
    (an ASA's `dev01: %ASA-...`; UniFi's comma name, which rsyslog will not take as a host)."""
    m, rest = stamp_parts(body)
    return f"{bsd(m)} {SENDER} {rest}"


def kiwi_bsd(pri: str, body: str) -> str:
    """rsyslog: Kiwi's `Original Address=` read as a host and its value."""
    return f"{R_BSD} {body}"


CASES: list[tuple[str, Callable[[str, str], str], str]] = [
    ("cisco_ios-0303", zone_tag_bsd, "file"), ("cisco_ios-0303", zone_tag_iso, "file"),
    ("cisco_ios-0303", zone_tag_fwd, "relay"), ("cisco_nxos-0024", zone_tag_bsd, "file"),
    ("cisco_nxos-0024", zone_tag_fwd, "relay"), ("cisco_nxos-0005", zone_tag_iso, "file"),
    ("juniper_junos-0004", behind_syslog_ng, "relay"), ("dell_os10-0001", behind_syslog_ng, "relay"),
    ("bsd_kernel-0073", behind_syslog_ng, "relay"), ("cisco_ios-0302", origin_as_app, "relay"),
    ("cisco_nxos-0004", origin_as_app, "relay"), ("juniper_junos-0003", empty_hostname_bsd, "file"),
    ("juniper_junos-0003", empty_hostname_fwd, "relay"),
    ("cisco_asa-0014", device_id_syslog_ng, "relay"), ("huawei_vrp-0004", split_stamp_bsd, "file"),
    ("huawei_vrp-0004", split_stamp_fwd, "relay"), ("smb_switch-0001", split_stamp_bsd, "file"),
    ("linux_nic-0501", iso_split_bsd, "file"), ("linux_nic-0501", offset_host_syslog_ng, "file"),
    ("cisco_ios-0090", mark_as_app, "relay"), ("bird-0038", empty_procid, "relay"),
    ("cisco_ios-0001", mnemonic_as_app, "relay"), ("cisco_ios-0057", empty_tag_bsd, "file"),
    ("fortios-0003", first_pair_as_app, "relay"), ("cisco_ios-0069", kiwi_bsd, "relay"),
    ("huawei_vrp-0007", month_as_host, "file"), ("huawei_vrp-0007", month_as_host_fwd, "relay"),
    ("cisco_asa-0019", zone_as_host, "relay"), ("cisco_asa-0050", server_host_then_name, "file"),
    ("ubiquiti-0008", server_host_then_name, "file"), ("cisco_ios-0269", zone_tag_iso, "file"),
    ("linux_nic-0115", tag_as_app, "relay"),
]


@pytest.mark.parametrize(("row_id", "cut", "entry"), CASES,
                         ids=[f"{i}-{c.__name__}" for i, c, _ in CASES])
def test_the_device_line_is_read_as_if_it_came_directly(
        rows: dict[str, dict[str, Any]], row_id: str, cut: Callable[[str, str], str],
        entry: str) -> None:
    row = rows[row_id]
    pri, body = device(row)
    line = cut(pri, body)
    ev = relay.Loader().event(row, "syslogng_relay" if entry == "relay" else "syslogng_file", line)
    exp = row["expect"]
    want_t = rls._when(exp["time_utc"])
    if want_t is None:  # no device time: only the server's receive stamp, never a made-up one
        t = ev.device_time
        assert t is None or (t.month, t.day, t.hour, t.minute) == (11, 27, 9, 17), line
    else:
        got = ev.device_time
        assert got is not None, line
        if row.get("year_assumed") or row["stamp"] in relay.YEARLESS:
            got = got.replace(year=want_t.year)
        # the label, or where the ingest places the line as published (Kiwi's forward of an
        # unsynchronised `*` clock: the label took Kiwi's stamp, the ingest the device's)
        direct = rls.Ingest().event(row).device_time
        assert any(abs((got - t).total_seconds()) <= 1 for t in (want_t, direct) if t), \
            (line, got, want_t)
    want_host = relay.want_host(row, (pri + body).encode(), SENDER)
    if want_host != SENDER or SENDER in line:  # (rsyslog's split writes the date for the host)
        assert (ev.name or "").lower() == want_host.lower(), line
    if exp["interface"]:
        assert ev.interface is not None and rls._same_port(ev.interface, exp["interface"]), line
    if exp["kind"] in rls.NOISE_KINDS:
        assert ev.action != "raise"


def test_lines_as_devices_send_them_are_left_alone(rows: dict[str, dict[str, Any]]) -> None:
    """No published line of the corpus (datagrams, RFC 5424, Kiwi, server files, captures) is a
    server's cut that unwrap would undo: it only touches the shapes the servers make."""
    changed = []
    for r in rows.values():
        rest = re.sub(r"^<\d{1,3}>", "", r["line"])
        if unwrap(rest) != rest:
            changed.append(r["id"])
    assert not changed


@pytest.mark.parametrize("tag", ["sshd", "bgpd", "cron", "ntpd", "zebra"])
def test_a_program_tag_is_not_a_zone(tag: str) -> None:
    line = f"{R_BSD} {SENDER} {tag}: %LINK-3-UPDOWN: Interface Gi1/0/1, changed state to down"
    assert unwrap(line) == line
    assert parse_frame(line.encode()).timestamp == R_BSD


def test_an_eos_agent_before_its_mnemonic_stays_a_tag(rows: dict[str, dict[str, Any]]) -> None:
    """EOS prints `HOST Rib: %BGP-5-ADJCHANGE`: `Rib` is the agent, never the device."""
    pri, body = device(rows["arista_eos-0312"])
    for line in (f"{pri}{body}", f"{pri}{R_BSD} {SENDER} {body.split(' ', 4)[4]}"):
        assert parse_frame(line.encode()).hostname in ("ARISTA04T1", SENDER), line


def test_a_sequence_number_or_node_as_app_name_is_no_device_name() -> None:
    for app, msg in (("000049", "Dec  2 12:09:23.643: %LINK-3-UPDOWN: Interface Gi0/1, changed"),
                     ("RP", "Sep 25 23:26:18.198 UTC: ifmgr[189]: %PKT_INFRA-LINK-3-UPDOWN : x")):
        msg_ = parse_frame(f"<13>1 {R_ISO} {SENDER} {app} - - -  {msg}".encode())
        assert msg_.hostname == SENDER, app
        assert msg_.timestamp and not msg_.timestamp.startswith("2026"), app


def test_the_servers_offset_gives_way_to_the_zone_word(rows: dict[str, dict[str, Any]]) -> None:
    """rsyslog writes +00:00 on `Jul  3 2024 16:39:13 CEST`: CEST is what the device said."""
    pri, body = device(rows["cisco_ios-0303"])
    msg = parse_frame((pri + zone_tag_iso(pri, body)).encode())
    assert msg.timestamp is not None and "+00:00" not in msg.timestamp
    assert msg.timestamp.endswith("CEST") and msg.hostname == SENDER
