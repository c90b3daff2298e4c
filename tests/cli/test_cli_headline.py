"""The terminal's headline (issue 26 item 2): `netopsai ask` and each `netopsai chat` answer
start with the same one-line headline the web app pins and Slack posts first
(netopsai.copilot.headline), then the answer."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from netopsai.backends.lab import lab_backends
from netopsai.cli.chat import run_chat
from netopsai.copilot.headline import headline
from netopsai.copilot.service import Copilot
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info
from netopsai.lab.scenario import Scenario
from netopsai.store.engine import engine_for
from tests.cli_helpers import run_cli, small_lab_home

FLOW = "10.1.3.20 to 10.2.1.40 not communicating"


def _acl(home: Path) -> None:
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    inject(engine, Scenario.model_validate({
        "id": "cli-acl", "now": lab_info(engine).clock, "question": FLOW,
        "faults": [{"kind": "acl_block", "at": "-25m", "target": {"device": "dc1-leaf-03"},
                    "params": {"dst": "10.2.1.0/24"}}]}))
    engine.dispose()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = small_lab_home(tmp_path_factory.mktemp("cli-headline"))
    _acl(made)
    return made


def test_ask_prints_the_headline_first(home: Path) -> None:
    whole = run_cli(home, "ask", FLOW, "--json", "--thread", "h1")
    assert whole.returncode == 0, whole.stderr
    answer = json.loads(whole.stdout)["answer"]
    head = headline(answer)
    assert head.startswith("Reachable: no · ") and "dc1-leaf-03" in head and "impact:" in head
    shown = run_cli(home, "ask", FLOW, "--thread", "h2")
    assert shown.returncode == 0, shown.stderr
    first, blank, *rest = shown.stdout.split("\n")
    assert first == head and blank == ""  # the headline, alone on the first line
    assert "\n".join(rest).startswith(answer.split("\n")[0])  # then the answer as it was
    assert shown.stdout.count(head) == 1


def _chat(copilot: Copilot, questions: list[str]) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, force_terminal=False)
    asked: Iterator[str] = iter(questions)

    def answer_input(prompt: str = "") -> str:
        try:
            return next(asked)
        except StopIteration:
            raise EOFError from None
    console.input = answer_input  # type: ignore[method-assign]
    run_chat(copilot, "cli-headline", console)
    return out.getvalue()


def test_each_chat_answer_starts_with_its_headline(home: Path) -> None:
    copilot = Copilot(lab_backends(engine_for(f"sqlite:///{home / 'netopsai.db'}")))
    text = _chat(copilot, ["who owns 10.1.3.20?", FLOW])
    saved = copilot.thread("cli-headline").state
    heads = [line for line in text.split("\n") if line.startswith("» ")]
    assert len(heads) == 2  # one per answer
    assert heads[1] == f"» {headline(str(saved['answer']))}"
    assert heads[1].startswith("» Reachable: no · ") and "10.1.3.20" in heads[0]
    # each headline comes after its question's steps and before its answer's text
    second = text.index(heads[1])
    assert text.index("planner:", text.index(heads[0])) < second < text.index("Reachable: no —", second)
