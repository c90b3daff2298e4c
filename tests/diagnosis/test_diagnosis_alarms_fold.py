"""Asked about now, the flow's devices' alarms are one read of the last 6h (issue 25
follow-up: the tool-call budget): the rows active in the last hour count as the hour's alarms,
the ones that came and went before it are told (episodes), never a cause."""

from __future__ import annotations

from typing import Any

from netopsai.copilot.evidence import Evidence
from netopsai.diagnosis.context import RECENT, Context, baseline_calls
from netopsai.diagnosis.episodes import episodes

END = "2025-11-04T20:00:00Z"
TRACE = Evidence(id="E1", tool="traceroute", args={"src": "10.1.1.2", "dst": "10.2.2.2"},
                 window={"start": END, "end": END},
                 facts={"reached": True, "path_devices": ["leaf1", "spine1", "leaf2"],
                        "ecmp_devices": ["spine2"]})


def _alarm(i: int, state: str, raised: str, cleared: str | None) -> dict[str, Any]:
    return {"id": i, "kind": "LINK_DOWN", "device": "spine1", "interface": f"Ethernet{i}",
            "state": state, "raised_at": raised, "cleared_at": cleared, "impact": "degraded",
            "severity": "major", "category": "link"}


def test_one_read_of_the_flows_alarms_over_the_last_hours() -> None:
    reads = [c["args"] for c in baseline_calls([TRACE]) if c["tool"] == "alarms"
             and c["args"].get("devices")]
    assert len(reads) == 1
    assert reads[0]["window"] == RECENT and reads[0].get("state", "any") == "any"


def test_a_past_window_reads_its_own_window_only() -> None:
    win = {"start": "2025-11-04T12:00:00Z", "end": "2025-11-04T12:30:00Z"}
    reads = [c["args"] for c in baseline_calls([TRACE], win, "2025-11-04T12:15:00Z")
             if c["tool"] == "alarms" and c["args"].get("devices")]
    assert [r["window"] for r in reads] == [win]


def test_the_hours_rows_are_the_hours_and_the_rest_are_told() -> None:
    rows = [_alarm(1, "open", "2025-11-04T19:40:00Z", None),
            _alarm(2, "closed", "2025-11-04T19:10:00Z", "2025-11-04T19:30:00Z"),
            _alarm(3, "closed", "2025-11-04T16:00:00Z", "2025-11-04T16:05:00Z")]
    wide = Evidence(id="E2", tool="alarms", args={"devices": ["spine1"], "window": RECENT},
                    window={"start": "2025-11-04T14:00:00Z", "end": END}, rows=rows)
    ctx = Context([TRACE, wide])
    assert sorted(r["id"] for _, r in ctx.alarms.values()) == [1, 2]
    assert ctx.recent == [wide]
    told = episodes(ctx)
    assert told is not None and "Ethernet3" in told.text and told.cites == ["E2"]
