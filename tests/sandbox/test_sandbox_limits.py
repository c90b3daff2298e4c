"""Issue 23, B3: limits the kernel enforces, whatever the code does, on both run paths.

At e47b4d3 generated code held 2.4 GB against a 1 GB RLIMIT_AS through memfd_create +
fallocate, left SysV shared memory in the warm worker that the next run read, and filled 3 GB of
the host's disk with 50 files of 60 MB. Each is replayed here with the in-process guards off
(no audit hook, no seccomp filter) so that what holds is the control group, the run's own IPC
namespace and its size-capped scratch tmpfs; and with the filter on, which refuses memfd and
SysV IPC outright.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from netopsai.sandbox import SandboxSettings, cgroup, prison
from tests.sandbox_helpers import (
    path_fixture,  # noqa: F401  (registers `path`)
    run_by,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
    survivors,
)

NOBODY = (65534, 65534)
NEEDS_CGROUP = pytest.mark.skipif(not cgroup._parents(), reason=(
    "control groups need root and a memory+pids hierarchy (v1 or v2) mounted"))
NEEDS_PRISON = pytest.mark.skipif(not prison.available(NOBODY), reason=(
    "the prison needs root, bubblewrap and setpriv (scripts/system-deps.sh)"))
GUARDS_OFF: dict[str, Any] = {"audit_hook": False, "seccomp": False}

MEMFD = """
import os
fds, held = [], 0
for _ in range(40):  # 2.4 GB in memfds of 60 MB, each below the file-size limit
    fd = os.memfd_create('hold')
    os.posix_fallocate(fd, 0, 60 << 20)
    fds.append(fd)
    held += 60
result = held
"""


@NEEDS_CGROUP
def test_memory_held_in_a_memfd_stops_at_the_limit(path: Callable[..., SandboxSettings],
                                                   tmp_path: Path) -> None:
    """The control group alone: no prison (whose own filter refuses memfd), no guard."""
    res = run_by(path, MEMFD, tmp_path, memory_mb=512, prison=False, **GUARDS_OFF)
    assert not res.ok and res.value is None, res.value
    assert res.violation == "memory", (res.violation, res.error)
    assert "cgroup" in res.isolation
    assert survivors(tmp_path) == []


def test_the_filter_refuses_memfd_and_sysv_ipc(path: Callable[..., SandboxSettings],
                                              tmp_path: Path) -> None:
    code = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nseen = {}\n"
            "try:\n    os.memfd_create('x')\n    seen['memfd'] = 0\n"
            "except OSError as exc:\n    seen['memfd'] = exc.errno\n"
            "seen['shmget'] = 0 if libc.shmget(0, 4096, 0o1600) >= 0 else ctypes.get_errno()\n"
            "result = seen")
    res = run_by(path, code, tmp_path, audit_hook=False)
    assert res.ok, res.error
    assert res.value == {"memfd": errno.EPERM, "shmget": errno.EPERM}


SHM_WRITE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
ids = []
for key in range(4242, 4246):  # 4 x 64 MB left behind on purpose
    sid = libc.shmget(key, 64 << 20, 0o1666)
    if sid < 0:
        ids.append(-ctypes.get_errno())
        continue
    addr = libc.shmat(sid, None, 0)
    ctypes.memmove(addr, b'secret of run one', 17)
    ids.append(sid)
result = ids
"""
SHM_READ = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
sid = libc.shmget(4242, 0, 0o666)
if sid < 0:
    result = 'none: errno %d' % ctypes.get_errno()
else:
    result = ctypes.string_at(libc.shmat(sid, None, 0), 17).decode()
"""


@NEEDS_PRISON
def test_sysv_shared_memory_does_not_survive_into_the_next_run(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    """With the in-process guards off the prison's own filter refuses the segments; were one
    made, the run's IPC namespace would end with it."""
    first = run_by(path, SHM_WRITE, tmp_path, **GUARDS_OFF)
    assert first.ok and first.value == [-errno.EPERM] * 4, (first.error, first.value)
    second = run_by(path, SHM_READ, tmp_path, **GUARDS_OFF)
    assert second.ok, second.error
    assert second.value in (f"none: errno {errno.ENOENT}", f"none: errno {errno.EPERM}")


FILL = """
import os
written = 0
try:
    for n in range(50):  # 3 GB in 60 MB files
        with open(f'fill-{n}.bin', 'wb') as f:
            for _ in range(60):
                f.write(b'x' * (1 << 20))
        written += 60
except OSError as exc:
    result = [written, exc.errno]
else:
    result = [written, 0]
"""


@NEEDS_PRISON
def test_files_stop_at_the_scratch_size_and_leave_the_host_disk_alone(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    free_before = shutil.disk_usage(tmp_path).free
    res = run_by(path, FILL, tmp_path, max_disk_mb=64, max_file_mb=64, **GUARDS_OFF)
    assert res.ok, res.error
    written, err = res.value
    assert err == errno.ENOSPC and written < 64, res.value
    # nothing of it reached the disk the runs folder is on (allow for other writers)
    assert free_before - shutil.disk_usage(tmp_path).free < 32 << 20
    assert list(tmp_path.iterdir()) == []


FAN_OUT = """
import os, time
started = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        started += 1
except OSError as exc:
    result = [started, exc.errno]
else:
    result = [started, 0]
"""


@NEEDS_CGROUP
def test_a_fork_fan_out_stops_at_the_process_limit_and_leaves_nothing(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    res = run_by(path, FAN_OUT, tmp_path, max_procs=16, **GUARDS_OFF)
    assert res.ok, res.error
    started, err = res.value
    assert started < 16 and err == errno.EAGAIN, res.value
    assert survivors(tmp_path) == []
