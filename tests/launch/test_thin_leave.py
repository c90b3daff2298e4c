"""A plain ask ends without the interpreter's teardown (launch/thin.py leave), but as a normal
exit would for everything that matters: its exit code, output still in a buffer, the exit
handlers (logging, temp folders)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import atexit, sys
from netopsai.launch.thin import leave
atexit.register(lambda: open(sys.argv[1], "w").write("ran"))
sys.stdout.write("the answer, still buffered\\n")  # a pipe: block-buffered, not yet written
sys.stderr.write("thread t1: follow up with --continue\\n")
leave(int(sys.argv[2]))
print("never")
"""


def _buffered() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}


@pytest.mark.parametrize("code", [0, 2])
def test_leave_flushes_runs_exit_handlers_and_keeps_the_code(tmp_path: Path, code: int) -> None:
    marker = tmp_path / "handler"
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(marker), str(code)],
                         capture_output=True, text=True, timeout=60, env=_buffered())
    assert run.returncode == code
    assert run.stdout == "the answer, still buffered\n"
    assert "follow up with --continue" in run.stderr
    assert marker.read_text() == "ran"


def test_leave_with_the_reader_gone_still_exits_with_its_code(tmp_path: Path) -> None:
    marker = tmp_path / "handler"
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(marker), "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_buffered())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # `netopsai ask ... | head -0`: nobody reads the answer
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err and marker.read_text() == "ran"
