"""The parse's fast paths equal the full ones on every real line we hold (bench/real_logs/) and
every vendor fixture line: the needle search (one pass for all the rules' needles) finds exactly
the needles `in` finds, and classify, trying only the rules whose needle a line holds, gives what
trying every rule in turn gives."""

from __future__ import annotations

import json

import pytest
import yaml

from netopsai.backends.syslog.needles import Needles
from netopsai.backends.syslog.parse import parse_frame
from netopsai.backends.syslog.rules import classify, classify_each, rules
from tests.paths import DATA, REPO


def _lines() -> list[str]:
    out = [json.loads(row)["line"] for path in sorted((REPO / "bench" / "real_logs").glob("*.jsonl"))
           for row in path.read_text().splitlines() if row.strip()]
    for path in sorted((DATA / "syslog" / "vendors").glob("*.yaml")):
        out += [item["line"] for item in yaml.safe_load(path.read_text()) or [] if "line" in item]
    return out


LINES = _lines()


def test_the_lines_are_many() -> None:
    assert len(LINES) > 3000  # the corpus and the fixtures were found


@pytest.mark.parametrize(("literals", "text", "found"), [
    (["abc", "bcd", "cde", "b"], "xabcdey", {"abc", "bcd", "cde", "b"}),  # each starts in the last
    (["BFD", "BFD-", "BFD Sess", "FD"], "BFD-5 BFD Sess", {"BFD", "BFD-", "BFD Sess", "FD"}),
    (["state ", "changed state to"], "changed state"[:-1], set()),
    (["aa", "aaa"], "aaaa", {"aa", "aaa"}),
])
def test_needles_on_overlaps(literals: list[str], text: str, found: set[str]) -> None:
    assert Needles(literals).present(text) == found


def test_needles_refuse_an_empty_literal() -> None:
    with pytest.raises(ValueError, match="empty literal"):
        Needles(["x", ""])


def test_needles_equal_in_on_every_line() -> None:
    literals = sorted({r.needle for r in rules()})
    search = Needles(literals)
    for line in LINES:
        for text in (line, parse_frame(line.encode()).text):
            assert search.present(text) == {n for n in literals if n in text}, text


def test_classify_equals_every_rule_in_turn() -> None:
    recognised = 0
    for line in LINES:
        text = parse_frame(line.encode()).text
        got = classify(text)
        assert got == classify_each(text), line
        recognised += got is not None
    assert recognised > 1500  # the rules did match: the equality is not of two Nones


def test_header_shortcuts_change_no_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import asdict

    from netopsai.backends.syslog import header

    fast = [asdict(parse_frame(line.encode())) for line in LINES]
    monkeypatch.setattr(header, "SHORTCUTS", False)
    full = [asdict(parse_frame(line.encode())) for line in LINES]
    assert fast == full
    assert sum(f["timestamp"] is not None for f in fast) > 2000  # stamps were read, not skipped


def test_the_clock_cache_gives_what_a_fresh_read_gives() -> None:
    """A stamp read once is reused for other receive times and zones: the year, the zone's
    name and the skew still come from each line's own."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from netopsai.backends.syslog import clock

    stamps = [parse_frame(line.encode()).timestamp for line in LINES[::7]]
    cases = [(datetime(2024, 1, 1, 0, 30, tzinfo=UTC), ZoneInfo("Europe/Berlin")),
             (datetime(2026, 7, 15, 12, tzinfo=UTC), ZoneInfo("America/New_York")),
             (datetime(2021, 12, 31, 23, 59, tzinfo=UTC), UTC)]
    cached = [clock.device_time(s, when, zone) for when, zone in cases for s in stamps]
    fresh = []
    for when, zone in cases:
        for s in stamps:
            clock._read.cache_clear()
            fresh.append(clock.device_time(s, when, zone))
    assert cached == fresh
    assert len({d.at for d in cached if d.at}) > 300  # times were read


def test_long_stamps_and_oids_are_read_but_never_kept() -> None:
    """A sender controls an RFC 5424 line's timestamp word and a trap's OIDs: any length. Those
    longer than a real one's are read as before but never enter the caches, so a flood of
    unique 60 KB tokens cannot pin 4,096 of them in the ingest's memory."""
    from datetime import UTC, datetime

    from netopsai.backends.syslog import clock
    from netopsai.backends.traps import ber

    when = datetime(2026, 11, 27, 12, tzinfo=UTC)
    clock._read.cache_clear()
    ber._oid_text.cache_clear()
    long_stamp = "2026-11-27T11:59:58." + "1" * 70 + "Z"  # past any stamp's length: no time
    assert clock._read.__wrapped__(long_stamp) is None
    assert clock.device_time(long_stamp, when) == clock.DeviceTime(None)
    for i in range(50):
        assert clock.device_time(f"x{i:05d}" * 2000, when).at is None
    assert clock._read.cache_info().currsize == 0
    assert clock.device_time("2026-11-27T11:59:58Z", when).at is not None
    assert clock._read.cache_info().currsize == 1  # a real stamp is still cached
    long_oid = bytes([0x2B] + [0x81, 0x01] * 40)  # 1.3 and 40 arcs of 129
    assert ber.oid_text(long_oid) == "1.3" + ".129" * 40
    assert ber.oid_text(bytes([0x2B, 6, 1])) == "1.3.6.1"
    assert ber._oid_text.cache_info().currsize == 1
