"""The Paths contract, for every backend that serves it (conftest.PATHS): the trace row's keys and
types, hops numbered from 1, a reached trace ending at the destination, a broken one saying where
and why it stopped, and the traceroute tool's evidence built from it."""

from __future__ import annotations

from datetime import datetime

import pytest

from netopsai.tools.registry import run_tool
from tests.contract.cases import Case

ROW_KEYS = {"hops": list, "reached": bool, "ecmp_paths": int, "good_paths": int,
            "path_devices": list, "at": datetime}
HOP_KEYS = ("hop", "ip", "device", "rtt_ms", "loss_pct", "status")


def _trace(c: Case, pair: tuple[str, str] | None) -> dict[str, object]:
    if pair is None:
        pytest.skip(f"no such path is set up for the {c.name} backend")
    return c.backends.paths.traceroute(pair[0], pair[1], 60, None)


def _check_shape(row: dict[str, object]) -> list[dict[str, object]]:
    assert all(isinstance(row[k], t) for k, t in ROW_KEYS.items()), row
    assert "stopped_at" in row and "reason" in row
    hops = row["hops"]
    assert isinstance(hops, list)
    for h in hops:
        assert set(HOP_KEYS) <= set(h), h
        assert h["loss_pct"] is None or 0 <= h["loss_pct"] <= 100
    assert [h["hop"] for h in hops] == sorted({h["hop"] for h in hops}) and hops[0]["hop"] == 1
    assert 0 <= row["good_paths"] <= row["ecmp_paths"]  # type: ignore[operator]
    return hops


def test_a_working_path_reaches_its_destination(paths_case: Case) -> None:
    row = _trace(paths_case, paths_case.path)
    hops = _check_shape(row)
    assert paths_case.path is not None
    assert row["reached"] is True and hops[-1]["ip"] == paths_case.path[1]
    assert row["path_devices"] and row["good_paths"] >= 1  # type: ignore[operator]


def test_a_broken_path_says_where_and_why_it_stopped(paths_case: Case) -> None:
    row = _trace(paths_case, paths_case.broken_path)
    _check_shape(row)
    assert row["reached"] is False
    assert isinstance(row["stopped_at"], str) and row["stopped_at"]
    assert isinstance(row["reason"], str) and row["reason"]


def test_the_tool_reports_the_trace(paths_case: Case) -> None:
    c = paths_case
    if c.path is None:
        pytest.skip(f"no path is set up for the {c.name} backend")
    ev = run_tool("traceroute", {"src": c.path[0], "dst": c.path[1]}, c.backends)
    assert ev.errors == [] and ev.facts["reached"] is True and ev.rows
    assert ev.facts["hops"] == len(ev.rows) and ev.window and ev.window["start"] == ev.window["end"]
