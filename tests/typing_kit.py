"""mypy run on a snippet, for the tests that prove a misspelled key of a typed row, facts dict or
answer is rejected (tests/copilot/test_typed_*.py, test_payload.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from tests.paths import REPO


def package_view(tmp_path: Path) -> Path:
    """The package as it installs (scripts/package_view.py), built under TMP_PATH: mypy finds
    netopsai.tools in it, which an editable install maps with an import hook mypy does not follow."""
    spec = importlib.util.spec_from_file_location("package_view", REPO / "scripts" / "package_view.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(tmp_path / "view")
    return tmp_path / "view"


def mypy_snippet(source: str, tmp_path: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """mypy on SOURCE alone (no project config, imports followed silently), run in CWD: the
    checkout, or a package view where netopsai.tools is found (scripts/package_view.py)."""
    src = tmp_path / "snippet.py"
    src.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "", "--follow-imports", "silent",
         "--ignore-missing-imports", "--cache-dir", str(tmp_path / "cache"), str(src)],
        cwd=cwd, capture_output=True, text=True, timeout=600)
