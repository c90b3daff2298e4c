"""The batch's rows (copilot/batch/output.py): a row is formatted when its result arrives and held as
text until the lines before it are out, and to_row takes a short cut for plain cells. The text
must be what the CSV writer made of the first to_row, and what json.dumps made of asdict, byte
for byte, for every kind of value the network can put in a cell (RESULTS "batch-speed-3")."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any

import pytest

from netopsai.common.textsafe import visible
from netopsai.copilot.batch import output
from netopsai.copilot.batch.check import PairResult

TRICKY = ["plain words", "a, comma", 'a "quoted" name', "two\nlines", "cr\r\nlf", "tab\there",
          "  padded  ", "double  space", "", "ünïcødé leaf-é 東京", "esc \x1b[31mred", "nbsp\xa0here",
          "ideographic\u3000space", "bidi \u202eevil", "line\u2028sep", "nel\x85", "semi; colon",
          "trailing ", " leading", "'single'", "=cmd|' /C calc'!A0", "\x00nul", "del\x7f"]


def first_cell(v: Any) -> str:
    """to_row's cell as it was before the short cut: the reference."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return visible("; ".join(str(x) for x in v))
    return visible(" ".join(str(v).split()))


def results() -> list[PairResult]:
    out = []
    for i, word in enumerate(TRICKY, start=1):
        out.append(PairResult(i, "10.1.1.20", f"10.2.{i}.20", i % 2 == 0, i, i % 3 or None,
                              word or None, word or None, word, [word, "traceroute E1", word],
                              word if i % 5 == 0 else None, word or None, word or None))
    return out


def old_csv(rows: list[PairResult], header: bool) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if header:
        w.writerow(output.COLUMNS)
    for r in rows:
        w.writerow([first_cell(getattr(r, c)) for c in output.COLUMNS])
    return buf.getvalue()


def old_json(rows: list[PairResult]) -> str:
    return "".join(json.dumps(asdict(r)) + "\n" for r in rows)


@pytest.mark.parametrize("word", TRICKY)
def test_each_cell_is_what_it_was(word: str) -> None:
    for v in (word, f"x{word}x", [word, word], None, True, False, 0, 17, -3):
        assert output._cell(v) == first_cell(v), repr(v)


@pytest.mark.parametrize("as_json", [False, True])
def test_rows_in_any_arrival_order_are_the_first_formatting(as_json: bool) -> None:
    rows = results()
    want = old_json(rows) if as_json else old_csv(rows, header=True)
    for arrival in (rows, rows[::-1], rows[1::2] + rows[::2]):
        fh = io.StringIO()
        sink = output.Sink(fh, as_json, header=True, order=[r.line for r in rows])
        for r in arrival:
            sink.write(r)
        assert fh.getvalue() == want
        assert sink.rows == len(rows)


class Flushes(io.StringIO):
    """A stream that notes what it held at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def flush(self) -> None:
        self.seen.append(self.getvalue())


def test_a_row_is_flushed_once_the_lines_before_it_are() -> None:
    rows = results()[:4]
    fh = Flushes()
    sink = output.Sink(fh, False, header=False, order=[1, 2, 3, 4])
    sink.write(rows[2])  # line 3 waits for 1 and 2
    sink.write(rows[1])
    assert fh.getvalue() == "" and sink.rows == 0
    sink.write(rows[0])  # 1, 2 and 3 go out together, flushed
    assert fh.seen[-1] == old_csv(rows[:3], header=False) and sink.rows == 3
    sink.write(rows[3])
    assert fh.seen[-1] == old_csv(rows, header=False) and sink.rows == 4


def test_drain_writes_what_is_held_in_input_order() -> None:
    rows = results()[:5]
    fh = io.StringIO()
    sink = output.Sink(fh, True, header=False, order=[1, 2, 3, 4, 5])
    for r in (rows[4], rows[2], rows[1]):  # line 1 never finishes (Ctrl-C)
        sink.write(r)
    assert fh.getvalue() == ""
    sink.drain()
    assert fh.getvalue() == old_json([rows[1], rows[2], rows[4]]) and sink.rows == 3


def test_unordered_sink_writes_as_given() -> None:
    rows = results()[:3][::-1]
    fh = io.StringIO()
    sink = output.Sink(fh, False, header=True)
    for r in rows:
        sink.write(r)
    assert fh.getvalue() == old_csv(rows, header=True)
