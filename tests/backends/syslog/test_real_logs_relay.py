"""Real device lines through real syslog servers (issue 24, "as the world sends them"): 50 lines
of bench/real_logs/ across 15 families are sent over UDP on loopback to an rsyslog and a
syslog-ng started here (testkit's peers/syslog_servers.py), and what the servers write — rsyslog's
traditional and RFC 3339 files and its RFC 5424 forward, syslog-ng's file and its relay — is read
back through the ingest (bench/real_logs_relay.py). The device's time, host and port must
survive every form, and the device's time must never be the server's clock.

The sample was drawn once with `real_logs_relay.sample(rows, 50)` (sure network-state lines
with a device time that the ingest reads right as published, round-robin over family, header
form and stamp form) and is pinned here so that lines added to the corpus do not move it.
`KNOWN` lists the (form, line) pairs where the server's format loses the information, or the
parser misses what is still there — each with why; bench/RESULTS.md's section lists them too.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from netopsai_testkit.peers.syslog_servers import missing
from tests.paths import bench_module

relay = bench_module("real_logs_relay")
rls = bench_module("real_logs_score")

SAMPLE = [
    "arista_eos-0003", "arista_eos-0001", "arista_eos-0139", "bsd_kernel-0031", "bsd_kernel-0001",
    "cisco_ios-0071", "cisco_ios-0081", "cisco_ios-0302", "cisco_ios-0061", "cisco_ios-0110",
    "cisco_ios-0002", "cisco_ios-0001", "cisco_iosxr-0127", "cisco_iosxr-0082", "cisco_nxos-0002",
    "dell_os10-0001", "frr-0013", "frr-0205", "hpe_aruba-0001", "hpe_aruba-0011",
    "huawei_vrp-0004", "huawei_vrp-0006", "huawei_vrp-0005", "juniper_junos-0017",
    "juniper_junos-0003", "keepalived-0041", "linux_nic-0001", "linux_nic-0115", "openbgpd-0008",
    "smb_switch-0003", "sonic-0004", "sonic-0033", "arista_eos-0002", "arista_eos-0140",
    "bsd_kernel-0033", "bsd_kernel-0002", "cisco_ios-0072", "cisco_ios-0082", "cisco_ios-0303",
    "cisco_ios-0121", "cisco_ios-0003", "cisco_ios-0010", "cisco_iosxr-0083", "cisco_nxos-0003",
    "dell_os10-0002", "frr-0206", "hpe_aruba-0003", "hpe_aruba-0012", "juniper_junos-0018",
    "juniper_junos-0054"]

RSYSLOG = ("rsyslog_traditional", "rsyslog_rfc3339", "rsyslog_fwd_rfc5424")
BSD_HEADER = ("rsyslog_traditional", "syslogng_file", "syslogng_relay")
KNOWN: list[tuple[tuple[str, ...], set[str], str]] = [
    (BSD_HEADER, {"cisco_ios-0061", "hpe_aruba-0011", "hpe_aruba-0012"},
     "server's format: an RFC 3339 stamp's UTC offset does not survive a BSD header"),
    (("rsyslog_traditional", "rsyslog_rfc3339"), {"juniper_junos-0017", "juniper_junos-0018"},
     "server's format: rsyslog's files drop RFC 5424 structured data, where Junos names the port"),
    (RSYSLOG, {"smb_switch-0003"},
     "server's format: rsyslog writes the device's date (`14-Nov-2023`) where the sender's "
     "address goes; the device's stamp is read back (relayed.py), the address is gone"),
    (("rsyslog_fwd_rfc5424",), {"huawei_vrp-0006"},
     "server's format: rsyslog's RFC 5424 APP-NAME keeps Huawei's module (`SRM`) and drops "
     "`/3/OPTPWRABNORMAL`, which names what happened"),
]


def known(form: str, row_id: str) -> str | None:
    return next((why for forms, ids, why in KNOWN if form in forms and row_id in ids), None)


@pytest.fixture(scope="module")
def relayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    why = missing()
    if why:
        pytest.skip(why)
    by_id = {r["id"]: r for r in rls.load()}
    rows = [by_id[i] for i in SAMPLE if i in by_id]
    assert len(rows) >= 45, "the pinned sample left the corpus"
    return relay.measure(rows, tmp_path_factory.mktemp("servers"))


def test_the_sample_spans_families_and_header_forms(relayed: dict[str, Any]) -> None:
    rows = {r["id"]: r for r in relayed["results"]}.values()
    assert len({r["nos"] for r in rows}) >= 12
    assert {r["header_form"] for r in rows} >= {"datagram", "rfc5424", "server_file",
                                                 "show_logging"}
    assert relayed["sent"] == len(rows)


@pytest.mark.parametrize("form", relay.FORMS)
def test_device_time_host_and_port_survive_the_server(relayed: dict[str, Any], form: str) -> None:
    wrong = []
    for r in relayed["results"]:
        if r["form"] != form:
            continue
        assert not r["lost"], f"{r['id']}: the server wrote no line for it"
        j = r["judged"]
        if known(form, r["id"]):
            continue
        if j["server_stamp"]:
            wrong.append(f"{r['id']}: device time is the server's clock ({r['got']['device_time']})"
                         f" in {r['text']!r}")
        bad = [k for k in ("time", "host", "interface") if not j[k]]
        if bad:
            wrong.append(f"{r['id']}: {bad} wrong — got {r['got']} want host {r['want_host']} "
                         f"from {r['text']!r}")
    assert not wrong, "\n".join(wrong)


def test_a_relay_is_never_named_as_the_device(relayed: dict[str, Any]) -> None:
    assert not [r["id"] for r in relayed["results"]
                if not r["lost"] and r["judged"]["relay_named"]]


def test_the_servers_own_stamp_is_caught_as_a_miss() -> None:
    """The scoring itself: a device time that is the servers' clock fails, under any zone and
    year the parser might put on it; the device's own stamp passes."""
    row = {"stamp": "bsd_year", "expect": {"time_utc": "2021-06-26T14:44:58.802Z", "host": "BGP-BETA",
                      "interface": None, "kind": "noise", "state": None}}
    start = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)
    window = (start, start + timedelta(seconds=30))
    for seen in (start + timedelta(seconds=10), start + timedelta(hours=2, seconds=10),
                 (start + timedelta(seconds=10)).replace(year=2021)):
        ev = SimpleNamespace(device_time=seen, name="BGP-BETA", interface=None, kind=None,
                             action="note")
        got = relay.judge(row, ev, "BGP-BETA", window, relayed=False)
        assert got["server_stamp"] and not got["time"], seen
    ev = SimpleNamespace(device_time=datetime(2021, 6, 26, 14, 44, 58, 802000, tzinfo=UTC),
                         name="127.0.0.1", interface=None, kind=None, action="note")
    got = relay.judge(row, ev, "BGP-BETA", window, relayed=True)
    assert got["time"] and not got["server_stamp"]
    assert got["relay_named"] and not got["host"]


def test_what_a_device_sent_is_taken_from_each_header_form() -> None:
    base = {"features": [], "stamp": "bsd_frac", "expect": {"host": None}}
    relayed_line = dict(base, header_form="server_file", features=["relay_header", "seq"],
                        line="Feb  8 04:00:48 192.168.100.2 585917: Feb  8 04:00:47.272: "
                             "%SEC-6-IPACCESSLOGRP: list 177 denied igmp")
    data, _ = relay.device_message(relayed_line)
    assert data == b"<13>585917: Feb  8 04:00:47.272: %SEC-6-IPACCESSLOGRP: list 177 denied igmp"
    own = dict(base, header_form="server_file", line="Nov  9 18:15:30 OPNsense kernel: ix1: down")
    assert relay.device_message(own)[0] == b"<13>Nov  9 18:15:30 OPNsense kernel: ix1: down"
    dgram = dict(base, header_form="datagram", line="<189>53: 000052: Aug 22 06:38:10.672: x")
    assert relay.device_message(dgram)[0] == b"<189>53: 000052: Aug 22 06:38:10.672: x"
    dmesg = dict(base, header_form="show_logging", stamp="uptime", line="[ 1484.99] eth0: up")
    assert relay.device_message(dmesg)[0] is None
    # Kiwi: its forward is a datagram, a line of its own log file is no wire form
    kiwi_file = dict(base, header_form="kiwi", stamp="ymd",
                     line="2015-09-02 13:33:11\tLocal4.Critical\t192.168.0.1\t%ASA-2-106007: x")
    assert relay.device_message(kiwi_file)[0] is None
    forward = dict(kiwi_file, line="<190>Original Address=192.168.0.1 1 2025-06-23T16:13:32Z h x")
    assert relay.device_message(forward)[0] == forward["line"].encode()
    # a relay's header host names the first server's view of the sender, not the device
    labelled = dict(relayed_line, expect={"host": "192.168.100.2"})
    assert relay.want_host(labelled, b"<13>585917: ... igmp 192.168.100.2", "127.1.0.9") == \
        "127.1.0.9"
