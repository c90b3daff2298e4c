"""A scratch folder lives as long as its owner: gone when the owner is collected, and gone at
exit when the owner never was (the web app's tabs live as long as the process)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from netopsai.common.scratch import owned_scratch


class _Owner:
    pass


def test_the_folder_goes_with_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    owner = _Owner()
    path = owned_scratch(owner, "netopsai-test-")
    (path / "export.csv").write_text("a,b\n")
    assert path.parent == tmp_path and path.is_dir()
    assert path.stat().st_mode & 0o077 == 0  # private to this user
    del owner
    gc.collect()
    assert not path.exists()


def test_the_folder_goes_at_exit_when_its_owner_lives_on(tmp_path: Path) -> None:
    code = ("from netopsai.common.scratch import owned_scratch\n"
            "class O: pass\n"
            "keep = O()\n"
            "p = owned_scratch(keep, 'netopsai-test-')\n"
            "(p / 'x.json').write_text('{}')\n"
            "print(p)\n")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert Path(out).parent == tmp_path
    assert not Path(out).exists() and list(tmp_path.iterdir()) == []


def test_the_web_app_leaves_no_folder_behind(tmp_path: Path, lab_engine: object) -> None:
    # the Batch and Reliability tabs each made a folder per app that nothing removed
    from sqlalchemy import Engine
    assert isinstance(lab_engine, Engine) and lab_engine.url.database
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    code = ("import sys\n"
            "from sqlalchemy import create_engine\n"
            "from netopsai.backends.lab import lab_backends\n"
            "from netopsai.copilot.service import Copilot\n"
            "from netopsai.ui.gradio.app import build_app\n"
            "b = lab_backends(create_engine('sqlite:///' + sys.argv[1]))\n"
            "app = build_app(Copilot(b), b)\n"
            "import os; print(sorted(os.listdir(sys.argv[2])))\n")
    env = {**os.environ, "TMPDIR": str(scratch), "NETOPSAI_HOME": str(tmp_path / "home"),
           "GRADIO_TEMP_DIR": str(tmp_path / "gradio"), "GRADIO_ANALYTICS_ENABLED": "False"}
    run = subprocess.run([sys.executable, "-c", code, lab_engine.url.database, str(scratch)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    made = run.stdout.strip().splitlines()[-1]
    assert "netopsai-batch-" in made and "netopsai-reliability-" in made  # while it ran
    assert [p.name for p in scratch.iterdir() if p.name.startswith("netopsai-")] == []
