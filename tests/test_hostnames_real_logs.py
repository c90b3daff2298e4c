"""The three questions of issue 24 item 6 over real lines (bench/real_logs, each with its
source), loaded as a syslog server's files with `netopsai ingest --file`, asked through Copilot
(offline planner), for each kind of host a header names.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent.parent / "bench" / "real_logs"


@cache
def _corpus() -> dict[str, dict[str, Any]]:
    return {row["id"]: row for path in sorted(CORPUS.glob("*.jsonl"))
            for row in map(json.loads, path.read_text().splitlines())}


def corpus_lines(ids: list[str]) -> list[str]:
    """The corpus' lines by id, byte for byte; each must name where it was published."""
    rows = [_corpus()[i] for i in ids]
    assert all(r["source"].get("repo") or r["source"].get("url") for r in rows)
    return [str(r["line"]) for r in rows]
