"""`ask` in a shell: each run is a new conversation (an earlier question must not colour this
one), `--continue` follows up the last, `--thread` names one; `incidents confirm` takes the last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli, small_lab_home


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("threads"))


def _ask(home: Path, *args: str) -> dict[str, object]:
    done = run_cli(home, "ask", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _ips(result: dict[str, object]) -> set[str]:
    return {str(e["args"].get("ip")) for e in result["evidence"]  # type: ignore[union-attr]
            if e["args"].get("ip")}  # type: ignore[index]


def test_each_ask_is_new_unless_it_continues(home: Path) -> None:
    first = _ask(home, "who owns 10.1.3.20?")
    fresh = _ask(home, "and its upstream switch?")
    assert fresh["thread"] != first["thread"]
    assert "10.1.3.20" not in _ips(fresh)  # nothing carried over from another conversation
    _ask(home, "who owns 10.1.3.20?")
    follow = _ask(home, "and its upstream switch?", "--continue")
    assert "10.1.3.20" in _ips(follow)
    named = _ask(home, "who owns 10.2.1.40?", "--thread", "ops-7")
    assert named["thread"] == "ops-7"


def test_thread_and_continue_together_is_one_line(home: Path) -> None:
    done = run_cli(home, "ask", "hello", "--thread", "x", "--continue")
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: give --thread ID or --continue, not both")
