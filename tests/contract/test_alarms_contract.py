"""The Alarms contract, for every backend that serves it (conftest.ALARMS): row shapes, the window
and the state/device filters honoured, unknown devices reported through the alarms tool."""

from __future__ import annotations

from datetime import datetime

from netopsai.common.timewin import as_utc
from netopsai.tools.registry import run_tool
from tests.contract.cases import Case

KEYS = {"kind", "category", "severity", "device", "interface", "raised_at", "cleared_at", "state",
        "message", "peer"}


def _t(text: str) -> datetime:
    return as_utc(datetime.fromisoformat(text.replace("Z", "+00:00")))


def test_rows_have_the_contract_shape_and_honour_the_window(alarms_case: Case) -> None:
    c = alarms_case
    rows = c.backends.alarms.alarms(None, "any", None, None, c.window)
    for r in rows:
        assert set(r) >= KEYS, r
        assert r["state"] in ("open", "closed") and isinstance(r["device"], str)
        assert _t(r["raised_at"]) <= c.window.end  # raised before the window ended ...
        assert r["cleared_at"] is None or _t(r["cleared_at"]) >= c.window.start  # ... not cleared before it


def test_state_and_device_filters_are_honoured(alarms_case: Case) -> None:
    c = alarms_case
    everything = c.backends.alarms.alarms(None, "any", None, None, c.window)
    opened = c.backends.alarms.alarms(None, "open", None, None, c.window)
    closed = c.backends.alarms.alarms(None, "closed", None, None, c.window)
    assert all(r["state"] == "open" for r in opened) and all(r["state"] == "closed" for r in closed)
    assert len(opened) + len(closed) == len(everything)
    one = c.devices[0]
    assert all(r["device"] == one for r in c.backends.alarms.alarms(None, "any", [one], None, c.window))


def test_an_unknown_device_is_a_clear_error(alarms_case: Case) -> None:
    ev = run_tool("alarms", {"devices": ["no-such-device-9"]}, alarms_case.backends)
    assert len(ev.errors) == 1 and ev.errors[0].startswith("unknown device 'no-such-device-9'")
