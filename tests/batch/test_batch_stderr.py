"""`netopsai batch` writes its notes and summary to stderr with rich's Console only where rich would
see a terminal (and draw the progress bar); into a pipe or a log it writes plain lines without
importing rich (~0.035 s of the serial start, RESULTS "batch-speed-3"). The lines must be what
rich's Console wrote there, byte for byte, for the network's words as for our own."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from rich.console import Console

from netopsai.batch import command
from netopsai.common.textsafe import visible

LINES = ["checked 10,000 pairs: 9,830 reachable, 170 unreachable, 0 errors",
         "x" * 300, "東京" * 100, "trailing   ", "  leading", "[bold]markup[/bold] :smile:",
         "tab\there", "bell\x07 bs\x08 cr\r ff\x0c vt\x0b esc\x1b[31m red", "nbsp\xa0 bidi \u202e",
         "wide 😀 👍🏽", "two\nlines", "", "ends with a backslash \\", "[/]", "a\u0301 combining",
         "\u200b zero width", "\x7f del \x85 nel", "=cmd|' /C calc'!A0"]


def rich_line(text: str) -> str:
    buf = io.StringIO()
    Console(file=buf, highlight=False, soft_wrap=True, markup=False, emoji=False).print(text)
    return buf.getvalue()


@pytest.mark.parametrize("line", LINES)
def test_plain_lines_are_what_rich_wrote(line: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = command._stderr()  # pytest's captured stderr is no terminal
    assert err.is_terminal is False
    err.print(visible(line))  # the command makes every line of the network's words visible
    assert capsys.readouterr().err == rich_line(visible(line))


@pytest.mark.parametrize("env", [{"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "1"}, {"FORCE_COLOR": ""}])
def test_rich_where_rich_would_see_a_terminal(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    err = command._stderr()
    assert isinstance(err, Console)  # rich decides (FORCE_COLOR="" is its "no": no bar either)
    assert err.is_terminal is (env != {"FORCE_COLOR": ""})


def test_the_batch_command_does_not_import_rich() -> None:
    code = "import sys, netopsai.batch; print(sorted(m for m in sys.modules if m.startswith('rich')))"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "[]"
