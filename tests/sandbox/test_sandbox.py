"""The sandbox's containment (netopsai/sandbox): each violation contained and reported as such,
layer by layer, by both run paths (a fresh interpreter, a fork of the warm worker), and the warm
worker's own behaviour. Layer tests switch one protection off to prove the other holds on its own;
those that need root (network namespace, dropping to an unprivileged user) say so when skipped."""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from netopsai.sandbox import SandboxSettings, netns_available, prestart, run_code, worker
from netopsai.sandbox import worker_args as sandbox_worker_args
from tests.sandbox_helpers import (
    FLAPS,
    NEEDS_NETNS,
    NEEDS_ROOT,
    ROOT,
    connects,
    listener_fixture,  # noqa: F401  (registers `listener`)
    path_fixture,  # noqa: F401  (registers `path`)
    run_by,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
    survivors,
    table,
    warm,
)


def test_happy_path_tables_stdout_and_scratch_files(path: Callable[..., SandboxSettings],
                                                   tmp_path: Path) -> None:
    code = ("open('scratch.txt', 'w').write('kept in the sandbox dir')\n"
            "print('rows:', len(E1), open('scratch.txt').read())\nprint('x' * 5000)\n"
            "result = E1.groupby('device')['flaps'].sum().sort_values(ascending=False)\n")
    res = run_by(path, code, tmp_path, table(FLAPS), max_stdout=200)
    assert res.ok and res.error is None and res.violation is None, res.error
    assert res.columns == ["device", "flaps"]
    assert res.rows == [{"device": "dc1-spine-04", "flaps": 6}, {"device": "dc1-leaf-21", "flaps": 2}]
    assert res.stdout.startswith("rows: 3 kept in the sandbox dir") and res.stdout.endswith("truncated]")
    assert {"rlimits", "audit-hook"} <= set(res.isolation)
    if ROOT:
        assert "user:nobody" in res.isolation and ("netns" in res.isolation) == netns_available()
    assert list(tmp_path.iterdir()) == []  # the temp dir is gone


@pytest.mark.parametrize(("code", "error"), [
    ("result = (", "SyntaxError: '(' was never closed (line 1)"),
    ("x = 1\nresult = E1['nope']", "KeyError: 'nope' (line 2)"),
])
def test_bad_code_is_an_error_not_a_crash(code: str, error: str, path: Callable[..., SandboxSettings],
                                          tmp_path: Path) -> None:
    res = run_by(path, code, tmp_path, table(FLAPS))
    assert (res.ok, res.error, res.violation) == (False, error, None)


@pytest.mark.parametrize("layers", [
    pytest.param({}, id="every-layer"),
    pytest.param({"audit_hook": False, "seccomp": False}, id="netns-only", marks=NEEDS_NETNS),
    pytest.param({"netns": False, "seccomp": False}, id="hook-only"),
    pytest.param({"netns": False, "audit_hook": False}, id="seccomp-only"),
])
def test_network_access_is_contained(layers: dict[str, bool], listener: socket.socket,
                                     path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    port = listener.getsockname()[1]
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5)\nresult = 1"
    res = run_by(path, code, tmp_path, **layers)
    assert (res.ok, res.violation) == (False, "network"), res.error
    assert not connects(listener)


def test_control_without_either_layer_the_connection_arrives(
        listener: socket.socket, path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    """Proves the listener check above can fail: unprotected, the same code gets through."""
    port = listener.getsockname()[1]
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5)\nresult = 1"
    # the prison off too: it applies its own copy of the filter whatever the settings say
    res = run_by(path, code, tmp_path, audit_hook=False, netns=False, seccomp=False, prison=False)
    assert res.ok and connects(listener), res.error


def test_writes_outside_its_dir_are_refused(path: Callable[..., SandboxSettings],
                                            tmp_path: Path) -> None:
    target = Path(tempfile.gettempdir()) / f"netopsai-escape-{uuid.uuid4().hex}" / "x"
    code = (f"import os\nos.makedirs({str(target.parent)!r}, exist_ok=True)\n"
            f"open({str(target)!r}, 'w').write('escaped')\nresult = 1")
    try:
        res = run_by(path, code, tmp_path / "runs")
        assert (res.ok, res.violation) == (False, "filesystem") and "os.mkdir" in (res.error or "")
        assert not target.exists() and not target.parent.exists()
    finally:
        if target.parent.exists():
            target.unlink(missing_ok=True)
            target.parent.rmdir()


@NEEDS_ROOT
def test_without_the_hook_the_unprivileged_user_cannot_write_root_dirs(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    # the folder the run dirs are made in: root's, and the one root dir every run can see
    owned = tmp_path / "runs"
    owned.mkdir(mode=0o700)
    code = f"open({str(owned / 'x')!r}, 'w').write('escaped')\nresult = 1"
    res = run_by(path, code, owned, audit_hook=False)
    assert (res.ok, res.violation) == (False, "filesystem") and "Permission denied" in (res.error or "")
    assert list(owned.iterdir()) == []


def test_a_fork_bomb_that_swallows_refusals_is_still_reported(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except Exception:\n        pass"
    res = run_by(path, code, tmp_path, cpu_seconds=2)
    assert (res.ok, res.violation) == (False, "process") and "os.fork" in (res.error or "")
    assert survivors(tmp_path) == []


@NEEDS_ROOT
def test_without_the_hook_rlimit_nproc_stops_a_fork_bomb(path: Callable[..., SandboxSettings],
                                                         tmp_path: Path) -> None:
    code = "import os\nwhile True:\n    os.fork()"
    res = run_by(path, code, tmp_path, audit_hook=False, max_procs=8)
    assert (res.ok, res.violation) == (False, "process") and "BlockingIOError" in (res.error or "")
    assert survivors(tmp_path) == []


def test_an_infinite_loop_hits_the_cpu_limit(path: Callable[..., SandboxSettings],
                                             tmp_path: Path) -> None:
    res = run_by(path, "print('looping')\nwhile True:\n    pass", tmp_path, cpu_seconds=2)
    assert (res.ok, res.violation) == (False, "cpu") and "CPU time limit" in (res.error or "")
    assert res.stdout == "looping\n"  # output printed before the kill is kept


def test_a_sleeping_loop_is_killed_at_the_wall_clock_timeout(path: Callable[..., SandboxSettings],
                                                             tmp_path: Path) -> None:
    code = ("import time\nwhile True:\n"
            "    try:\n        time.sleep(60)\n    except BaseException:\n        pass\n")
    res = run_by(path, code, tmp_path, timeout_s=2)
    assert (res.ok, res.violation) == (False, "timeout") and "wall-clock" in (res.error or "")
    assert survivors(tmp_path) == []


def test_a_10gb_allocation_is_a_memory_violation(path: Callable[..., SandboxSettings],
                                                 tmp_path: Path) -> None:
    res = run_by(path, "blob = b'x' * (10 * 2**30)\nresult = len(blob)", tmp_path)
    assert (res.ok, res.violation, res.error) == (False, "memory", "MemoryError (line 1)")


def test_warm_runs_share_the_worker_but_no_state(tmp_path: Path) -> None:
    """Both runs are forks of one worker (same parent), yet what the first leaves in a module
    or a file is not seen by the second."""
    s = warm(tmp_path)
    first = run_code("import os\npd.LEAK = 1\nopen('left.txt', 'w').write('x')\n"
                     "result = os.getppid()", settings=s)
    second = run_code("import os\nresult = [os.getppid(), hasattr(pd, 'LEAK'), "
                      "os.path.exists('left.txt')]", settings=s)
    assert first.ok and second.ok and first.warm and second.warm, (first.error, second.error)
    assert second.value == [first.value, False, False]


@NEEDS_ROOT
def test_without_the_hook_a_warm_run_cannot_touch_its_worker(tmp_path: Path) -> None:
    """Each run drops to nobody; in the prison it is also PID 1 of a PID namespace of its own,
    so the worker is not even there to signal or read. Either way, no signal, no memory."""
    s = warm(tmp_path, audit_hook=False)
    kill = run_code("import os, signal\nppid = os.getppid()\n"
                    "os.kill(ppid, signal.SIGKILL) if ppid else None\n"
                    "result = [ppid, sorted(int(p) for p in os.listdir('/proc') if p.isdigit())]",
                    settings=s)
    peek = run_code("import os\nresult = len(open(f'/proc/{os.getppid() or 1}/mem', 'rb').read(1))",
                    settings=s)
    if "prison" in kill.isolation:
        assert (kill.ok, kill.warm, kill.value) == (True, True, [0, [1]]), kill.error
    else:
        assert (kill.ok, kill.warm) == (False, True) and "PermissionError" in (kill.error or "")
        assert (peek.ok, peek.warm) == (False, True) and "PermissionError" in (peek.error or "")
    again = run_code("result = 2", settings=s)
    assert (again.ok, again.warm, again.value) == (True, True, 2)  # the worker is still there


def test_a_busy_worker_sends_the_run_down_the_cold_path(tmp_path: Path) -> None:
    s = warm(tmp_path)
    held = worker.acquire(*sandbox_worker_args(s))
    assert held is not None
    try:
        res = run_code("result = 3", settings=s)
    finally:
        held.lock.release()
    assert (res.ok, res.warm, res.value) == (True, False, 3)
    assert run_code("result = 4", settings=s).warm


def test_a_dead_worker_is_replaced_and_its_run_falls_back(tmp_path: Path) -> None:
    s = warm(tmp_path)
    w = worker.acquire(*sandbox_worker_args(s))
    assert w is not None
    w.lock.release()
    w.proc.kill()
    w.proc.wait()
    res = run_code("result = 5", settings=s)
    assert (res.ok, res.warm, res.value) == (True, False, 5)
    worker.shutdown()  # forget the retry delay
    assert prestart(s, wait=True) and run_code("result = 6", settings=s).warm


def test_a_forked_copy_of_the_process_leaves_the_worker_alone(tmp_path: Path) -> None:
    """A fork (e.g. a batch worker) inherits the registry: its shutdown must not stop ours."""
    s = warm(tmp_path)
    pid = os.fork()
    if pid == 0:
        worker.shutdown()
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    res = run_code("result = 7", settings=s)
    assert (res.ok, res.warm, res.value) == (True, True, 7)
