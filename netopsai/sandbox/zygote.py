"""The warm sandbox worker: `python -I zygote.py FD`, started by netopsai.sandbox.worker.

It pays the sandbox's fixed cost once: it imports child.py's PRELOAD (numpy, pandas ...) inside
the network namespace it was started in. Each run is then a fork: the job gets its own session,
the run's dir as its cwd and the parent's files as stdout/stderr, and from there follows
exactly the cold child's steps (child.run: its control groups, rlimits, inputs, the audit hook,
the code, the result). The worker itself never runs analysis code and never loads inputs, so no
run sees another's data. In the prison the worker keeps root with a few capabilities (prison.py)
to give each job its own mounts, IPC and PIDs; the job then becomes the unprivileged user with
none, before the run's files are read, so it can neither signal the worker nor read its memory.
Outside the prison each job drops to the unprivileged user in child.run.

Protocol on the SOCK_SEQPACKET socket FD (one message each): the worker sends `ready`; the
parent sends `run SECONDS` with the run's descriptors (its dir, stdout, stderr, result file,
then its control groups' cgroup.procs); the
worker answers {"pid": N} at the fork and {"status": S, "timed_out": B} (a waitpid status) when
the job is reaped, killing it at the time limit. An empty read means the parent is gone: the
worker exits. In the prison (prison.py) it then kills whatever is left in its PID namespace
before it takes the next run. Standard library only, executed by path.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import select
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import suppress
from types import ModuleType

SWEEP = "NETOPSAI_SANDBOX_SWEEP"  # in the prison: kill all but the worker between runs
RUNS = "NETOPSAI_SANDBOX_RUNS"  # in the prison: where each job mounts its own scratch dir
SCRATCH_MB = "NETOPSAI_SANDBOX_SCRATCH_MB"  # the size of a job's scratch and /tmp
RUN_AS = "NETOPSAI_SANDBOX_RUN_AS"  # in the prison: "UID:GID" every job becomes
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x20000, 0x08000000, 0x20000000
MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV, MS_NOEXEC = 16384, 1 << 18, 2, 4, 8
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
MAX_FDS = 8  # the run dir, stdout, stderr, the result file and up to four control groups


def load_child() -> ModuleType:
    """child.py, from beside this file (-I leaves the script's dir off sys.path)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
    spec = importlib.util.spec_from_file_location("netopsai_sandbox_child", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def job(child: ModuleType, ctl: socket.socket, fds: list[int]) -> None:
    """The forked run: never returns."""
    try:
        ctl.close()
        run_dir, out, err, result, *groups = fds
        child.join_groups(groups)  # first: whatever follows is counted and limited
        os.setsid()  # its own group: the parent kills the whole group when the run ends
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)
        spec = json.loads(child.read(run_dir, "spec.json"))
        if os.environ.get(RUNS):
            isolate(os.environ[RUNS], str(spec["root"]), int(os.environ.get(SCRATCH_MB) or 64))
            in_own_pids(lambda: start(child, spec, run_dir, result, jailed=True))
        else:  # outside the prison the run dir is the scratch dir
            os.fchdir(run_dir)
            start(child, spec, run_dir, result, jailed=False)
    except BaseException as exc:  # noqa: B036 - said on the run's stderr, for its error line
        os.write(2, f"sandbox job failed: {type(exc).__name__}: {exc}\n".encode())
    finally:
        os._exit(0)


def start(child: ModuleType, spec: dict[str, object], run_dir: int, result: int,
          jailed: bool) -> None:
    if jailed:
        ok(_libc().mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
           "mounting the job's own /proc")
        drop_privileges(*run_as())
        child.seccomp_filter()  # the prison's own filter, whatever the run's settings say
        os.chdir(str(spec["root"]))
    os.environ.update(HOME=str(spec["root"]), TMPDIR=str(spec["root"]))  # as the cold path's
    tempfile.tempdir = None  # forget a default the worker may have chosen
    child.run(spec, run_dir, result)
    sys.stdout.flush()
    sys.stderr.flush()


def in_own_pids(body: Callable[[], None]) -> None:
    """Run `body` as PID 1 of the PID namespace isolate() made: it sees neither the worker nor
    any other process, so it cannot signal the worker, and everything it starts dies with it.
    This process waits and ends as the body did (the same exit code or signal)."""
    pid = os.fork()
    if pid == 0:
        try:
            body()
        except BaseException as exc:  # noqa: B036 - as job() does
            os.write(2, f"sandbox job failed: {type(exc).__name__}: {exc}\n".encode())
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def ok(rc: int, what: str) -> None:
    if rc != 0:
        raise OSError(ctypes.get_errno(), f"prison: {what} failed")


def isolate(runs: str, run_dir: str, size_mb: int) -> None:
    """Mount, IPC and PID namespaces of the job's own: a fresh size-capped /tmp, an empty
    root-owned tmpfs over the runs folder holding just this run's scratch dir (itself a
    size-capped tmpfs owned by the run's user), no SysV object of an earlier run (they die with
    the namespace), and (for the next fork) a PID numbering of its own. Any failure raises:
    the job then runs nothing."""
    libc = _libc()
    os.umask(0o022)  # the folders made below must be traversable by the run's user
    ok(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID), "unshare")
    ok(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
    uid, gid = run_as()
    for where, opts in (("/tmp", f"size={size_mb}m,mode=01777"), (runs, "size=1m,mode=0755"),
                        (run_dir, f"size={size_mb}m,mode=0700,uid={uid},gid={gid}")):
        os.makedirs(where, mode=0o755, exist_ok=True)  # /tmp first: the runs may lie below it
        ok(libc.mount(b"tmpfs", where.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, opts.encode()),
           f"a tmpfs on {where}")


def run_as() -> tuple[int, int]:
    uid, gid = (int(x) for x in os.environ[RUN_AS].split(":"))
    return uid, gid


class CapHeader(ctypes.Structure):  # struct __user_cap_header_struct
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


def drop_privileges(uid: int, gid: int) -> None:
    """The job becomes the unprivileged user for good before anything of the run is loaded:
    the bounding set emptied while it still may, then no groups, the user, no capability
    (setresuid clears them; checked), and no exec may gain any back. The user comes from the
    worker's start (RUN_AS), never from a file of the run."""
    libc = _libc()
    for cap in range(64):
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last one: ignored
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    data = (ctypes.c_uint32 * 6)()  # what setresuid leaves: the inheritable set, now empty too
    ok(libc.capset(ctypes.byref(CapHeader(0x20080522, 0)), data), "clearing capabilities")
    ok(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    with open("/proc/self/status") as f:
        held = [line for line in f if line.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb",
                                                       "CapInh"))]
    if any(int(line.split()[1], 16) for line in held) or os.getuid() != uid:
        raise OSError("prison: privileges still held after the drop")


def serve(child: ModuleType, ctl: socket.socket) -> None:
    ctl.send(b"ready")
    while True:
        msg, fds, _, _ = socket.recv_fds(ctl, 64, MAX_FDS)
        if not msg:
            return
        timeout = _run_timeout(msg)
        if timeout is None or len(fds) < 4:
            for fd in fds:
                os.close(fd)
            ctl.send(b'{"error": "bad request"}')
            continue
        pid = os.fork()
        if pid == 0:
            job(child, ctl, fds)
        for fd in fds:
            os.close(fd)
        ctl.send(json.dumps({"pid": pid}).encode())
        reaped = reap(pid, ctl, timeout)
        sweep()
        if reaped is None:
            return
        status, timed_out = reaped
        ctl.send(json.dumps({"status": status, "timed_out": timed_out}).encode())


def _run_timeout(msg: bytes) -> float | None:
    """`run SECONDS`: the run's wall-clock limit, which the worker enforces (in the prison the
    job's pid means nothing outside); None for anything else."""
    parts = msg.split()
    try:
        return float(parts[1]) if len(parts) == 2 and parts[0] == b"run" else None
    except ValueError:
        return None


def reap(pid: int, ctl: socket.socket, timeout: float) -> tuple[int, bool] | None:
    """(the job's waitpid status, whether it was killed at the time limit); None when the parent
    went away meanwhile (the job is killed: a worker and its job never outlive the copilot that
    started them)."""
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd, ctl.fileno()], [], [], timeout)
    finally:
        os.close(pidfd)
    gone, timed_out = ctl.fileno() in ready and pidfd not in ready, not ready
    if gone or timed_out:
        with suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    with suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # anything the job forked that is still running
    return None if gone else (status, timed_out)


def sweep() -> None:
    """In the prison (NETOPSAI_SANDBOX_SWEEP set): kill every process left in this PID
    namespace but its init (1) and the worker — a fork that called setsid() escaped the job's
    group, not this. The worker and its jobs share one user there, so it goes by PID."""
    if not os.environ.get(SWEEP):
        return
    keep = {1, os.getpid()}
    for _ in range(100):
        left = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in keep]
        if not left:
            return
        for p in left:
            with suppress(OSError):
                os.kill(p, signal.SIGKILL)
        time.sleep(0.005)
    os._exit(1)  # something outran the sweep: end the worker, and its namespace with it


def main(fd: int) -> None:
    child = load_child()
    for name in child.PRELOAD:
        __import__(name)
    ctl = socket.socket(fileno=fd)
    with suppress(BrokenPipeError, ConnectionResetError):
        serve(child, ctl)


if __name__ == "__main__":
    main(int(sys.argv[1]))
