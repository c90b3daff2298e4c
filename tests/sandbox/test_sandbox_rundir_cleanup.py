"""Each process's runs folder is removed when that process ends, a multiprocessing worker
included: a worker ends with os._exit, which skips atexit, and every batch worker that ran an
analysis had left its folder in the temp dir."""

from __future__ import annotations

import multiprocessing
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from netopsai.sandbox.rundir import runs_root


def _worker_folder() -> str:
    return str(runs_root(None))


def test_a_forked_workers_runs_folder_goes_with_the_worker(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # forked, as the batch's workers are (and a spawned child could not unpickle a test's function)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        made = Path(pool.submit(_worker_folder).result(timeout=120))
        assert made.parent == tmp_path and made.is_dir()  # while the worker lives
    assert not made.exists()
