"""The report as JSON (the whole report, definitions included) and as CSV: each table after a
`# name` line, a blank line between tables, so one file opens in a spreadsheet and read_csv
gets the tables back."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from netopsai.common.textsafe import visible
from netopsai.reliability.model import TABLES, Report


def to_json(report: Report) -> str:
    return json.dumps(report.as_dict(), indent=1, default=str)


def to_csv(report: Report) -> str:
    """Cells as as_text_rows gives them: device and link names come from the network, so a
    control character in one is a visible mark and no cell spans two lines (which would also
    break read_csv's blank-line split between tables)."""
    buf = io.StringIO()
    buf.write(visible(f"# reliability {report.window['start']}..{report.window['end']} by "
                      f"{report.by}") + "\n")
    for name in TABLES:
        rows = as_text_rows(report.table(name))
        buf.write(f"\n# {name}\n")
        if not rows:
            continue
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return buf.getvalue()


def read_csv(text: str) -> dict[str, list[dict[str, str]]]:
    """The tables of a to_csv file, every cell as text (an empty cell for a missing value)."""
    out: dict[str, list[dict[str, str]]] = {}
    name, lines = "", list[str]()
    for line in [*text.splitlines(), "# end"]:
        if line.startswith("# "):
            if name in TABLES:
                out[name] = list(csv.DictReader(io.StringIO("\n".join(lines))))
            name, lines = line[2:].strip(), []
        elif line:
            lines.append(line)
    return out


def as_text_rows(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Rows as CSV reads them back: None empty, True/False and numbers as Python prints them,
    control characters as visible marks (netopsai.common.textsafe)."""
    return [{visible(k): "" if v is None else visible(str(v)) for k, v in r.items()} for r in rows]
