"""The prison an analysis runs in: bubblewrap (Debian's `bubblewrap`) puts each run in its own
PID, mount, IPC and UTS namespaces (and network namespace unless settings turn that off), so
containment holds with every in-process guard switched off.

What the run sees of the filesystem: the system's and the interpreter's directories read-only
(for Python, numpy and pandas), a private /tmp, a fresh /proc of its own PID namespace, a minimal
/dev, and its own scratch directory — nothing of NETOPSAI_HOME, of other runs or of the rest of /.
A run ends when its PID namespace does: bwrap's init is PID 1 there, and when the run's process
exits (or bwrap is killed, `--die-with-parent`) the kernel kills everything left inside, so a
process that forked and called setsid() does not outlive its run.

bwrap drops every capability but the three setpriv needs, and setpriv (prison.drop) makes the
run the unprivileged user with none before our Python starts: the drop is the prison's, not a
setting the run's files carry. Nothing of the host is bound writable: the run's dir and /tmp
are fresh size-capped tmpfs mounts, / and /dev are read-only. The run reaches its inputs
through a descriptor of its run dir, never a path another process could swap.

The warm worker is started in the same kind of prison, keeping also CAP_SYS_ADMIN and
CAP_KILL; each run it forks takes mount, IPC and PID namespaces of its own (zygote.isolate:
fresh tmpfs mounts, no SysV object of another run, the worker out of sight), then drops to the
unprivileged user with no capability (zygote.drop_privileges), and between runs the worker
kills whatever is left (zygote.sweep).

Inside, the child has the kernel refuse the syscalls an analysis never needs
(child.seccomp_filter: ptrace, mounts, new namespaces, modules, BPF, io_uring, network sockets,
memfd and SysV IPC); that filter is the kernel's, so switching off Python's guards does not lift
it. The control group around each run (cgroup.py) caps its memory, processes and CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"  # util-linux
DROP_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")  # what becoming nobody takes
WORKER_CAPS = ("CAP_SYS_ADMIN", "CAP_KILL")
SYSTEM = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime")
PACKAGE = Path(__file__).parent  # child.py and zygote.py, executed by path


def _read_only() -> list[str]:
    """The system's and the interpreter's directories, each once, outermost first: the prefix,
    the standard library and site-packages, this package. Not the rest of the parent's
    sys.path (its cwd, a script's dir, PYTHONPATH): the child runs `python -I`, which reads none
    of them, and they may be a checkout or NETOPSAI_HOME."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)}
    libs = [p for p in sys.path if p and (
        os.path.basename(os.path.normpath(p)) in ("site-packages", "dist-packages")
        or _inside(os.path.realpath(p), list(prefixes)))]
    wanted = [*SYSTEM, *prefixes, *libs, str(PACKAGE),
              str(Path(os.path.realpath(sys.executable)).parent)]
    paths = sorted({os.path.realpath(p) for p in wanted if p and os.path.exists(p)}, key=len)
    kept: list[str] = []
    for p in paths:
        if not _inside(p, kept):
            kept.append(p)
    return kept


def _inside(path: str, dirs: list[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def drop(user: tuple[int, int]) -> list[str]:
    """The run's command inside the prison starts with this: setpriv (util-linux, read-only
    there) becomes the unprivileged user with no groups, no capability, an empty bounding set
    and no_new_privs, before any of our Python runs. No file of the run says whether or to
    whom to drop, so nothing in the run dir can turn it off."""
    uid, gid = user
    return [SETPRIV, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--"]


def argv(scratch: Path | None, network: bool, size_mb: int, worker: bool = False) -> list[str]:
    """The bwrap command line that the run's own command follows. `scratch`: the run's
    writable dir, a fresh tmpfs of `size_mb` at that path (a cold run's cwd; for the warm
    worker, the runs folder, where each job mounts its own). `network`: share the host's
    network namespace (only when the settings turn the network layer off). Every capability
    is dropped but those the next step needs: setpriv's (to become the unprivileged user) for
    a run, and for the worker also CAP_SYS_ADMIN (each job's namespaces and mounts) and
    CAP_KILL (the sweep between runs)."""
    args = [BWRAP, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc",
            "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL"]
    for cap in DROP_CAPS + (WORKER_CAPS if worker else ()):
        args += ["--cap-add", cap]
    if not network:
        args.append("--unshare-net")
    # the private /tmp first: an interpreter or checkout under /tmp is bound on top of it
    size = str(size_mb << 20)
    args += ["--perms", "01777", "--size", size, "--tmpfs", "/tmp"]
    kept = _read_only()
    made: set[str] = {"/tmp"}
    for p in kept:
        args += _parents(p, made) + ["--ro-bind", p, p]
    for link in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):  # usrmerge: /lib64 -> usr/lib64 ...
        if os.path.islink(link) and _inside(os.path.realpath(link), kept):
            args += ["--symlink", os.readlink(link), link]
    args += ["--proc", "/proc", "--dev", "/dev"]
    if scratch is not None:
        args += _parents(str(scratch), made)
        args += ["--dir", str(scratch)] if worker else [
            "--perms", "01777", "--size", size, "--tmpfs", str(scratch), "--chdir", str(scratch)]
    # nothing of the prison's own is writable but the scratch dir and /tmp
    return [*args, "--remount-ro", "/dev", "--remount-ro", "/"]


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
def available(user: tuple[int, int] | None) -> bool:
    """Whether the prison can be built here for this run user: root (bwrap builds the
    namespaces), setpriv, and a kernel that allows them. Never without a user to drop to."""
    if os.geteuid() != 0 or user is None:
        return False
    if not (os.access(BWRAP, os.X_OK) and os.access(SETPRIV, os.X_OK)):
        return False
    try:
        return subprocess.run([*argv(None, network=False, size_mb=1), *drop(user), "/bin/true"],
                              timeout=20, capture_output=True, cwd="/").returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
