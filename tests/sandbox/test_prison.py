"""The prison holds with every in-process guard off (trust, F1 and F2): the attacks that once
owned the next runs as root, replayed by both run paths (a fresh interpreter and a fork of the
warm worker) with the audit hook switched off. A process a run leaves behind — forked and
setsid(), or started through `_posixsubprocess.fork_exec` — does not outlive it; a hostile run
cannot reach another run's files, so the next (victim) run's code, user and result are its own;
and a run sees nothing of the host but the interpreter's read-only files."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from netopsai.sandbox import SandboxSettings, prison, run_code
from tests.conftest import SUITE_HOME
from tests.sandbox_helpers import (
    connects,
    listener_fixture,  # noqa: F401  (registers `listener`)
    path_fixture,  # noqa: F401  (registers `path`)
    run_by,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
    survivors,
)

NOBODY = 65534
pytestmark = pytest.mark.skipif(not prison.available((NOBODY, NOBODY)), reason=(
    "the prison needs root, bubblewrap and setpriv (apt-get install bubblewrap; "
    "scripts/system-deps.sh)"))

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


# F1's first step: the audit hook's own state, found through gc, switched off from inside
GC_OFF = """
import gc, os, socket
state = next(o for o in gc.get_objects() if isinstance(o, dict) and 'BUSY' in o and 'hook' in o)
state['BUSY'].append(1)  # the hook now returns at once: every in-process guard is off
uid = os.popen('id -u').read().strip()  # process creation, which the hook refuses while on
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=2)
    net = 'connected'
except OSError as exc:
    net = type(exc).__name__
try:
    open({store!r}, 'rb').read(16)
    store = 'read'
except OSError as exc:
    store = type(exc).__name__
result = [uid, net, store]
"""


def test_with_the_hook_switched_off_through_gc_the_prison_still_holds(
        path: Callable[..., SandboxSettings], tmp_path: Path, listener: socket.socket) -> None:
    store = tmp_path / "home" / "netopsai.db"
    store.parent.mkdir()
    store.write_bytes(b"SQLite format 3\0")
    store.chmod(0o644)  # readable by anyone on the host: only the prison hides it
    code = GC_OFF.format(port=listener.getsockname()[1], store=str(store))
    res = run_by(path, code, tmp_path / "runs")  # the hook on, as in production
    assert res.ok, res.error
    uid, net, seen = res.value
    assert uid == str(NOBODY)  # the hook was really off: a shell ran
    assert net != "connected" and not connects(listener)
    assert seen == "FileNotFoundError"
    assert survivors(tmp_path) == []


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
    home = SUITE_HOME  # NETOPSAI_HOME exists on the host: the run must not see it
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


# each call straight to the C library (no Python guard sees it), in a child of its own whose exit
# code is the kernel's answer (0: allowed): a call that succeeds must not change the run itself
SYSCALLS = """
import ctypes, os, platform, socket
libc = ctypes.CDLL(None, use_errno=True)
def in_child(call):
    pid = os.fork()
    if pid == 0:
        rc = call()
        os._exit(0 if rc >= 0 else ctypes.get_errno())
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
def clone_newuser():
    rc = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # raw clone(CLONE_NEWUSER | SIGCHLD)
    if rc == 0:
        os._exit(0)  # the clone itself
    return rc
def inet_socket():
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
        return 0
    except OSError as exc:
        ctypes.set_errno(exc.errno)
        return -1
seen = {
    'ptrace': in_child(lambda: libc.ptrace(0, 0, 0, 0)),  # PTRACE_TRACEME
    'unshare_user': in_child(lambda: libc.unshare(0x10000000)),
    'unshare_net': in_child(lambda: libc.unshare(0x40000000)),
    'mount': in_child(lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)),
    'inet_socket': in_child(inet_socket),
}
if platform.machine() == 'x86_64':  # raw syscall numbers of this architecture
    seen['io_uring'] = in_child(lambda: libc.syscall(425, 8, ctypes.create_string_buffer(120)))
    seen['clone_newuser'] = in_child(clone_newuser)
a, b = socket.socketpair()  # AF_UNIX stays: pandas and the child's own plumbing may use it
seen['unix_socketpair'] = 0
seen['fork'] = in_child(lambda: 0)  # a plain fork works: the filter refuses only what is named
result = seen
"""


def test_the_kernel_refuses_what_an_analysis_never_needs(path: Callable[..., SandboxSettings],
                                                         tmp_path: Path) -> None:
    """With the audit hook off, the seccomp filter alone answers EPERM (1) to debugging another
    process, new namespaces (by unshare or clone), mounts, io_uring and network sockets."""
    import errno

    res = run_by(path, SYSCALLS, tmp_path, audit_hook=False)
    assert res.ok, res.error
    assert "seccomp" in res.isolation
    refused = {k: v for k, v in res.value.items() if k not in ("unix_socketpair", "fork")}
    assert refused == dict.fromkeys(refused, errno.EPERM), res.value
    assert (res.value["unix_socketpair"], res.value["fork"]) == (0, 0)


def test_without_the_filter_those_calls_reach_the_kernel(tmp_path: Path) -> None:
    """The control: the same code with the filter off gets other answers, so the test above
    measures the filter, not the namespaces around it."""
    import errno

    s = SandboxSettings(tmp_root=str(tmp_path), warm=False, audit_hook=False, seccomp=False,
                        prison=False)  # the prison applies its own copy of the filter
    res = run_code(SYSCALLS, settings=s)
    assert res.ok, res.error
    assert res.value["ptrace"] == 0 and res.value["inet_socket"] == 0, res.value
    assert res.value["unshare_user"] != errno.EPERM, res.value
