"""The `netopsai` command as a test runs it: a fresh process on a NETOPSAI_HOME of the test's
own, no DATABASE_URL leaking in, no terminal, plain wide output. Shared by the tests that drive
the command line end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("netopsai")
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "netopsai.cli"]


def run_cli(home: Path, *args: str, preexec_fn: Callable[[], None] | None = None
            ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(home), NO_COLOR="1", COLUMNS="200")
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, preexec_fn=preexec_fn)


def small_lab_home(parent: Path) -> Path:
    """A home that does not exist yet, made by `netopsai lab init` (small, seed 7)."""
    home = parent / "home"
    done = run_cli(home, "lab", "init", "--scale", "small", "--seed", "7")
    assert done.returncode == 0, done.stderr
    return home
