"""A command that reads a store no migration has created yet (a brand-new home) says which
table is missing and what to run, in one line with a non-zero exit — not "internal error" and
the driver's SQL — and after the command it names, the same command reads the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import run_cli

READERS = [("jobs", "list"), ("snapshots", "dc1-leaf-01"), ("db", "prune")]


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_a_reader_on_a_new_home_says_what_to_run(tmp_path: Path, args: tuple[str, ...]) -> None:
    home = tmp_path / "home"
    done = run_cli(home, *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the store has no "), done.stderr
    assert "netopsai db upgrade" in lines[0]
    assert "SELECT" not in done.stderr and "Traceback" not in done.stderr
    upgraded = run_cli(home, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    again = run_cli(home, *args)  # an empty store now: nothing listed, or nothing known
    assert "has no" not in again.stderr and "internal error" not in again.stderr, again.stderr
    assert again.returncode == 0 or again.stderr.startswith("error: unknown device"), again.stderr
