"""Where a run's files live, made so that no other local user can touch them.

The runs folder is ours alone: a fresh `mkdtemp` per process (0700, a name nobody could have
made first), or the configured `tmp_root`, which must be a real directory (not a link) owned by
the running user with no access for group or others — else runs are refused, never made in a
place another account prepared. Everything below it is reached through directory descriptors:
the run dir is made and opened relative to the folder's descriptor, its files are created with
O_EXCL|O_NOFOLLOW, and it is removed by descriptor too, so a link planted anywhere on the way
is never followed. Output files have no name at all (memfds): nothing can be swapped for them.
"""

from __future__ import annotations

import atexit
import multiprocessing.util
import os
import secrets
import shutil
import stat
import tempfile
from contextlib import suppress
from pathlib import Path

_OWN: dict[int, Path] = {}  # pid -> the runs folder this process made for itself


class RunsFolderRefused(RuntimeError):
    """The configured runs folder is not safe to use."""


def runs_root(configured: str | None) -> Path:
    """The folder run dirs are made in, checked. A configured one is made when missing."""
    if configured:
        root = Path(configured)
        with suppress(FileExistsError):
            root.mkdir(mode=0o700, parents=True)
        check(root)
        return root
    pid = os.getpid()
    if pid in _OWN:
        try:
            check(_OWN[pid])
            return _OWN[pid]
        except RunsFolderRefused:  # removed under us (a temp cleaner): make another
            del _OWN[pid]
    else:  # a forked copy (batch workers) makes its own: the parent removes its
        atexit.register(_remove_own, pid)
        # a multiprocessing worker ends with os._exit, which skips atexit, but runs the
        # finalizers registered here first (each worker had left its folder behind)
        multiprocessing.util.Finalize(None, _remove_own, args=(pid,), exitpriority=0)
    _OWN[pid] = Path(tempfile.mkdtemp(prefix="netopsai-sandbox-"))
    return _OWN[pid]


def _remove_own(pid: int) -> None:
    if os.getpid() == pid and pid in _OWN:
        shutil.rmtree(_OWN.pop(pid), ignore_errors=True)


def check(root: Path) -> None:
    """lstat, not stat: the folder itself, never what a link points at."""
    try:
        st = os.lstat(root)
    except OSError as exc:
        raise RunsFolderRefused(f"sandbox runs folder {root}: {exc.strerror}") from None
    _checked(st, root)


def _checked(st: os.stat_result, root: Path) -> None:
    if not stat.S_ISDIR(st.st_mode):
        raise RunsFolderRefused(f"sandbox runs folder {root} is not a directory (a link?)")
    if st.st_uid != os.geteuid():
        raise RunsFolderRefused(f"sandbox runs folder {root} belongs to uid {st.st_uid}, "
                                f"not to this user ({os.geteuid()})")
    if st.st_mode & 0o077:
        raise RunsFolderRefused(f"sandbox runs folder {root} is open to other users "
                                f"(mode {stat.S_IMODE(st.st_mode):o}; 0700 wanted)")


class RunDir:
    """One run's directory below the runs folder, held by descriptor."""

    def __init__(self, root: Path) -> None:
        self.root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            _checked(os.fstat(self.root_fd), root)  # the folder opened is the folder checked
            self.name = f"run-{secrets.token_hex(8)}"
            os.mkdir(self.name, 0o700, dir_fd=self.root_fd)
            self.fd = os.open(self.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                              dir_fd=self.root_fd)
        except BaseException:
            os.close(self.root_fd)
            raise
        self.path = root.resolve() / self.name

    def write(self, name: str, data: str) -> None:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o644, dir_fd=self.fd)
        os.fchmod(fd, 0o644)  # whatever the umask (the CLI's is 077): the run's user reads it
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)

    def nameless(self, name: str) -> int:
        """A read-write file with no name (the run's stdout, stderr and result): only a
        descriptor reaches it. In memory (a memfd), not on the host's disk: the pages a run
        puts there (fallocate included) are charged to the run's control group, and a file
        holds no more than RLIMIT_FSIZE lets the run write."""
        try:
            return os.memfd_create(f"netopsai-{name}", os.MFD_CLOEXEC)
        except OSError:  # no memfd: an unnamed file in our own folder
            return os.open(".", os.O_RDWR | os.O_CLOEXEC | os.O_TMPFILE, 0o600, dir_fd=self.root_fd)

    def give(self, uid: int, gid: int, writable: bool) -> None:
        """Let the run's user in: as owner of the dir (it writes there), or read-only through
        the dir's descriptor (0711: files opened by name, nothing listed or made)."""
        if writable:
            os.fchown(self.fd, uid, gid)
        else:
            os.fchmod(self.fd, 0o711)

    def close(self) -> None:
        with suppress(OSError):
            os.fchmod(self.fd, 0o700)
        os.close(self.fd)
        try:  # by descriptor: links the run made inside are removed, never followed
            shutil.rmtree(self.name, dir_fd=self.root_fd, ignore_errors=True)
        finally:
            os.close(self.root_fd)

    def __enter__(self) -> RunDir:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def read_head(fd: int, limit: int) -> bytes:
    """Up to `limit` bytes from the start of a nameless file (pread: the run moved the offset)."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return b""
    return os.pread(fd, limit, 0)
