"""The CLI in scripts (issue 13): piped, `tool` tables keep every row and every cell whole;
`--format csv` gives every row and column; a bad --format is one line and exit 2. Real CLI in a
child process (stdout a pipe), on a small lab."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli, small_lab_home


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_lab_home(tmp_path_factory.mktemp("cli-output"))


def test_piped_tables_are_not_cut(home: Path) -> None:
    rows = json.loads(run_cli(home, "tool", "metadata", '{"query": "segments"}', "--json").stdout)["rows"]
    assert len(rows) > 40  # more than a terminal shows
    done = run_cli(home, "tool", "metadata", '{"query": "segments"}')
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout and "more rows" not in done.stdout
    for r in rows:  # every row, every cell whole
        assert r["cidr"] in done.stdout and r["name"] in done.stdout


def test_csv_has_every_row_and_column(home: Path) -> None:
    ev = json.loads(run_cli(home, "tool", "metadata", '{"query": "segments"}', "--json").stdout)
    done = run_cli(home, "tool", "metadata", '{"query": "segments"}', "--format", "csv")
    assert done.returncode == 0, done.stderr
    table = list(csv.DictReader(io.StringIO(done.stdout)))
    assert set(table[0]) == set(ev["columns"]) and len(table) == len(ev["rows"])
    assert [t["cidr"] for t in table] == [r["cidr"] for r in ev["rows"]]
    bad = run_cli(home, "tool", "metadata", '{"query": "sites"}', "--format", "xml")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "error: --format must be table, csv or json, not 'xml'"]
