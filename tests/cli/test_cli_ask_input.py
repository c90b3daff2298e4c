"""`ask` with bad input (issue 13, the CLI): an invalid address or an unknown name leads the
answer and exits 2 with the reason on stderr; a name read as another is said first; good input
still exits 0. Real CLI in a child process, on a small lab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli, small_lab_home


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("ask-input"))


@pytest.mark.parametrize(("question", "said"), [
    ("10.1.3.256 to 10.2.1.40 not communicating", "10.1.3.256 is not a valid IPv4 address"),
    ("status of dc1-spyne-99", "'dc1-spyne-99' is not in the inventory; did you mean"),
])
def test_bad_input_leads_the_answer_and_exits_2(home: Path, question: str, said: str) -> None:
    done = run_cli(home, "ask", question, "--json")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"error: {said}")
    out = json.loads(done.stdout)
    assert out["input_errors"] and out["input_errors"][0].startswith(said)
    assert out["answer"].startswith(f"**{said}")
    assert out["answer"].count(said) == 1  # led with, not repeated in the notes


def test_a_corrected_name_is_said_first_and_good_input_exits_0(home: Path) -> None:
    done = run_cli(home, "ask", "details of dc1-spine-4", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["input_errors"] == []
    assert out["answer"].startswith("_Read 'dc1-spine-4' as dc1-spine-04._")
    assert out["evidence"][0]["args"]["name"] == "dc1-spine-04"
    plain = run_cli(home, "ask", "details of dc1-spine-04", "--json")
    assert not json.loads(plain.stdout)["answer"].startswith("_Read")
