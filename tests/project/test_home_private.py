"""NETOPSAI_HOME is private (trust, F3): the command line makes it 0700 and its files 0600, so
no other user — nor an analysis running in the sandbox as `nobody` — can read the store or
another user's conversation; `config check` warns about a home an older release left open."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from netopsai.sandbox import SandboxSettings, run_code
from tests.cli_helpers import run_cli, small_lab_home

PRIVATE = "private text of another on-call's thread: 10.9.9.9"




def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home the CLI made: a small lab, and one conversation holding private text."""
    home = small_lab_home(tmp_path_factory.mktemp("private"))  # the CLI created it
    done = run_cli(home, "ask", f"who owns 10.1.3.20? ({PRIVATE})", "--thread", "victim")
    assert done.returncode == 0, done.stderr
    return home


def test_the_cli_makes_home_0700_and_its_files_0600(home: Path) -> None:
    assert _mode(home) == 0o700
    files = [p for p in home.iterdir() if p.is_file()]
    assert {p.name for p in files} >= {"netopsai.db", "checkpoints.db"}
    assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox drops to `nobody` only when run as root")
@pytest.mark.parametrize(("prison", "refusal"), [(True, "FileNotFoundError"), (False, "PermissionError")],
                         ids=["prison: home not in its world", "no prison: home closed to nobody"])
def test_an_analysis_cannot_read_the_store_or_the_checkpoints(home: Path, tmp_path: Path, prison: bool,
                                                              refusal: str) -> None:
    s = SandboxSettings(tmp_root=str(tmp_path), warm=False, audit_hook=False, prison=prison)
    tried = 0
    for name in ("netopsai.db", "checkpoints.db", "checkpoints.db-wal", "netopsai.db-wal"):
        target = home / name
        if not target.exists():
            continue
        tried += 1
        res = run_code(f"result = open({str(target)!r}, 'rb').read().decode('latin-1')", settings=s)
        assert not res.ok and refusal in (res.error or ""), (name, res)
        assert PRIVATE not in str(res.value)
    assert tried >= 2


def test_config_check_warns_about_a_home_open_to_others(home: Path) -> None:
    assert "open to other users" not in run_cli(home, "config", "check").stderr
    home.chmod(0o755)
    try:
        done = run_cli(home, "config", "check")
        assert done.returncode == 0  # a warning: the configuration itself is sound
        assert f"warning: {home} is open to other users (mode 755)" in done.stderr
        assert f"chmod 700 {home}" in done.stderr
    finally:
        home.chmod(0o700)
