"""The prison an analysis runs in: bubblewrap (Debian's `bubblewrap`) puts each run in its own
PID, mount, IPC and UTS namespaces (and network namespace unless settings turn that off), so
containment holds with every in-process guard switched off.

What the run sees of the filesystem: the system's and the interpreter's directories read-only
(for Python, numpy and pandas), a private /tmp, a fresh /proc of its own PID namespace, a minimal
/dev, and its own run directory — nothing of NETOPSAI_HOME, of other runs or of the rest of /.
A run ends when its PID namespace does: bwrap's init is PID 1 there, and when the run's process
exits (or bwrap is killed, `--die-with-parent`) the kernel kills everything left inside, so a
process that forked and called setsid() does not outlive its run.

The warm worker is started in the same kind of prison with the runs folder bound; each run it
forks first takes a mount namespace of its own in which, of that folder, only its run's dir is
left (zygote.isolate), and between runs the worker kills every process of the unprivileged
user in its namespace (zygote.sweep), so nothing survives from one run to the next.

Inside, after dropping to the unprivileged user, the child has the kernel refuse the syscalls an
analysis never needs (child.seccomp_filter: ptrace, mounts, new namespaces, modules, BPF,
io_uring, network sockets); that filter is the kernel's, so switching off Python's guards does
not lift it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

BWRAP = "/usr/bin/bwrap"
SYSTEM = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime")
PACKAGE = Path(__file__).parent  # child.py and zygote.py, executed by path


def _read_only() -> list[str]:
    """The system's and the interpreter's directories, each once, outermost first."""
    wanted = [*SYSTEM, sys.base_prefix, sys.prefix, *sys.path, str(PACKAGE),
              str(Path(os.path.realpath(sys.executable)).parent)]
    paths = sorted({os.path.realpath(p) for p in wanted if p and os.path.exists(p)}, key=len)
    kept: list[str] = []
    for p in paths:
        if not _inside(p, kept):
            kept.append(p)
    return kept


def _inside(path: str, dirs: list[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def argv(writable: Path | None, network: bool, chdir: bool = True) -> list[str]:
    """The bwrap command line that the run's own command follows. `writable`: the one folder
    bound read-write (a cold run's dir, its cwd; the warm worker's runs folder). `network`:
    share the host's network namespace (only when the settings turn the network layer off)."""
    args = [BWRAP, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try"]
    if not network:
        args.append("--unshare-net")
    # the private /tmp first: an interpreter or checkout under /tmp is bound on top of it
    args += ["--tmpfs", "/tmp"]
    kept = _read_only()
    made: set[str] = {"/tmp"}
    for p in kept:
        args += _parents(p, made) + ["--ro-bind", p, p]
    for link in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):  # usrmerge: /lib64 -> usr/lib64 ...
        if os.path.islink(link) and _inside(os.path.realpath(link), kept):
            args += ["--symlink", os.readlink(link), link]
    args += ["--proc", "/proc", "--dev", "/dev"]
    if writable is not None:
        args += _parents(str(writable), made)
        args += ["--bind", str(writable), str(writable)]
        args += ["--chdir", str(writable)] if chdir else []
    return args


def _parents(path: str, made: set[str]) -> list[str]:
    """The folders above a bind, made traversable (0755) for the unprivileged run: bwrap would
    make them 0700, closing /root/.pyenv or /work to `nobody`."""
    out: list[str] = []
    for parent in reversed(Path(path).parents):
        p = str(parent)
        if p != "/" and p not in made:
            made.add(p)
            out += ["--perms", "0755", "--dir", p]
    return out


@cache
def available() -> bool:
    """Whether the prison can be built here: root (the run drops to an unprivileged user inside)
    and a bwrap whose namespaces the kernel allows."""
    if os.geteuid() != 0 or not os.access(BWRAP, os.X_OK):
        return False
    try:
        return subprocess.run([*argv(None, network=False), "/bin/true"], timeout=20,
                              capture_output=True).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
