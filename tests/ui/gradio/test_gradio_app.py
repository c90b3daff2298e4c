"""The web app's handlers without a browser: streaming chat steps and cited answers, the
evidence / path / plot views, resume, alarms filters, the batch handler, login, build_app."""

from __future__ import annotations

import asyncio
import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gradio import ChatMessage
from sqlalchemy import Engine

from netopsai.backends.base import Backends
from netopsai.backends.lab import lab_backends
from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Copilot, Step
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.ui.gradio import auth
from netopsai.ui.gradio import batch as gradio_batch
from netopsai.ui.gradio.alarms import alarms_view
from netopsai.ui.gradio.batch import BatchHandler
from netopsai.ui.gradio.chat import ChatHandler, ChatView, step_messages
from netopsai.ui.gradio.views import counter_bars, link_citations, path_html, status_timeline, telemetry_plot

QUESTION = "10.1.3.20 to 10.2.1.40 not communicating"


def acl_lab(engine: Engine) -> Engine:
    sc = Scenario.model_validate({
        "id": "ui-acl", "now": lab_info(engine).clock, "question": QUESTION,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]})
    inject(engine, sc)
    return engine


@pytest.fixture
def acl_backends(make_lab: Callable[..., Engine]) -> Backends:
    return lab_backends(acl_lab(make_lab()))


def text(msg: Any) -> str:
    return msg.content if isinstance(msg, ChatMessage) else str(msg["content"])


def titles(view: ChatView) -> list[str]:
    return [m.metadata.get("title", "") for m in view.history if isinstance(m, ChatMessage) and m.metadata]


def test_chat_streams_steps_then_a_cited_answer(acl_backends: Backends) -> None:
    views = list(ChatHandler(Copilot(acl_backends)).turn(QUESTION, [], "t1"))
    assert views[0].history[0] == {"role": "user", "content": QUESTION}
    assert views[0].history[-1].metadata["status"] == "pending"  # something shows at once
    assert len(views) > 4  # one update per step, not one at the end
    final = views[-1]
    steps = titles(final)
    assert steps[0].startswith("planner: diagnose.connectivity -> traceroute")
    assert any(t.startswith("[E1] traceroute") for t in steps)
    assert "diagnosis: config.acl_block dc1-leaf-03" in steps
    assert all(m.metadata["duration"] >= 0 for m in final.history[1:-2])
    answer = text(final.history[-2])
    assert "config.acl_block" in answer and "[dc1-leaf-03](?device=dc1-leaf-03)" in answer
    folded = final.history[-1]  # the rows and the evidence list, folded below the prose
    assert folded.metadata["title"].startswith("rows behind the answer")
    assert "Rows of [" not in answer and "| [dc1-leaf-03](?device=dc1-leaf-03) |" in text(folded)
    assert "[\\[E1\\]](#ev-E1)" in answer  # citations link to the evidence panel
    for eid in ("E1", "E2", "E3"):
        assert f'id="ev-{eid}"' in final.evidence
    assert "dc1-leaf-03 !X" in final.path and "<table" in final.path
    assert final.plot is None and final.status.startswith("answered in")
    # the answer streams in: earlier views hold a prefix of it
    assert len(text(views[-2].history[-1])) < len(answer)
    assert not views[-2].history[-1].metadata  # prose, not a step


def test_resume_rebuilds_the_conversation(acl_backends: Backends) -> None:
    chat = ChatHandler(Copilot(acl_backends))
    list(chat.turn(QUESTION, [], "t2"))
    list(chat.turn("who owns 10.1.3.20?", [], "t2"))
    view = chat.resume("t2")
    asked = [m["content"] for m in view.history if isinstance(m, dict)]
    assert asked == [QUESTION, "who owns 10.1.3.20?"]
    answers = [text(m) for m in view.history if isinstance(m, ChatMessage) and not m.metadata]
    assert len(answers) == 2 and "dc1-host-03-1" in answers[-1]
    assert 'id="ev-E1"' in view.evidence and view.status.startswith("resumed")
    assert chat.resume("never-used").history == []


def test_telemetry_answers_carry_a_plot(backends: Backends) -> None:
    chat = ChatHandler(Copilot(backends))
    final = list(chat.turn("port link status across all switches since 08:00", [], "t3"))[-1]
    assert final.plot is not None
    kind, frame = final.plot
    assert kind == "timeline" and set(frame.columns) == {"time", "up", "port", "band"}
    assert set(frame["up"]) == {0, 1}  # the flapped ports go down and come back
    bands = frame.groupby("port")["band"].agg(["min", "max"]).sort_values("min")
    assert (bands["min"].shift(-1).dropna() > bands["max"].iloc[:-1]).all()  # one band per port
    final = list(chat.turn("CRC errors on all switches in the last 24h", [], "t4"))[-1]
    assert final.plot is not None and final.plot[0] == "bars"


def test_bad_input_is_one_line_not_a_traceback() -> None:
    class Failing:
        def ask(self, *_: Any) -> Any:
            raise NetopsError("unknown device 'dc9-leaf-01'; closest: dc1-leaf-01")
            yield  # pragma: no cover

    views = list(ChatHandler(Failing()).turn("dc9-leaf-01 status", [], "t"))  # type: ignore[arg-type]
    assert text(views[-1].history[-1]) == "**error:** unknown device 'dc9-leaf-01'; closest: dc1-leaf-01"
    assert list(ChatHandler(Failing()).turn("  ", [], "t"))[-1].history == []  # type: ignore[arg-type]


def test_one_collapsible_step_per_tool_call() -> None:
    evidence = [{"id": f"E{i}", "tool": "alarms", "args": {"window": "1h"}, "summary": f"{i} alarms",
                 "errors": []} for i in (1, 2)]
    msgs = step_messages(Step("tools", {"evidence": evidence}, 42.0))
    assert [m.metadata["title"] for m in msgs] == ["[E1] alarms: 1 alarms", "[E2] alarms: 2 alarms"]
    assert msgs[0].metadata["duration"] == 0.042
    assert step_messages(Step("summarizer", {"answer": "x"})) == []


def test_only_known_citations_become_links() -> None:
    assert link_citations("down [E1][E9]", {"E1"}) == "down [\\[E1\\]](#ev-E1)[E9]"


def test_path_diagram_marks_where_the_trace_stops() -> None:
    rows = [{"hop": 1, "device": "leaf", "status": "ok"}, {"hop": 2, "device": "leaf", "status": "!X"}]
    ev = {"id": "E1", "args": {"src": "10.1.3.20", "dst": "10.2.1.40"},
          "columns": ["hop", "device", "status"], "facts": {"reached": False, "reason": "ACL deny"},
          "rows": rows}
    html = path_html(ev)
    assert html.count("leaf !X") == 1 and "leaf</span>" not in html  # one node for the device
    assert "did NOT reach the destination: ACL deny" in html


def test_status_timeline_steps_and_counter_bars() -> None:
    ev = {"tool": "telemetry", "window": {"start": "2025-11-04T08:00:00Z", "end": "2025-11-04T20:00:00Z"},
          "rows": [{"device": "d", "interface": "e1", "state_at_start": "up", "state_at_end": "up",
                    "events": "2025-11-04 17:43:32 down; 2025-11-04 17:44:01 up"}]}
    frame = status_timeline(ev)
    assert list(frame["up"]) == [1, 1, 0, 0, 1, 1]
    bars = counter_bars({"rows": [{"device": "d", "interface": "e1", "total": 14.0, "crc_total": 3}]})
    assert bars.to_dict("records") == [{"port": "d e1", "value": 14.0, "measure": "total"}]
    assert telemetry_plot([{"tool": "alarms"}]) is None


def test_alarms_filters(backends: Backends) -> None:
    open_now, recent, summary = alarms_view(backends, "all", "all", "7d")
    assert len(recent) > 0 and "alarms in the window" in summary
    assert list(recent["raised_at"]) == sorted(recent["raised_at"], reverse=True)
    _, dc1, _ = alarms_view(backends, "dc1", "all", "7d")
    assert 0 < len(dc1) < len(recent) and all(d.startswith("dc1-") for d in dc1["device"])
    _, links, _ = alarms_view(backends, "all", "link", "7d")
    assert set(links["category"]) == {"link"}
    _, _, bad = alarms_view(backends, "all", "all", "yesterday-ish")
    assert bad.startswith("**error:** bad duration")


def pairs_text(backends: Backends, n: int = 50) -> str:
    src = [h["ip"] for h in backends.inventory.hosts("dc1", None, None)]
    dst = [h["ip"] for h in backends.inventory.hosts("dc2", None, None)]
    blocked = [f"{s},{d}" for s in src if s.startswith("10.1.3.") for d in dst if d.startswith("10.2.1.")]
    other = [f"{s},{d}" for s, d in zip(src[::3], dst[::2], strict=False) if not s.startswith("10.1.3.")]
    return "\n".join((blocked[:10] + other)[:n])


def test_batch_handler_streams_progress_then_summary_and_csv(acl_backends: Backends, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gradio_batch, "EVERY_S", 0.0)  # an update per finished pair
    calls: list[Any] = []
    handler = BatchHandler(acl_backends, concurrency=4, out_dir=tmp_path)
    text_in = "# header comment\n" + pairs_text(acl_backends) + "\nnot-an-ip,10.2.1.40\n10.1.3.20,10.2.1.20\n"
    views = list(handler.run(text_in, None, "", lambda *a, **k: calls.append(a)))
    assert "0/50" in views[0].progress and "running" in views[0].progress
    sizes = [len(v.table.data) for v in views]
    assert sizes == [0, *range(1, 51), 50]  # the table fills as pairs finish
    assert [c[0] for c in calls] == [(i, 50) for i in range(1, 51)]  # gr.Progress per pair
    final = views[-1]
    assert "50/50" in final.progress and "done" in final.progress
    frame = final.table.data
    assert len(frame) == 50
    failing = frame[frame["reachable"] == "false"]
    assert set(failing["status"]) == {"unreachable"}
    assert len(failing) == 10 and set(failing["failing_device"]) == {"dc1-leaf-03"}
    assert set(failing["cause"]) == {"config.acl_block"}
    assert "10 pairs fail at dc1-leaf-03: config.acl_block" in final.summary
    assert "line 52: 'not-an-ip' is not an IPv4 address" in final.summary
    assert "1 duplicate pair checked once" in final.summary
    with open(final.csv_path or "") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 50 and rows[0]["line"] == "2"


def test_batch_handler_reports_empty_and_bad_input(backends: Backends, tmp_path: Path) -> None:
    handler = BatchHandler(backends, out_dir=tmp_path)
    assert handler.default_source().startswith("10.1.")
    only_bad = list(handler.run("bogus\n", None, ""))[-1]
    assert only_bad.csv_path is None and "line 1" in only_bad.summary
    upload = tmp_path / "ips.txt"
    upload.write_text("10.2.1.40\n")
    done = list(handler.run("ignored when a file is uploaded", str(upload), ""))[-1]
    assert len(done.table.data) == 1 and done.table.data.iloc[0]["dst"] == "10.2.1.40"


def test_login_users_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(auth.ENV, raising=False)
    assert auth.authenticator() is None  # off by default
    users = tmp_path / "users"
    auth.add_user(users, "oncall", "s3cret pass")
    assert "s3cret" not in users.read_text() and users.stat().st_mode & 0o077 == 0
    monkeypatch.setenv(auth.ENV, str(users))
    check = auth.authenticator()
    assert check is not None and asyncio.run(check("oncall", "s3cret pass"))
    assert not asyncio.run(check("oncall", "wrong")) and not asyncio.run(check("nobody", "s3cret pass"))
    users.write_text("broken line\n")
    with pytest.raises(NetopsError, match="users:1"):
        auth.authenticator(users)
    assert not auth.verify_password("x", "scrypt$garbage")


def test_build_app_and_first_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backends: Backends) -> None:
    import gradio as gr

    from netopsai.ui.gradio import app as gradio_app

    app = gradio_app.build_app(Copilot(backends), backends)
    assert isinstance(app, gr.Blocks)
    labels = {b.label for b in app.blocks.values() if isinstance(b, gr.Tab)}
    assert labels == {"Chat", "Batch", "Alarms", "Device", "Reliability"}
    import os
    assert os.environ["GRADIO_ANALYTICS_ENABLED"] == "False"
    monkeypatch.setenv("NETOPSAI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    copilot = gradio_app._copilot()  # the first run builds the lab
    assert copilot.toolbox.backends.inventory.sites()
    assert (tmp_path / "home" / "checkpoints.db").exists()
