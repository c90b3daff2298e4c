"""The device's clock in syslog headers: every stamp form devices send, the year a header leaves
out, the zone a header names or the config gives, and clocks the device marks unsynchronised."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from netopsai.backends.syslog.clock import DeviceTime, Zones, device_time
from netopsai.common.errors import NetopsError

RECEIVED = datetime(2026, 11, 23, 3, 10, 30, tzinfo=UTC)
LA = Zones.from_names("America/Los_Angeles").default


@pytest.mark.parametrize(("stamp", "zone", "expected"), [
    # IOS `service timestamps log datetime msec localtime show-timezone`
    ("Nov 23 03:10:00.123 UTC", UTC, datetime(2026, 11, 23, 3, 10, 0, 123000, tzinfo=UTC)),
    # the same clock in Pacific time, named by the header: the configured zone does not matter
    ("Nov 22 19:10:00.123 PST", UTC, datetime(2026, 11, 23, 3, 10, 0, 123000, tzinfo=UTC)),
    # no zone in the header: the device's configured zone (PDT/PST by the date)
    ("Nov 22 19:10:00", LA, datetime(2026, 11, 23, 3, 10, 0, tzinfo=UTC)),
    ("Aug  4 10:15:00", LA, datetime(2026, 8, 4, 17, 15, 0, tzinfo=UTC)),
    # NX-OS: the year first
    ("2017 Sep  1 10:15:00 UTC", UTC, datetime(2017, 9, 1, 10, 15, tzinfo=UTC)),
    # IOS with `year`, and Huawei VRP: the year after the day
    ("Sep  1 2017 10:15:00.5 PDT", UTC, datetime(2017, 9, 1, 17, 15, 0, 500000, tzinfo=UTC)),
    # Huawei VRP with an offset
    ("Nov 23 2026 11:10:00+08:00", UTC, datetime(2026, 11, 23, 3, 10, tzinfo=UTC)),
    # RFC 5424 / ISO 8601 with an offset, and with Z
    ("2017-08-04T10:15:00.123-07:00", UTC, datetime(2017, 8, 4, 17, 15, 0, 123000, tzinfo=UTC)),
    ("2026-11-23T03:10:00Z", LA, datetime(2026, 11, 23, 3, 10, tzinfo=UTC)),
    # Cisco's `.`: synchronised once, not now — still the device's clock
    (".Nov 23 03:10:00.123 UTC", UTC, datetime(2026, 11, 23, 3, 10, 0, 123000, tzinfo=UTC)),
])
def test_stamp_forms(stamp: str, zone: object, expected: datetime) -> None:
    got = device_time(stamp, RECEIVED, zone)  # type: ignore[arg-type]
    assert got.at == expected and got.synced


@pytest.mark.parametrize(("stamp", "received", "year"), [
    ("Dec 31 23:59:58", datetime(2027, 1, 1, 0, 0, 3, tzinfo=UTC), 2026),  # sent last year
    ("Jan  1 00:00:01", datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC), 2027),  # clock ahead
    ("Nov 23 03:10:00", RECEIVED, 2026),
])
def test_a_missing_year_is_the_one_nearest_the_receive_time(stamp: str, received: datetime,
                                                             year: int) -> None:
    got = device_time(stamp, received)
    assert got.at is not None and got.at.year == year
    assert got.skew_s is not None and abs(got.skew_s) <= 30


def test_an_unsynchronised_clock_far_off_is_placed_at_receipt() -> None:
    boot_clock = device_time("*Mar  1 00:01:02.123", RECEIVED)  # no NTP since boot
    assert not boot_clock.synced and boot_clock.at is not None
    assert boot_clock.placed(RECEIVED, max_skew_s=300) == RECEIVED
    assert boot_clock.skew_s is not None and boot_clock.skew_s < -86400 * 30  # March, not next
    march = device_time("Mar  1 00:01:02", RECEIVED)  # a file of last March's logs, loaded now
    assert march.at == datetime(2026, 3, 1, 0, 1, 2, tzinfo=UTC)
    close = device_time("*Nov 23 03:10:01", RECEIVED)  # unsynchronised but right: believed
    assert close.placed(RECEIVED, 300) == close.at != RECEIVED
    synced_far = device_time("Nov 20 03:10:00 UTC", RECEIVED)  # a replayed log: its own time
    assert synced_far.placed(RECEIVED, 300) == RECEIVED - timedelta(days=3, seconds=30)


@pytest.mark.parametrize("stamp", [None, "-", "Foo 12 10:00:00", "Feb 30 10:00:00", "2017-13-01T00:00:00Z"])
def test_no_time_is_no_time(stamp: str | None) -> None:
    assert device_time(stamp, RECEIVED) == DeviceTime(None)
    assert DeviceTime(None).placed(RECEIVED, 300) == RECEIVED


def test_zones_by_device_glob_then_default() -> None:
    zones = Zones.from_names("Europe/Berlin", {"sjc-*": "America/Los_Angeles", "10.9.*": "Asia/Tokyo"})
    assert zones.of("SJC-CORE-1", "10.1.1.1") is zones.rules[0][1]
    assert zones.of("ams-edge-2", "10.9.0.7") is zones.rules[1][1]
    assert zones.of("ams-edge-2", "10.1.1.1") is zones.default
    got = device_time("Nov 23 04:10:00", RECEIVED, zones.of("ams-edge-2"))
    assert got.at == datetime(2026, 11, 23, 3, 10, tzinfo=UTC)  # CET, an hour east


def test_a_bad_zone_name_is_one_clear_error() -> None:
    with pytest.raises(NetopsError, match="'Mars/Olympus' is not a time zone"):
        Zones.from_names("UTC", {"*": "Mars/Olympus"})
