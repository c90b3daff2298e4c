"""The launcher room (netopsai/launch/): every way into the `netopsai` process runs the same
command line — the console script, `python -m netopsai` and `python -m netopsai.cli` (kept for
the scripts and tests that run it) — and the commands that start another front end are the
launcher's, not the command line's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer

from netopsai.launch.app import app

_SCRIPT = Path(sys.executable).with_name("netopsai")
ENTRIES = {"python -m netopsai": [sys.executable, "-m", "netopsai"],
           "python -m netopsai.cli": [sys.executable, "-m", "netopsai.cli"]}
if _SCRIPT.exists():
    ENTRIES["script"] = [str(_SCRIPT)]


def _run(cmd: list[str], home: Path, *args: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(NETOPSAI_HOME=str(home), NO_COLOR="1", COLUMNS="120")
    done = subprocess.run([*cmd, *args], env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    return done.returncode, done.stdout, done.stderr


def test_every_entry_runs_the_same_command_line(tmp_path: Path) -> None:
    for args in (["--help"], ["serve", "--port", "99999"]):
        got = {name: _run(cmd, tmp_path, *args) for name, cmd in ENTRIES.items()}
        assert len(set(got.values())) == 1, (args, got)
    code, out, _ = got["python -m netopsai"]  # the last: a bad port, refused before anything starts
    assert code == 2 and out == ""
    code, out, err = _run(ENTRIES["python -m netopsai"], tmp_path, "--help")
    assert code == 0 and err == "" and "serve" in out and "tokens" in out


def test_the_launchers_are_the_launch_rooms_and_listed_after_the_core_commands() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    names = group.list_commands(typer.Context(group))  # the help's order
    assert names[:6] == ["tool", "ask", "chat", "batch", "serve", "slack"]
    callbacks = {name: group.commands[name].callback for name in names}
    home = {name: cb.__module__ for name, cb in callbacks.items() if cb is not None}
    launchers = {"batch", "serve", "slack", "api", "mcp"}
    assert {n for n, module in home.items() if module.startswith("netopsai.launch.")} == launchers
    assert {home[n] for n in ("tool", "ask", "chat")} == {"netopsai.cli.core"}
    assert {"bench", "tokens"} <= set(names)  # groups: their commands are the launcher's too
    for sub in ("bench", "tokens"):
        inner = group.commands[sub]
        assert isinstance(inner, typer.core.TyperGroup)
        assert all((c.callback.__module__ if c.callback else "").startswith("netopsai.launch.")
                   for c in inner.commands.values())
