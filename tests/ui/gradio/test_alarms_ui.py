"""The Alarms tab's pure parts without a browser: severity styles, filters, empty-table notes,
acknowledgements in the tables, the time picker's window, the full-text detail (inert) and the
"diagnose this" questions, which the offline copilot must answer about the alarm's device."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store import acks
from netopsai.ui.gradio import alarms as av
from netopsai.ui.gradio.timepick import local_time, read_time, window_arg
from tests.conftest import CLOCK

FAULTS = [{"kind": "device_down", "at": "-20m", "target": {"device": "dc2-leaf-05"}},
          {"kind": "link_down", "at": "-40m", "target": {"link": "dc1-leaf-03:Ethernet49"}},
          {"kind": "crc_errors", "at": "-90m", "target": {"interface": "dc1-leaf-02:Ethernet50"}}]


def faulted(make_lab: Callable[..., Engine]) -> tuple[Engine, Backends]:
    engine = make_lab()
    inject(engine, Scenario.model_validate({"id": "ui", "now": lab_info(engine).clock, "question": "q",
                                            "faults": FAULTS, "noise": {"alarms": 10}}))
    return engine, lab_backends(engine)


def find(rows: list[dict[str, object]], kind: str, device: str) -> dict[str, object]:
    return next(r for r in rows if r["kind"] == kind and r["device"] == device)


def test_severity_colours_fill_the_cell_and_tint_the_row() -> None:
    rows = [{"id": i, "severity": s, "message": "m", "ack": "acked by a" if i == 1 else ""}
            for i, s in enumerate(["critical", "major", "minor", "warning", "unknown"])]
    frame = av.alarm_frame(rows)
    ctx = av.styled(frame)._compute().ctx
    sev, msg = list(frame.columns).index("severity"), list(frame.columns).index("message")
    assert ("background-color", "#b91c1c") in ctx[(0, sev)] and ("color", "#ffffff") in ctx[(0, sev)]
    assert ("background-color", "#fee2e2") in ctx[(0, msg)]  # the rest of a critical row: a tint
    assert ("background-color", "#c2410c") in ctx[(1, sev)]
    assert ("background-color", "#fcd34d") in ctx[(2, sev)] and ("color", "#111827") in ctx[(2, sev)]
    assert ("background-color", "#d1d5db") in ctx[(3, sev)]
    assert (4, sev) not in ctx or ctx[(4, sev)] == []  # an unknown severity is left plain
    ack = list(frame.columns).index("ack")
    assert ("background-color", "#dbeafe") in ctx[(1, ack)]  # handled: the ack cell in blue
    assert ("background-color", "#dbeafe") not in ctx[(0, ack)]  # not handled: the row's tint


def test_filters_narrow_the_rows(make_lab: Callable[..., Engine]) -> None:
    _, b = faulted(make_lab)
    every = av.read_alarms(b, av.Filters(), "24h")
    assert every.error is None and len(every.open_rows) > 10
    assert [r["severity"] for r in every.open_rows][0] == "critical"  # the worst first
    ranks = [av.SEVERITIES.index(str(r["severity"])) for r in every.open_rows]
    assert ranks == sorted(ranks)
    crit = av.read_alarms(b, av.Filters(severity="critical"), "24h")
    assert {r["severity"] for r in crit.open_rows} == {"critical"}
    leaf = av.read_alarms(b, av.Filters(device="LEAF-03"), "24h")  # either end, any case
    assert leaf.open_rows and all("dc1-leaf-03" in (r["device"], r["peer"]) for r in leaf.open_rows)
    closed = av.read_alarms(b, av.Filters(state="closed"), "24h")
    assert closed.rows and {r["state"] for r in closed.rows} == {"closed"}
    dc2 = av.read_alarms(b, av.Filters(site="dc2"), "24h")
    assert dc2.open_rows and all(str(r["device"]).startswith("dc2-") for r in dc2.open_rows)
    assert dc2.cases and all(c["root_device"].startswith("dc2-") for c in dc2.cases)


def test_an_empty_table_says_so(backends: Backends) -> None:
    f = av.Filters(site="dc2")
    data = av.read_alarms(backends, f, "24h")  # the healthy lab: nothing open
    assert data.open_rows == []
    note = av.empty_note(data, f, "open")
    assert note.startswith("**no open alarms in dc2** for the last 24h (between 2025-11-03 20:00Z")
    f = av.Filters(site="dc1", category="optics", severity="critical", state="closed", device="spine")
    data = av.read_alarms(backends, f, "1h")
    assert av.empty_note(data, f, "recent").startswith(
        '**no closed critical optics alarms on devices matching "spine" in dc1** for the last 1h')
    bad = av.read_alarms(backends, av.Filters(), "yesterday-ish")
    assert bad.summary.startswith("**error:** bad duration") and av.empty_note(bad, f, "open") == ""


def test_acks_show_in_the_tables_and_silenced_alarms_hide(make_lab: Callable[..., Engine]) -> None:
    engine, b = faulted(make_lab)
    data = av.read_alarms(b, av.Filters(), "24h")
    down = find(data.open_rows, "DEVICE_UNREACHABLE", "dc2-leaf-05")
    crc = find(data.open_rows, "INTERFACE_ERRORS", "dc1-leaf-02")
    now = b.inventory.clock()
    acks.record(engine, int(str(down["id"])), "ack", "alice", "vendor RMA", now)
    acks.record(engine, int(str(crc["id"])), "silence", "bob", "optics swap", now, now + timedelta(hours=2))
    data = av.read_alarms(b, av.Filters(), "24h")
    assert find(data.open_rows, "DEVICE_UNREACHABLE", "dc2-leaf-05")["ack"] == "acked by alice: vendor RMA"
    assert all(r["id"] != crc["id"] for r in data.open_rows) and data.hidden == 1
    assert "(1 silenced, hidden: tick 'show silenced')" in av.empty_note(data, av.Filters(), "open")
    assert f"**{len(data.open_rows) + 1} open** (1 acknowledged, 1 silenced)" in data.summary
    assert str(find(data.rows, "INTERFACE_ERRORS", "dc1-leaf-02")["ack"]).startswith("silenced by bob until")
    shown = av.read_alarms(b, av.Filters(show_silenced=True), "24h")
    assert any(r["id"] == crc["id"] for r in shown.open_rows) and shown.hidden == 0
    frame = av.alarm_frame(shown.open_rows)
    assert "acked by alice: vendor RMA" in set(frame["ack"])


def test_time_picker_window_in_the_network_zone() -> None:
    now = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
    assert window_arg("relative", "2h", None, None, now, None) == "2h"
    paris = window_arg("absolute", "24h", "2025-11-04 08:00:00", "", now, "Europe/Paris")
    assert paris == {"start": "2025-11-04T07:00:00Z", "end": "2025-11-04T20:00:00Z"}  # CET: UTC+1
    lab = window_arg("absolute", "24h", "now - 6h", "now-2h", now, None)  # the network's clock
    assert lab == {"start": "2025-11-04T14:00:00Z", "end": "2025-11-04T18:00:00Z"}
    assert read_time("Nov 3", now, "America/New_York") == datetime(2025, 11, 3, 5, 0, tzinfo=UTC)
    with pytest.raises(NetopsError, match="bad duration 'yesterday'"):
        window_arg("relative", "yesterday", None, None, now, None)
    with pytest.raises(NetopsError, match="pick or type a start"):
        window_arg("absolute", "24h", "", None, now, None)
    with pytest.raises(NetopsError, match="is not after the start"):
        window_arg("absolute", "24h", "now - 1h", "now - 2h", now, None)
    with pytest.raises(NetopsError, match="bad time 'soon'"):
        window_arg("absolute", "24h", "soon", None, now, None)
    assert local_time("2025-11-04T20:02:26Z", "Europe/Paris") == "2025-11-04 21:02:26 CET (20:02Z)"
    assert local_time("2025-11-04T20:02:26Z", "UTC") == "2025-11-04 20:02:26Z"


def test_tables_show_times_in_the_network_zone(make_lab: Callable[..., Engine]) -> None:
    _, b = faulted(make_lab)
    tokyo = dataclasses.replace(b, zone="Asia/Tokyo")
    data = av.read_alarms(tokyo, av.Filters(), "24h")
    assert "JST" in data.when and "Z" in data.when
    down = find(data.open_rows, "DEVICE_UNREACHABLE", "dc2-leaf-05")
    shown = av.alarm_frame([down], tokyo.zone).iloc[0]["raised_at"]
    assert shown == local_time(str(down["raised_at"]), "Asia/Tokyo") and shown.endswith("Z)")
    utc = datetime.fromisoformat(str(down["raised_at"]).replace("Z", "+00:00"))
    assert shown.startswith((utc + timedelta(hours=9)).strftime("%Y-%m-%d %H:%M"))


def test_the_detail_shows_the_full_message_as_inert_text() -> None:
    long = "Interface HundredGigE0/0/0/20 changed state to down " + "x" * 300
    row = {"id": 7, "kind": "LINK_DOWN", "severity": "major", "state": "open", "device": "dc1-dci-01",
           "interface": "HundredGigE0/0/0/20", "peer": "dc2-dci-01", "raised_at": "2025-11-04T19:00:00Z",
           "message": long, "ack": ""}
    text = av.detail(row)
    assert long in text and "dc1-dci-01 HundredGigE0/0/0/20 → dc2-dci-01" in text
    hostile = av.detail({**row, "message": 'x <img src="http://127.0.0.1:9/a"> ![y](http://h/b)'})
    assert "<img" not in hostile and "&lt;img" in hostile and "](http" not in hostile
    assert "select an alarm" in av.detail(None)


def test_diagnose_questions_name_the_alarm() -> None:
    link = {"device": "dc1-leaf-03", "interface": "Ethernet49", "raised_at": "2025-11-04T19:20:00Z"}
    assert av.question_for(link, CLOCK) == "what happened to dc1-leaf-03 Ethernet49"
    device = {"device": "dc2-leaf-05", "interface": None, "raised_at": "2025-11-04T19:40:00Z"}
    assert av.question_for(device, CLOCK) == "what is wrong with dc2-leaf-05?"
    old = {**device, "raised_at": "2025-11-02T07:00:00Z"}  # older than the planner's default 24h
    assert av.question_for(old, CLOCK) == "what is wrong with dc2-leaf-05 in the last 3d?"
    case = {"root_device": "dc2-leaf-05", "root_interface": None, "first_raised": "2025-11-04T19:40:00Z"}
    assert av.case_question(case, CLOCK) == "what is wrong with dc2-leaf-05?"


def test_the_offline_copilot_answers_the_diagnose_questions(make_lab: Callable[..., Engine]) -> None:
    _, b = faulted(make_lab)
    data = av.read_alarms(b, av.Filters(), "24h")
    clock = b.inventory.clock()
    copilot = Copilot(b)
    port = copilot.answer(av.question_for(find(data.open_rows, "LINK_DOWN", "dc1-leaf-03"), clock), "a")
    assert "dc1-leaf-03 Ethernet49" in port["answer"] and "dc1-spine-01" in port["answer"]
    root = next(c for c in data.cases if c["root_device"] == "dc2-leaf-05")
    down = copilot.answer(av.case_question(root, clock), "b")
    assert down["root_cause"]["label"] == "device.down"
    assert down["root_cause"]["device"] == "dc2-leaf-05"


def test_the_tab_acts_only_on_an_alarm_still_shown(make_lab: Callable[..., Engine]) -> None:
    from netopsai.ui.gradio import alarms_tab as tab

    engine, b = faulted(make_lab)
    filters = ["all", "all", "all", "any", "", False, "relative", "24h", None, None]
    shown = tab._reload(b, b.zone, *filters)
    rows = shown[7]
    down = find(list(rows.values()), "DEVICE_UNREACHABLE", "dc2-leaf-05")
    assert tab._shown(down["id"], rows) == str(down["id"])
    assert tab._shown(999999, rows) is None and tab._shown(None, rows) is None
    stale = tab._act(engine, b, b.zone, "ack", None, "alice", "x", "2h", *filters)
    assert stale[0] == "**error:** select an alarm first (click its row in a table)"
    done = tab._act(engine, b, b.zone, "silence", str(down["id"]), "alice", "RMA", "1h", *filters)
    assert done[0] == f"alarm #{down['id']} silenced for 1h (stored here, not on the device)"
    assert "silenced by alice until" in done[1] and "RMA" in done[1]  # the detail shows it
    open_table = done[2 + 3]  # status, detail, then the re-read: the silenced alarm is hidden
    assert open_table.value["data"] and down["id"] not in [r[0] for r in open_table.value["data"]]
    assert "critical" in [r[open_table.value["headers"].index("severity")] for r in shown[3].value["data"]]
    bad = tab._reload(b, b.zone, *filters[:6], "absolute", "24h", "soon", None)
    assert bad[0] == "**error:** bad time 'soon'; use ISO 8601 (2025-11-04T20:02:26Z) or -25m"


def test_now_in_the_picker_stays_the_networks_after_the_mode_is_switched() -> None:
    """Through gradio's own event path: switching to absolute used to update the start/end boxes,
    gradio then kept fresh copies of them per session without network_time's preprocess, and
    "now - 6h" was read on this server's clock (the Alarms window started at wall clock - 6h
    and ended at the lab's clock)."""
    import asyncio

    import gradio as gr
    from gradio.state_holder import SessionState

    from netopsai.ui.gradio.timepick import time_picker

    lab_now = datetime(2020, 1, 1, 12, 0, tzinfo=UTC)  # far from this machine's clock
    with gr.Blocks() as demo:
        picker = time_picker("t")
        shown = gr.JSON()
        picker.start.submit(lambda *v: window_arg(*v, lab_now, None), picker.inputs, shown)
    state = SessionState(demo)

    def call(component: Any, event: str, inputs: list[Any]) -> Any:
        fn = next(f for f in demo.fns.values()
                  if any(t[0] == component._id and t[1] == event for t in f.targets))
        return asyncio.run(demo.process_api(fn, inputs, state))["data"]

    call(picker.mode, "change", ["absolute"])
    (window,) = call(picker.start, "submit", ["absolute", "24h", "now - 6h", "now - 2h"])
    assert getattr(window, "root", window) == {"start": "2020-01-01T06:00:00Z",
                                               "end": "2020-01-01T10:00:00Z"}
