"""Issue 25 item 5: state changes asked of the whole network without a port word ("what went
down between 09:40 and 09:45?", "which came back up …?", "what links came back after 09:45?")
read every port's state over the asked window; they were not placed at all."""

from __future__ import annotations

from typing import Any

import pytest

from netopsai.backends.base import Backends
from netopsai.planner import Vocabulary, plan
from tests.planner.test_planner_rules import CLOCK, runs_clean, vocab  # noqa: F401  (fixture)

WINDOW_19_40 = {"start": "2025-11-04T19:40:00Z", "end": "2025-11-04T19:45:00Z"}
SINCE_19_45 = {"start": "2025-11-04T19:45:00Z", "end": "2025-11-04T20:00:00Z"}


@pytest.mark.parametrize(("question", "window"), [
    ("what went down between 19:40 and 19:45?", WINDOW_19_40),
    ("which came back up between 19:40 and 19:45?", WINDOW_19_40),
    ("what links came back after 19:45?", SINCE_19_45),
    ("anything go down in the last hour?", "1h"),
    ("did anything come back up since 19:45", SINCE_19_45),
])
def test_state_changes_of_the_network_read_every_ports_state(
        question: str, window: Any, vocab: Vocabulary, backends: Backends) -> None:  # noqa: F811
    p = plan(question, vocab, CLOCK)
    assert p.intent == "telemetry.status", (question, p.intent)
    (call,) = p.calls
    assert call.tool == "telemetry" and call.args["metric"] == "oper_status"
    assert call.args["window"] == window
    runs_clean(p, backends)


@pytest.mark.parametrize("question", [
    "ssh hangs after 10 seconds between 10.1.3.20 and 10.2.1.40",  # "after 10" is no clock time
    "SYNs arrive but nothing comes back from 10.2.1.40 to 10.1.3.20",
])
def test_connectivity_words_stay_connectivity(question: str, vocab: Vocabulary) -> None:  # noqa: F811
    p = plan(question, vocab, CLOCK)
    assert p.intent.startswith("diagnose."), p.intent
    starts = [c.args["window"].get("start", "") for c in p.calls
              if isinstance(c.args.get("window"), dict)]
    assert not any(s.startswith("2025-11-04T10:00") for s in starts), starts
