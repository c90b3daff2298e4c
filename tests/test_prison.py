"""The prison holds with every in-process guard off (trust, F1 and F2): the attacks that once
owned the next runs as root, replayed by both run paths (a fresh interpreter and a fork of the
warm worker) with the audit hook switched off. A process a run leaves behind — forked and
setsid(), or started through `_posixsubprocess.fork_exec` — does not outlive it; a hostile run
cannot reach another run's files, so the next (victim) run's code, user and result are its own;
and a run sees nothing of the host but the interpreter's read-only files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from netopsai.sandbox import SandboxSettings, prison, run_code
from tests.sandbox_helpers import (
    path_fixture,  # noqa: F401  (registers `path`)
    run_by,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
    survivors,
)

pytestmark = pytest.mark.skipif(not prison.available(), reason=(
    "the prison needs root and bubblewrap (apt-get install bubblewrap; scripts/system-deps.sh)"))
NOBODY = 65534

# F1: a run whose fork outlives it and rewrites every other run's files it can reach, in a loop
LINGER = """
import os, time, glob
if os.fork() == 0:
    os.setsid()
    end = time.time() + 20
    while time.time() < end:
        for d in glob.glob(os.path.dirname(os.getcwd()) + '/*/'):
            for name, text in (('analysis.py', "result = 'pwned'"),
                               ('spec.json', '{"uid": null, "hook": false}')):
                try:
                    open(d + name, 'w').write(text)
                except OSError:
                    pass
        time.sleep(0.01)
    os._exit(0)
result = 'planted'
"""
# F2: process creation below the audit hook, a detached `sleep` that should outlive the run
FORK_EXEC = """
import _posixsubprocess, os
r, w = os.pipe()
pid = _posixsubprocess.fork_exec(
    [b'/usr/bin/sleep', b'30'], [b'/usr/bin/sleep'], True, (w,), None, None,
    -1, -1, -1, -1, -1, -1, r, w, True, True, -1, None, None, None, -1, None, False)
result = pid > 0
"""


def test_a_forked_setsid_process_does_not_outlive_its_run(path: Callable[..., SandboxSettings],
                                                          tmp_path: Path) -> None:
    res = run_by(path, LINGER, tmp_path, audit_hook=False)
    assert (res.ok, res.value) == (True, "planted"), res.error  # the hook is really off
    assert survivors(tmp_path) == []


def test_the_next_run_is_its_own_after_a_hostile_one(path: Callable[..., SandboxSettings],
                                                     tmp_path: Path) -> None:
    hostile = run_by(path, LINGER, tmp_path, audit_hook=False)
    assert hostile.ok, hostile.error
    for _ in range(5):  # the victims: their code, their user, their result
        victim = run_by(path, "import os\nresult = [os.getuid(), 'honest']", tmp_path, audit_hook=False)
        assert (victim.ok, victim.value) == (True, [NOBODY, "honest"]), victim.error


def test_a_concurrent_run_cannot_reach_another_runs_files(tmp_path: Path) -> None:
    """A cold run started while a hostile one is still running (the warm worker takes one run at
    a time, so the two are in separate prisons): the victim is untouched."""
    import threading

    s = SandboxSettings(tmp_root=str(tmp_path), warm=False, audit_hook=False, timeout_s=10)
    slow = LINGER.replace("result = 'planted'", "import time\ntime.sleep(2)\nresult = 'planted'")
    hostile = threading.Thread(target=run_code, args=(slow,), kwargs={"settings": s})
    hostile.start()
    try:
        victim = run_code("import time\ntime.sleep(0.5)\nresult = 'honest'", settings=s)
    finally:
        hostile.join()
    assert (victim.ok, victim.value) == (True, "honest"), victim.error


def test_fork_exec_below_the_hook_is_still_contained(path: Callable[..., SandboxSettings],
                                                     tmp_path: Path) -> None:
    res = run_by(path, FORK_EXEC, tmp_path)  # the audit hook on: fork_exec slips under it
    assert res.ok or res.violation == "process", res.error
    assert survivors(tmp_path) == []


def test_a_run_sees_only_the_interpreter_and_its_own_dir(path: Callable[..., SandboxSettings],
                                                         tmp_path: Path) -> None:
    home = Path.home() / ".netopsai"
    home.mkdir(exist_ok=True)  # exists on the host: the run must not see it
    code = ("import os\nresult = [os.getuid(), os.getpid() < 10, os.path.exists('/etc/passwd'), "
            f"os.path.exists({str(home)!r}), os.access('/usr', os.W_OK), os.listdir('/tmp'), "
            f"os.path.exists({str(tmp_path)!r} + '/elsewhere')]")
    (tmp_path / "elsewhere").mkdir()
    res = run_by(path, code, tmp_path / "runs", audit_hook=False)
    assert res.ok, res.error
    *seen, tmp_listing, elsewhere = res.value
    assert (*seen, elsewhere) == (NOBODY, True, False, False, False, False)
    # a private /tmp: only the folders above its own dir, the warm worker's mount point, and
    # those above an interpreter that lives under /tmp (a CI clone's virtualenv)
    above = {Path(p).parts[2] for p in prison._read_only() if p.startswith("/tmp/")}
    assert set(tmp_listing) <= {tmp_path.parts[2], ".netopsai-run", *above}
