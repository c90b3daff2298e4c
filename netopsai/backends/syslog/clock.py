"""The device's clock, read from a syslog header: the forms devices send (RFC 3164 with or
without a year, milliseconds, a zone name, Cisco's `*` and `.` clock marks; NX-OS's year first;
FRR's `2023/12/22 10:46:01`; RFC 5424 and ISO 8601 with an offset), the year a header leaves
out, and the zone a header does not name (config: a default zone, and zones per device name or
address by glob). Zone names resolve through our table of the ambiguous ones, the configured
zone's own names (with its DST) and dateparser's list of abbreviations. Uptime stamps
(`00:00:43:`, `2y10w:`) carry no time of day: such a line is placed at its receipt.

Events are placed on the device's clock; the receive time is kept beside it. A clock the header
itself marks unsynchronised (`*`) and that disagrees with receipt by more than the allowed skew
is not believed: such an event is placed at its receive time, with the skew recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache

# the one table of zone names (the planner's too); Zones, a device's zone by glob, lives beside it
# so the config checks zones without importing the syslog reader (readers still import it here)
from netopsai.common.zones import ABBREVIATIONS
from netopsai.common.zones import Zones as Zones

MONTHS = {m: i for i, m in enumerate(
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], start=1)}
FUTURE = timedelta(days=1)  # how far ahead of receipt a year-less stamp may be read
_WEEKDAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"  # ctime: OpenWrt logread, dmesg -T
_MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
# Every absolute stamp the big NOSes print, as one pattern (the header reader finds stamps with
# it, device_time reads them): `Mmm dd [yyyy] hh:mm:ss[.f]` (RFC 3164, IOS, EOS, Junos, VRP),
# NX-OS/SONiC year first `yyyy Mmm dd ...`, ctime `Sun Jun 11 23:02:41 2023`, FRR
# `yyyy/mm/dd hh:mm:ss` (Huawei's format-date unpadded, `2018-7-23`, its precision-time
# `.270.1`, runit's svlogd `2016-03-30_19:46:40.88700`), Cisco small-business `14-Nov-2023`,
# RFC 3339 with `T` or a space; then a zone
# name (`UTC`, `AEST`, IOS-XE's lower-case `mdt`), an offset (VRP `+08:00`) or `Z`; Cisco's
# `*` (not synchronised) and `.` (was synchronised) marks before it. A zone name only counts
# when it is one (zone_hours); the reader drops an unknown one (a hostname).
STAMP = re.compile(
    rf"(?P<mark>[*.])?(?:(?:(?P<y1>\d{{4}}) +)?(?:{_WEEKDAY} +)?(?P<mon>{_MONTH}) +(?P<day>\d{{1,2}})"
    r"(?: +(?P<y2>\d{4}))?"
    r"|(?P<y3>\d{4})(?P<sep>[/-])(?P<mo>\d{1,2})(?P=sep)(?P<d2>\d{1,2})(?=[ T_]\d)"
    rf"|(?P<d3>\d{{1,2}})-(?P<mon2>{_MONTH})-(?P<y5>\d{{4}}))"
    r"(?:[ T]+|_)(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:[.,](?P<frac>\d{1,9})(?:\.\d)?)?"
    r"(?: (?P<y4>\d{4})(?=[\s\]:]|$))?"
    r"(?:(?P<zsp> *)(?P<zone>[A-Za-z]{1,5})(?=:?(?:\s|$))|(?P<sign>[+-])(?P<oh>\d{2}):?(?P<om>\d{2})"
    r"|(?P<z>Z))?")


@dataclass(frozen=True)
class DeviceTime:
    at: datetime | None  # when the device says it happened (UTC), None when the header has no time
    synced: bool = True  # False: the header marks the device's clock as not synchronised
    skew_s: float | None = None  # the device's time minus the receive time

    def placed(self, received: datetime, max_skew_s: float) -> datetime:
        """Where the event goes on the timeline: the device's time, unless there is none or the
        device itself says its clock is not synchronised and it is off by more than allowed."""
        if self.at is None:
            return received
        if not self.synced and self.skew_s is not None and abs(self.skew_s) > max_skew_s:
            return received
        return self.at


def device_time(stamp: str | None, received: datetime, zone: tzinfo = UTC) -> DeviceTime:
    """The device's time in a header's timestamp. `zone` is the device's configured zone, used
    when the stamp names none; a year the stamp leaves out is the latest that does not put the
    time more than a day after `received`. An uptime stamp (`00:00:43`, `2y10w`) is no time."""
    if not stamp or stamp == "-":
        return DeviceTime(None)
    stamp = stamp.strip().rstrip(":")
    # the cache holds stamps of a stamp's length only: a sender's long token (RFC 5424's
    # timestamp field is any word) must not pin up to 4,096 of its own size in memory
    read = _read(stamp) if len(stamp) <= CACHED_STAMP_CHARS else _read.__wrapped__(stamp)
    if read is None:
        return DeviceTime(None)
    parts, offset, name, synced = read
    # an offset (Huawei VRP "+08:00", RFC 3339's, `Z`) wins over a name and the configured zone
    zone = offset if offset is not None else _named_zone(name, zone, received)
    at = _from_parts(parts, received, zone)
    if at is None:
        return DeviceTime(None)
    at = at.astimezone(UTC)
    return DeviceTime(at, synced, (at - received).total_seconds())


Parts = tuple[int | None, int, int, int, int, int, int]  # year (None: left out), month ... µs
CACHED_STAMP_CHARS = 64  # the longest real stamps (RFC 3339 with nanoseconds and offset) are ~35


@lru_cache(maxsize=4096)
def _read(stamp: str) -> tuple[Parts, tzinfo | None, str | None, bool] | None:
    """What a stamp says on its own, whoever sent it and whenever: its fields, the offset it
    carries (or None), its zone name (or None) and whether the clock is synchronised; None
    when it is no stamp. Cached: a storm's lines share their seconds, and the pattern and the
    zone name are most of a line's clock."""
    m = STAMP.fullmatch(stamp)
    if m is None or (m["zone"] and zone_hours(m["zone"]) is None):
        return None
    offset: tzinfo | None = None
    if m["sign"]:
        hours = int(m["oh"]) + int(m["om"]) / 60
        offset = _fixed(hours if m["sign"] == "+" else -hours)
    elif m["z"]:
        offset = UTC
    year = m["y1"] or m["y2"] or m["y3"] or m["y4"] or m["y5"]
    if m["mon"] or m["mon2"]:
        month, day = MONTHS[m["mon"] or m["mon2"]], int(m["day"] or m["d3"])
    else:
        month, day = int(m["mo"]), int(m["d2"])
    frac = int((m["frac"] or "0")[:6].ljust(6, "0"))
    parts = (int(year) if year else None, month, day, int(m["h"]), int(m["mi"]), int(m["s"]), frac)
    return parts, offset, m["zone"], m["mark"] != "*"


def zone_hours(name: str) -> float | None:
    """Hours east of UTC of a zone name a device prints: our table first (it decides the
    ambiguous ones: IST is India's, CST the US's), then dateparser's table of abbreviations
    (a maintained list of some 200 names: SAST, WIB, ART ...)."""
    upper = name.upper()
    if upper in ABBREVIATIONS:
        return ABBREVIATIONS[upper]
    return _dateparser_hours(upper)


@lru_cache(maxsize=1024)  # bounded: the names come from senders, any short word
def _dateparser_hours(name: str) -> float | None:
    from dateparser.timezone_parser import pop_tz_offset_from_string

    rest, tz = pop_tz_offset_from_string(f"00:00 {name}")
    if tz is None or rest.strip() != "00:00":  # the whole name, not a part of it
        return None
    offset = tz.utcoffset(None)
    return None if offset is None else offset.total_seconds() / 3600


def _named_zone(name: str | None, configured: tzinfo, near: datetime) -> tzinfo:
    """The zone a stamp's zone name means. A name the configured zone itself uses (CET or CEST
    for Europe/Berlin, AEST or AEDT for Australia/Sydney) is the configured zone, DST and all:
    IOS's `clock summer-time CET recurring` prints CET all summer at +2."""
    if not name:
        return configured
    local = near.astimezone(configured)
    if name.upper() in _season_names(configured, local.year) or name.upper() == local.tzname():
        return configured
    hours = zone_hours(name)
    return configured if hours is None else _fixed(hours)


def _season_names(configured: tzinfo, year: int) -> frozenset[str | None]:
    """The names `configured` goes by in the winter and the summer of `year`."""
    try:
        return _season_names_of(configured, year)
    except TypeError:  # a zone that cannot be a cache key
        return _season_names_of.__wrapped__(configured, year)


@lru_cache(maxsize=256)
def _season_names_of(configured: tzinfo, year: int) -> frozenset[str | None]:
    return frozenset(datetime(year, month, 15, tzinfo=UTC).astimezone(configured).tzname()
                     for month in (1, 7))


def _fixed(hours: float) -> tzinfo:
    from datetime import timezone

    return timezone(timedelta(hours=hours))


def _from_parts(parts: Parts, received: datetime, zone: tzinfo) -> datetime | None:
    year, month, day, hour, minute, second, micro = parts
    years: tuple[int, ...]
    if year is None:
        local = received.astimezone(zone)
        years = (local.year + 1, local.year, local.year - 1)
    else:
        years = (year,)
    # logs come from the past (a file loaded later) or from a clock a little ahead; not from
    # months ahead: the latest year that is at most a day past receipt (else the earliest)
    limit, last = received + FUTURE, None
    for y in years:
        try:
            at = datetime(y, month, day, hour, minute, second, micro, tzinfo=zone)
        except ValueError:  # Feb 29 of a year without it, hour 25 ...
            continue
        if at <= limit:
            return at
        last = at
    return last
