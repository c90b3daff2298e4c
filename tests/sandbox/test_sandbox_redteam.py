"""The second hostile pass over the sandbox (issue 23, "done when"): what a reviewer who had
read the issue tried after B1/B3 were fixed, each now a test on both run paths.

- the run's output files lived on the host's disk: fallocate(KEEP_SIZE) on stdout held 2 GB
  of it, past every file-size limit;
- the result file is the run's to write: a forged 60 MB result made the root parent parse
  21 million rows (3 GB);
- with the in-process filter off, the code could make user namespaces (every capability
  inside, netfilter reachable) and keep data in the kernel keyring for later runs;
- a cold run was dumpable: any other process of the same user could read its memory;
- the prison bound the parent's whole sys.path (a checkout, a script's dir) read-only.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from netopsai.sandbox import SandboxSettings, prison
from tests.paths import REPO
from tests.sandbox_helpers import (
    path_fixture,  # noqa: F401  (registers `path`)
    run_by,
    stop_workers,  # noqa: F401  (stops the warm worker after the module)
)

NOBODY = (65534, 65534)
pytestmark = pytest.mark.skipif(not prison.available(NOBODY), reason=(
    "the prison needs root, bubblewrap and setpriv (scripts/system-deps.sh)"))
GUARDS_OFF: dict[str, Any] = {"audit_hook": False, "seccomp": False}

FALLOCATE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
rc = libc.fallocate(1, 1, 0, 2 << 30)  # FALLOC_FL_KEEP_SIZE on stdout: 2 GB
result = 0 if rc == 0 else ctypes.get_errno()
"""


def test_output_files_hold_no_host_disk(path: Callable[..., SandboxSettings],
                                        tmp_path: Path) -> None:
    res = run_by(path, FALLOCATE, tmp_path, memory_mb=512, **GUARDS_OFF)
    # refused (no memory for it in the run's group) or the run killed at its memory limit
    assert (res.ok and res.value in (errno.ENOMEM, errno.ENOSPC, errno.EFBIG)) or \
        res.violation == "memory", (res.value, res.violation, res.error)


FORGED = """
import os
def target(f):
    try:
        return os.readlink(f'/proc/self/fd/{{f}}').startswith('/memfd:netopsai-result')
    except OSError:  # the listing's own descriptor, closed by now
        return False
fd = next(int(f) for f in os.listdir('/proc/self/fd') if target(f))
rows = {rows}
os.pwrite(fd, b'{{"ok": true, "columns": ["a"], "rows": [' + b'{{"a": 1}},' * (rows - 1)
          + b'{{"a": 1}}]}}', 0)
os._exit(0)
"""


def test_a_forged_result_is_sized_before_it_is_read(path: Callable[..., SandboxSettings],
                                                    tmp_path: Path) -> None:
    big = run_by(path, FORGED.format(rows=3_000_000), tmp_path, **GUARDS_OFF)
    assert not big.ok and "larger than" in (big.error or ""), big.error
    small = run_by(path, FORGED.format(rows=5_000), tmp_path, max_rows=100, **GUARDS_OFF)
    assert small.ok and len(small.rows) == 100 and small.truncated, small.error


KERNEL = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def errno_of(rc):
    return 0 if rc >= 0 else ctypes.get_errno()
result = {
    'userns': errno_of(libc.unshare(0x10000000)),
    'add_key': errno_of(libc.syscall(248, b'user', b'left-behind', b'data', 4, -4)),
    'dumpable': libc.prctl(3, 0, 0, 0, 0),
}
"""


def test_with_every_guard_off_the_prison_still_filters_the_kernel(
        path: Callable[..., SandboxSettings], tmp_path: Path) -> None:
    """No user namespace, no keyring, and a run no other process of its user may debug."""
    res = run_by(path, KERNEL, tmp_path, **GUARDS_OFF)
    assert res.ok, res.error
    assert res.value == {"userns": errno.EPERM, "add_key": errno.EPERM, "dumpable": 0}


def test_the_prison_binds_no_checkout_or_script_dir(path: Callable[..., SandboxSettings],
                                                   tmp_path: Path) -> None:
    code = (f"import os\nresult = [os.path.exists({str(REPO / 'README.md')!r}), "
            f"os.path.exists({str(REPO / 'tests')!r})]")
    res = run_by(path, code, tmp_path, **GUARDS_OFF)
    assert res.ok and res.value == [False, False], (res.error, res.value)
