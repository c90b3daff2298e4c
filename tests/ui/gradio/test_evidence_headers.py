"""Readable evidence (issue 26 item 6), without a browser: evidence headers in words (tool,
scope, window in the network's zone), the trace table's verdict columns first, and the port
timeline one band per port."""

from __future__ import annotations

from gradio import ChatMessage

from netopsai.backends.base import Backends
from netopsai.copilot.service import Copilot, Step
from netopsai.ui.gradio.chat import ChatHandler, step_messages
from netopsai.ui.gradio.evhead import evidence_header, evidence_list_words
from netopsai.ui.gradio.views import HOP_COLUMNS, evidence_html, path_html, status_timeline

DEVICES = [f"dc1-leaf-{i:02d}" for i in range(1, 27)]
FLAPS = {"id": "E2", "tool": "telemetry", "summary": "2 of 856 ports flapped",
         "args": {"metric": "flaps", "devices": DEVICES, "window": "24h", "top": 5},
         "window": {"start": "2026-11-26T23:10:00Z", "end": "2026-11-27T09:10:00Z"}, "rows": []}


def test_a_header_says_tool_scope_and_window_in_the_network_zone() -> None:
    head = evidence_header(FLAPS, "Asia/Tokyo")
    assert head == "port flaps · dc1-leaf-01, dc1-leaf-02 and 24 more · worst 5 · 2026-11-27 08:10–18:10 JST"
    assert "<26 items>" not in head and "{" not in head


def test_a_header_for_alarms_a_trace_and_a_failure() -> None:
    alarms = {"tool": "alarms", "args": {"state": "open", "correlate": True, "category": "bgp"},
              "window": {"start": "2026-11-27T08:10:00Z", "end": "2026-11-27T09:10:00Z"}}
    assert evidence_header(alarms) == ("alarms · whole network · open only · bgp alarms · grouped into "
                                       "cases · 2026-11-27 08:10–09:10 UTC")
    trace = {"tool": "traceroute", "args": {"src": "10.1.3.20", "dst": "10.2.1.40"}, "errors": ["x"]}
    assert evidence_header(trace) == "traceroute · 10.1.3.20 → 10.2.1.40 · failed"
    across = {"tool": "changelog", "args": {"site": "dc2"},
              "window": {"start": "2026-11-26T20:00:00Z", "end": "2026-11-27T09:00:00Z"}}
    assert evidence_header(across, "UTC") == "change records · dc2 · 2026-11-26 20:00 – 2026-11-27 09:00 UTC"


def test_the_panel_and_the_steps_use_the_header_not_raw_arguments() -> None:
    panel = evidence_html([FLAPS], zone="Europe/Paris")
    assert "[E2] port flaps · dc1-leaf-01, dc1-leaf-02 and 24 more" in panel
    assert "CET" in panel and "devices=" not in panel and "&lt;26 items&gt;" not in panel
    step = step_messages(Step("tools", {"evidence": [FLAPS]}), "Europe/Paris")[0]
    assert "port flaps" in str(step.content) and '"devices"' not in str(step.content)
    planned = step_messages(Step("planner", {"intent": "overview", "calls": [
        {"tool": "alarms", "args": {"state": "open", "correlate": True}}]}))[0]
    assert "alarms · whole network · open only · grouped into cases" in str(planned.content)
    assert '{"state"' not in str(planned.content)


def test_the_trace_table_shows_loss_before_where_the_hop_is() -> None:
    assert HOP_COLUMNS.index("loss_pct") < 4 and HOP_COLUMNS.index("status") < HOP_COLUMNS.index("ip")
    html = path_html({"id": "E1", "tool": "traceroute", "args": {"src": "a", "dst": "b"},
                      "facts": {"reached": True},
                      "rows": [{"hop": 1, "ip": "10.0.0.1", "device": "x", "interface": "e1",
                                "rtt_ms": 0.3, "loss_pct": 40, "status": "ok"}]})
    head = html[html.index("<th>"):html.index("</tr>")]
    assert head.index("loss_pct") < head.index(">ip<")


def test_the_port_timeline_draws_one_band_per_port() -> None:
    rows = [{"device": "d", "interface": f"e{i}", "state_at_start": "up", "state_at_end": "up",
             "events": "2026-11-27 08:30:00 down; 2026-11-27 08:31:00 up"} for i in range(3)]
    frame = status_timeline({"window": {"start": "2026-11-27T08:00:00Z", "end": "2026-11-27T09:00:00Z"},
                             "rows": rows})
    spans = frame.groupby("port", sort=False)["band"].agg(["min", "max"])
    assert list(spans.index) == ["d e0", "d e1", "d e2"]
    assert list(spans["min"]) == sorted(spans["min"], reverse=True)  # the first port on top
    lows, highs = sorted(spans["min"]), sorted(spans["max"])
    assert all(highs[i] < lows[i + 1] for i in range(len(lows) - 1))  # no two bands overlap
    assert set(frame["up"]) == {0, 1}


def test_the_folded_evidence_list_reads_in_words(backends: Backends) -> None:
    chat = ChatHandler(Copilot(backends))
    final = list(chat.turn("is the network ok?", [], "eh1"))[-1]
    folded = [m for m in final.history if isinstance(m, ChatMessage) and m.metadata
              and "evidence list" in str(m.metadata.get("title"))]
    assert folded, "the answer keeps its evidence list folded below it"
    body = str(folded[-1].content)
    assert "alarms · whole network · open only · grouped into cases" in body
    assert '{"correlate"' not in body and '"metric"' not in body
    again = chat.resume("eh1")  # an opened thread reads the same
    assert any("port flaps · whole network · worst 5" in str(m.content) for m in again.history
               if isinstance(m, ChatMessage))
    assert evidence_list_words("- [E9] x {}\n- [E1] y {}", {"E1": "words"}) == "- [E9] x {}\n- [E1] words"
