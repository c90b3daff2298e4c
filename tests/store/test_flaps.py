"""Flap storms collapse (real networks §4): a port bouncing 257 times in two minutes is one
LINK_FLAP alarm with its count, cleared at its last bounce once quiet — not 257 LINK_DOWN
alarms; a port that goes down twice is two ordinary outages. On the devices' clocks, loaded from
a log (IOS `show logging` format)."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine

from netopsai.backends.syslog.files import load_files
from tests.ingest_helpers import alarms

START = datetime(2017, 8, 4, 10, 15, 0, tzinfo=UTC)


def _line(at: datetime, port: str, state: str) -> str:
    return (f"{at:%b %d %Y %H:%M:%S}.{at.microsecond // 1000:03d} UTC: %LINK-3-UPDOWN: "
            f"Interface {port}, changed state to {state}\n")


def _log(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines))
    stamp = (START + timedelta(days=1)).timestamp()
    os.utime(path, (stamp, stamp))
    return path


def test_a_storm_is_one_flapping_alarm(make_lab: Callable[..., Engine], tmp_path: Path) -> None:
    engine = make_lab()
    lines = []
    for i in range(257):  # down and up every ~0.47 s
        at = START + timedelta(milliseconds=470 * i)
        lines += [_line(at, "Ethernet1", "down"), _line(at + timedelta(milliseconds=200), "Ethernet1", "up")]
    # a different port, down twice an hour apart: two outages, not a flap
    lines += [_line(START + timedelta(minutes=m), "Ethernet2", s)
              for m, s in ((1, "down"), (2, "up"), (61, "down"), (62, "up"))]
    stats = load_files(str(engine.url), [_log(tmp_path / "leaf.log", lines)], device="dc1-leaf-01")
    assert stats.stored == 518
    got = alarms(engine, "syslog")
    flapping = [a for a in got if a.kind == "LINK_FLAP"]
    assert len(flapping) == 1
    flap = flapping[0]
    assert (flap.device, flap.interface, flap.state) == ("dc1-leaf-01", "Ethernet1", "closed")
    assert "down 257 times" in flap.message
    last_up = START + timedelta(milliseconds=470 * 256 + 200)
    assert (flap.raised_at, flap.cleared_at) == (START, last_up)
    downs = [a for a in got if a.kind == "LINK_DOWN" and a.interface == "Ethernet1"]
    assert len(downs) <= 2  # the bounces before it counted as a flap
    other = [(a.kind, a.state) for a in got if a.interface == "Ethernet2"]
    assert other == [("LINK_DOWN", "closed"), ("LINK_DOWN", "closed")]


def test_the_storm_is_in_the_port_history_telemetry_reads(make_lab: Callable[..., Engine],
                                                           tmp_path: Path) -> None:
    """"Is leaf-01 Ethernet1 flapping?" reads the one state history: log events land in it."""
    from netopsai.backends.lab import lab_backends
    from netopsai.tools.registry import run_tool

    engine = make_lab()
    lines = []
    for i in range(40):
        at = START + timedelta(seconds=3 * i)
        lines += [_line(at, "Ethernet1", "down"), _line(at + timedelta(seconds=1), "Ethernet1", "up")]
    load_files(str(engine.url), [_log(tmp_path / "leaf.log", lines)], device="dc1-leaf-01")
    ev = run_tool("telemetry", {"metric": "flaps", "devices": ["dc1-leaf-01"],
                                "interface": "Ethernet1",
                                "window": "2017-08-04T10:00:00Z..2017-08-04T11:00:00Z"},
                  lab_backends(engine))
    assert ev.errors == []
    row = next(r for r in ev.rows if r["interface"] == "Ethernet1")
    assert row["flaps"] == 40 and row["transitions"] == 80
