"""The Telemetry contract, for every backend that serves it (conftest.TELEMETRY): row shapes and
types, totals, windows honoured, top honoured, worst first, unknown devices and unreachable
targets reported clearly through the telemetry tool."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from netopsai.common.timewin import as_utc
from netopsai.tools.registry import run_tool
from tests.contract.cases import Case

STAMP = re.compile(r"^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\dZ?)")
STATUS_KEYS = {"device": str, "interface": str, "state_at_start": str, "transitions": int,
               "flaps": int, "down_s": int, "state_at_end": str, "events": str}
STATES = {"up", "down", "testing", "unknown", "dormant", "notPresent", "lowerLayerDown"}
OPTIONAL_KEYS = ("crc_total",)  # the lab and polled history have it; snmp_exporter has no CRC column
COUNTER_KEYS = {"errors": ("total", "max_per_5min", "last_5min"),
                "discards": ("total", "max_per_5min", "last_5min"),
                "utilization": ("max_pct", "avg_pct", "last_pct"),
                "rx_power": ("min_dbm", "avg_dbm", "last_dbm")}


def _window_args(case: Case) -> dict[str, dict[str, str]]:
    return {"window": {"start": case.window.start.isoformat(), "end": case.window.end.isoformat()}}


def test_oper_status_rows_have_the_contract_shape(telemetry_case: Case) -> None:
    c = telemetry_case
    rows, total = c.backends.telemetry.oper_status({"devices": c.devices}, c.window)
    assert isinstance(total, int) and total >= len(rows) and total > 0
    for r in rows:
        assert set(STATUS_KEYS) <= set(r), r
        assert all(isinstance(r[k], t) for k, t in STATUS_KEYS.items()), r
        assert r["device"] in c.devices
        assert r["state_at_start"] in STATES and r["state_at_end"] in STATES
        assert 0 <= r["flaps"] <= r["transitions"] and r["down_s"] >= 0
        assert r.get("admin_status", "up") in ("up", "down"), r  # where the source has it


def test_oper_status_events_lie_in_the_window(telemetry_case: Case) -> None:
    c = telemetry_case
    rows, _ = c.backends.telemetry.oper_status({"devices": c.devices}, c.window)
    for r in rows:
        for event in filter(None, r["events"].split("; ")):
            stamp = STAMP.match(event)
            assert stamp, event  # every event starts with its time
            at = as_utc(datetime.fromisoformat(stamp[1].replace("Z", "+00:00")))
            assert c.window.start <= at <= c.window.end, (event, c.window)


@pytest.mark.parametrize("metric", sorted(COUNTER_KEYS))
def test_counters_have_the_contract_shape_and_order(telemetry_case: Case, metric: str) -> None:
    c = telemetry_case
    rows, total, flagged = c.backends.telemetry.counters({"devices": c.devices}, c.window, metric, 5)
    assert isinstance(total, int) and isinstance(flagged, int) and 0 <= flagged <= total
    assert len(rows) <= 5
    keys = COUNTER_KEYS[metric]
    for r in rows:
        assert {"device", "interface", *keys} <= set(r) and r["device"] in c.devices, r
        assert all(isinstance(r[k], int | float) for k in keys), r
        assert all(isinstance(r[k], int | float) for k in OPTIONAL_KEYS if k in r), r
    ranked = [r[keys[0]] for r in rows]
    assert ranked == sorted(ranked, reverse=metric != "rx_power")  # worst first


def test_top_is_honoured(telemetry_case: Case) -> None:
    c = telemetry_case
    rows, total, _ = c.backends.telemetry.counters({"devices": c.devices}, c.window, "errors", 1)
    assert len(rows) <= 1 and total >= len(rows)


def test_the_tool_reads_the_backend_whole(telemetry_case: Case) -> None:
    c = telemetry_case
    ev = run_tool("telemetry", {"metric": "oper_status", "devices": c.devices, **_window_args(c)},
                  c.backends)
    assert ev.errors == [] and ev.facts["ports"] > 0
    assert ev.window is not None and ev.window["start"] <= ev.window["end"]


def test_an_unknown_device_is_a_clear_error(telemetry_case: Case) -> None:
    c = telemetry_case
    ev = run_tool("telemetry", {"metric": "errors", "devices": ["no-such-device-9"]}, c.backends)
    assert len(ev.errors) == 1 and ev.errors[0].startswith("unknown device 'no-such-device-9'")


def test_an_unreachable_target_makes_the_evidence_partial_and_names_it(polling_case: Case) -> None:
    c = polling_case
    assert c.unreachable is not None and c.unreachable_device
    ev = run_tool("telemetry", {"metric": "oper_status", **_window_args(c)}, c.unreachable)
    assert ev.partial and ev.facts["ports"] > 0  # what was read is still there
    assert any(c.unreachable_device in e for e in ev.errors) and c.unreachable_device in ev.summary
