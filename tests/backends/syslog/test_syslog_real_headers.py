"""Header forms of real device lines the ingest misread, cited by corpus id (bench/real_logs/):
the device's own stamp (in the zone it names) and its host, whatever the line's kind — a noise
line read on the wrong clock lands in the wrong window as surely as a link line (issue 24
item 1). Entered where the receiver and the file loader enter it (bench/real_logs_score.py)."""

from __future__ import annotations

import pytest

from tests.real_logs_kit import corpus, ingest, scorer


@pytest.mark.parametrize("rid", [
    "bird-0020",  # runit's svlogd -tt: "2016-03-30_19:46:40.88700 bird: ..."
    "cisco_asa-0058",  # FTD: "<166>:Feb 26 11:26:52 UTC: %FTD--6-852002" (no blank after ':')
    "cisco_asa-0052",  # a server's stamp and host, " : ", the ASA's own stamp in EDT
    "cisco_asa-0054",  # the same behind a relay, in WEST (Western European Summer Time)
    "cisco_asa-0014",  # no stamp, the device id before the mnemonic: "<123>asa %ASA-7-..."
    "cisco_asa-0057",  # "<166>ACA1a-FW-FTDV01 %FTD-6-113005: ..."
    "ubiquiti-0008",  # a UniFi host with commas: "UDMPRO,a2edd0c6ae48,udm-1.10.0.3686 kernel:"
    "ubiquiti-0001",  # a UniFi switch, no stamp: "<15>Bedroom HIDDEN,USW_FLEX_MINI-2.0.0.704: ..."
    "mikrotik_routeros-0006",  # ... while MikroTik's "firewall,info" topics stay no host
    # FortiOS key=value bodies: the device's date=, time= and tz=, its devname= when the header
    # names no host, wherever the fields stand; a server's host column stays the host
    "fortios-0004",  # <185>logver=... tz="UTC+2:00" devname="NAME" ... date=... time=...
    "fortios-0005",  # date=... time=... tz="+0800" (no PRI, no devname)
    "fortios-0007",  # <45>date=2017-03-06 time=12:53:10 devname=DEVICENAME
    "fortios-0006",  # a server's "Jul 19 11:08:59 _gateway" before the device's own fields
])
def test_the_devices_stamp_and_host(rid: str) -> None:
    row = corpus()[rid]
    ev = ingest().event(row)
    got = scorer().judge(row, ev)
    assert got["time"] and got["host"], (rid, ev.device_time, ev.name, row["expect"])


def test_every_real_line_cut_short_still_parses() -> None:
    """A datagram cut anywhere (a truncating relay, a torn file line) is still an event, placed
    in time, never an exception: every real line of the corpus, cut at thirds and halves."""
    from datetime import UTC, datetime

    from netopsai.backends.syslog.receiver import syslog_event

    got = datetime(2024, 1, 1, tzinfo=UTC)
    for row in corpus().values():
        data = row["line"].encode()
        for cut in {len(data) // 3, len(data) // 2, 2 * len(data) // 3}:
            ev = syslog_event(data[:cut], "192.0.2.10", received_at=got)
            assert ev.at is not None and ev.received_at == got, row["id"]


def test_a_kiwi_tab_delimited_file_line_keeps_the_devices_stamp() -> None:
    """Kiwi Syslog Server's default log file (date, time, facility.level, host, message, tab
    separated; the corpus holds no such file yet): a real IOS datagram's message (cisco_ios-0088,
    its PRI dropped as Kiwi drops it) in Kiwi's columns keeps the device's own stamp, not
    Kiwi's, and Kiwi's host column."""
    row = corpus()["cisco_ios-0088"]
    message, day = row["line"].split(">", 1)[1], row["reference_utc"][:10]  # Kiwi's own date
    kiwi = dict(row, header_form="server_file", reference_utc=f"{day}T09:33:20Z",
                line=f"{day}\t09:33:20\tLocal7.Notice\tsw-access-1\t{message}",
                expect={**row["expect"], "host": "sw-access-1"})
    ev = ingest().event(kiwi)
    got = scorer().judge(kiwi, ev)
    assert got["complete"], (ev.device_time, ev.name, ev.interface)


def test_a_kiwi_file_line_whose_tabs_became_blanks_keeps_kiwis_columns() -> None:
    """A Kiwi log-file line copied with its tabs turned to blanks (cisco_asa-0086: "2015-09-02
    13:33:11     Local4.Critical 192.168.0.1     Kiwi_Syslog_Server %ASA-...") gives Kiwi's time
    and the sender's column as the host; read by Kiwi's facility and level names only, so a
    server's "date time host.lan address message" keeps host.lan as its host."""
    row = corpus()["cisco_asa-0086"]
    ev = ingest().event(row)
    got = scorer().judge(row, ev)
    assert got["time"] and got["host"], (ev.device_time, ev.name, row["expect"])
    line = "2015-09-02 13:33:11 fw1.lan 192.168.0.1 %ASA-2-106007: Deny inbound UDP"
    assert ingest().event(dict(row, line=line)).name == "fw1.lan"

@pytest.mark.parametrize("rid", ["hpe_aruba-0182", "hpe_aruba-0186"])
def test_an_arubaos_switch_event_log_line_is_on_its_own_clock(rid: str) -> None:
    """`show log` of an ArubaOS-Switch/ProCurve: "I 05/18/13 17:13:31 00077 ports: ...", the
    severity letter and a two-digit year before the event number, no host."""
    row = corpus()[rid]
    ev = ingest().event(row)
    got = scorer().judge(row, ev)
    assert got["complete"], (rid, ev.device_time, ev.name, ev.interface)
    assert ev.name is None  # the event number is no host
