"""Batch output: CSV (default) or JSON Lines, one row per pair written and flushed as it
finishes, so an interrupted run leaves a valid file that --resume completes; and the summary
that groups failures by (failing device, cause)."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any, TextIO

from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible
from netopsai.common.words import count
from netopsai.copilot.batch.check import PairResult

COLUMNS = [f.name for f in fields(PairResult)]
INTS = ("line", "hops", "failing_hop")


class Sink:
    """Writes results to an open text stream in input order (`order`: the lines to expect; None:
    as given), each flushed as soon as every line before it is written; `drain` writes what is
    held back (after Ctrl-C), so the file always holds every finished pair.

    A row is formatted when its result arrives and held as text: the runner's chunks go by
    destination, not input order, so most rows wait for the input's first lines, and were
    formatted and flushed one by one after the last chunk — a serial tail of 10,000 rows
    (bench/RESULTS.md "batch-speed-3"). Rows ready together go out in one write and one flush."""

    def __init__(self, fh: TextIO, as_json: bool, header: bool,
                 order: list[int] | None = None) -> None:
        self.fh, self.as_json, self.rows = fh, as_json, 0
        self._order = order
        self._next: list[int] = list(reversed(order or []))  # the next line to write is last
        self._held: dict[int, str] = {}
        self._buf = io.StringIO()
        self._csv = None if as_json else csv.writer(self._buf, lineterminator="\n")
        if self._csv is not None and header:
            self._out([self._csv_text(COLUMNS)])
            self.rows = 0  # rows counts pairs

    def write(self, r: PairResult) -> None:
        text = self.text(r)
        if self._order is None:  # the caller writes in the order it wants
            self._out([text])
            return
        self._held[r.line] = text
        ready: list[str] = []
        while self._next and self._next[-1] in self._held:
            ready.append(self._held.pop(self._next.pop()))
        if ready:
            self._out(ready)

    def drain(self) -> None:
        self._out([self._held.pop(line) for line in sorted(self._held)])

    def text(self, r: PairResult) -> str:
        """The row's text, its line end included: a JSON object, or a CSV row (to_row's cells)."""
        if self._csv is None:
            return json.dumps(json_obj(r)) + "\n"
        return self._csv_text(to_row(r))

    def _csv_text(self, cells: list[str]) -> str:
        assert self._csv is not None
        self._csv.writerow(cells)
        text = self._buf.getvalue()
        self._buf.seek(0)
        self._buf.truncate()
        return text

    def _out(self, texts: list[str]) -> None:
        if not texts:
            return
        # one write call: an interrupt (a second Ctrl-C) never splits a row; a row taken from
        # _held and not yet written is only missing from the file, and --resume checks it again
        self.fh.write("".join(texts))
        self.fh.flush()
        self.rows += len(texts)


def json_obj(r: PairResult) -> dict[str, Any]:
    """The result as --json writes it: asdict's fields in order, without its deep copy (every
    value is a str, int, bool, None or a list of str)."""
    return {c: getattr(r, c) for c in COLUMNS}


def to_row(r: PairResult) -> list[str]:
    """One CSV row. Reasons and causes may quote the network (an interface description): each
    cell is one physical line with its control characters visible, so the file opened in a
    terminal or a spreadsheet shows no escape sequence and no forged row."""
    return [_cell(getattr(r, c)) for c in COLUMNS]


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if v is True or v is False:
        return "true" if v else "false"
    if type(v) is int:  # digits only: nothing to fold or to make visible
        return str(v)
    if isinstance(v, list):
        return visible("; ".join(str(x) for x in v))
    text = str(v)
    # printable text holds no whitespace but the ASCII space (every other one is a control or a
    # separator), so it is already one line and visible's own: only runs of spaces fold
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return visible(" ".join(text.split()))  # one physical line per row


def from_row(row: dict[str, Any]) -> PairResult:
    """A result read back from a CSV row (strings) or a JSON Lines object (typed)."""
    d: dict[str, Any] = {c: row.get(c) for c in COLUMNS}
    for c in INTS:
        d[c] = int(d[c]) if d[c] not in (None, "") else None
    if isinstance(d["reachable"], str):
        d["reachable"] = d["reachable"] == "true"
    if isinstance(d["evidence"], str):
        d["evidence"] = [e for e in d["evidence"].split("; ") if e]
    d.pop("status", None)  # derived from the rest
    for c in ("failing_device", "cause", "error", "stopped_at", "interface"):
        d[c] = d[c] or None
    d["hops"] = d["hops"] or 0
    return PairResult(**d)


def read_done(path: Path, as_json: bool) -> list[PairResult]:
    """The results an earlier (maybe interrupted) run wrote. A torn last line, from a kill
    harder than Ctrl-C, is cut off so the file stays valid when appended to."""
    if not path.exists():
        return []
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        data = data[:data.rfind(b"\n") + 1]
        path.write_bytes(data)
    text = data.decode("utf-8", errors="replace")
    fmt = "JSON Lines (--json)" if as_json else "CSV"
    try:
        rows = ([json.loads(x) for x in text.splitlines() if x.strip()] if as_json
                else _csv_rows(text))
        return [from_row(r) for r in rows]
    except (ValueError, TypeError, KeyError) as exc:
        raise NetopsError(f"cannot resume from {path}: it is not a netopsai batch {fmt} output "
                          f"({type(exc).__name__}: {exc}); resume with the format that wrote it") from None


def _csv_rows(text: str) -> list[dict[str, str]]:
    reader = csv.DictReader(text.splitlines())
    if text.strip() and reader.fieldnames != COLUMNS:
        raise ValueError(f"header {','.join(reader.fieldnames or [])!r} is not {','.join(COLUMNS)!r}")
    return list(reader)


def summarize(results: list[PairResult]) -> dict[str, Any]:
    """Counts, and the failures grouped by (failing device, cause), biggest group first."""
    errors = sum(1 for r in results if r.error)
    reachable = sum(1 for r in results if r.reachable and not r.error)
    degraded = sum(1 for r in results if r.reachable and r.cause and not r.error)
    groups: Counter[tuple[str, str]] = Counter()
    unreachable: Counter[tuple[str, str]] = Counter()
    for r in results:
        if r.cause and not r.error:
            key = (r.failing_device or r.stopped_at or "?", r.cause)
            groups[key] += 1
            unreachable[key] += not r.reachable
    ordered = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"total": len(results), "reachable": reachable,
            "failing": len(results) - reachable - errors, "degraded": degraded, "errors": errors,
            "status": dict(Counter(r.status for r in results)),
            "groups": [{"device": d, "cause": c, "pairs": n, "unreachable": unreachable[(d, c)],
                        "text": _group_text(d, c, n, unreachable[(d, c)])}
                       for (d, c), n in ordered]}


def _group_text(device: str, cause: str, n: int, unreachable: int) -> str:
    pairs = f"{n} pairs" if n != 1 else "1 pair"
    if not unreachable:
        return f"{pairs} degraded at {device}: {cause} (still reachable over other paths)"
    extra = f" ({n - unreachable} still reachable over other paths)" if unreachable < n else ""
    return f"{pairs} fail{'s' if n == 1 else ''} at {device}: {cause}{extra}"


def summary_lines(s: dict[str, Any], first_error: str | None = None) -> list[str]:
    head = (f"checked {count(s['total'], 'pair')}: {s['reachable']} reachable, {s['failing']} "
            f"unreachable, {count(s['errors'], 'error')}")
    head += f" ({s['degraded']} reachable but degraded)" if s["degraded"] else ""
    lines = [head, *(g["text"] for g in s["groups"])]
    if first_error:
        lines.append(f"{count(s['errors'], 'pair')} could not be traced, e.g. {first_error}")
    return lines
