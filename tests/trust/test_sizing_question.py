"""A question is sized at the one door, before anything plans it (issue 23, B6): longer than
the limit (NETOPSAI_MAX_QUESTION, 4,000 characters) it is one clear line in every front end —
Copilot itself, `/api/ask` (JSON and server-sent events), MCP `diagnose`, the web chat and
Slack — and the graph never runs. The planner's own patterns keep no unbounded gap between two
words (the quadratic ones of B6); bench/bench_planning.py times planning against length."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.service import AskLimits, Copilot

BIG = "dc1-leaf-03 drops packets " * 12_000  # ~300 KB, the size that kept a server busy 68 s


@dataclass
class Recorder:
    """Stands in for the compiled graph: records whether anything ran."""

    streams: list[Any] = field(default_factory=list)

    def stream(self, inputs: Any, config: Any, stream_mode: str) -> Iterator[dict[str, Any]]:
        self.streams.append(inputs)
        yield {"planner": {}}


@pytest.fixture
def copilot(backends: Backends) -> Copilot:
    cp = Copilot(backends, limits=AskLimits(max_question=4000))
    cp.graph = Recorder()  # type: ignore[assignment]
    return cp


def _one_line(text: str) -> bool:
    return "\n" not in text.strip() and "Traceback" not in text


def test_copilot_refuses_a_long_question_before_the_graph(copilot: Copilot) -> None:
    with pytest.raises(NetopsError) as err:
        list(copilot.ask(BIG))
    msg = str(err.value)
    assert _one_line(msg) and f"{len(BIG):,} characters" in msg and "at most 4,000" in msg
    assert copilot.graph.streams == []  # type: ignore[attr-defined]
    with pytest.raises(NetopsError, match="time window"):
        list(copilot.ask("alarms on dc1-leaf-03", window_hint="x" * 1000))
    assert copilot.graph.streams == []  # type: ignore[attr-defined]
    copilot.check_question("q" * 4000)  # the limit itself is allowed
    assert len(list(copilot.ask("alarms on dc1-leaf-03"))) == 2  # the planner's step, then done
    assert len(copilot.graph.streams) == 1  # type: ignore[attr-defined]


def test_the_limit_is_a_setting(monkeypatch: pytest.MonkeyPatch, backends: Backends) -> None:
    monkeypatch.setenv("NETOPSAI_MAX_QUESTION", "50")
    with pytest.raises(NetopsError, match="at most 50 are read"):
        Copilot(backends).check_question("x" * 51)
    monkeypatch.setenv("NETOPSAI_MAX_QUESTION", "lots")
    with pytest.raises(NetopsError, match="NETOPSAI_MAX_QUESTION") as err:
        Copilot(backends)
    assert _one_line(str(err.value))


def test_api_ask_refuses_it_in_one_line(copilot: Copilot, lab_engine: Engine) -> None:
    from netopsai.api.http import build_api

    client = TestClient(build_api(copilot, lab_engine, local=True))
    # over the question cap but within the body limit (a bigger body is refused earlier, 413:
    # tests/trust/test_trust_limits_body.py)
    for accept in ("application/json", "text/event-stream"):
        r = client.post("/api/ask", json={"question": BIG[:20_000]}, headers={"Accept": accept})
        assert r.status_code == 400, r.text[:300]
        assert _one_line(r.json()["error"]) and "at most 4,000" in r.json()["error"]
        assert len(r.content) < 1000  # the question is not echoed back
    assert copilot.graph.streams == []  # type: ignore[attr-defined]


def test_mcp_diagnose_refuses_it_in_one_line(copilot: Copilot) -> None:
    from netopsai.api.mcp_server import DIAGNOSE, call

    out = call(copilot, DIAGNOSE, {"question": BIG})
    text = out.content[0].text  # type: ignore[union-attr]
    assert out.is_error and _one_line(text) and "at most 4,000" in text
    assert copilot.graph.streams == []  # type: ignore[attr-defined]


def test_the_web_chat_and_slack_show_it(copilot: Copilot) -> None:
    from netopsai.ui.gradio.chat import ChatHandler
    from netopsai.ui.slack.work import SlackContext, answer_question

    last = list(ChatHandler(copilot).turn(BIG, [], "t1"))[-1]
    assert last.status == "error" and "at most 4,000" in str(last.history[-1])

    @dataclass
    class Shown:  # what the Slack placeholder message ends up saying
        channel: str = "C1"
        root: str = "1.0"
        failed: list[str] = field(default_factory=list)

        def start(self) -> Shown:
            return self

        def step(self, _line: str) -> None: ...

        def finish(self, _blocks: Any) -> None:
            raise AssertionError("an answer for a refused question")

        def fail(self, message: str) -> None:
            self.failed.append(message)

    shown = Shown()
    answer_question(SlackContext(copilot, None), shown, BIG, "U1")  # type: ignore[arg-type]
    assert len(shown.failed) == 1 and "at most 4,000" in shown.failed[0]
    assert copilot.graph.streams == []  # type: ignore[attr-defined]


def test_the_planner_has_no_unbounded_gap_between_words() -> None:
    """`A.*B` rescans the rest of the line from every A: quadratic in the question's length
    (a line of 'can ' took seconds). Gaps between words are bounded, `.{0,200}`."""
    import importlib
    import pkgutil

    import netopsai.planner as planner

    gap = re.compile(r"(?<!\\)(?:\.|\[\^[^\]]*\])[*+](?!\+)(?=.)")
    found = []
    for mod in pkgutil.iter_modules(planner.__path__):
        module = importlib.import_module(f"netopsai.planner.{mod.name}")
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and gap.search(value.pattern):
                found.append(f"{mod.name}.{name}")
    assert found == []
