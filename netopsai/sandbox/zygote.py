"""The warm sandbox worker: `python -I zygote.py FD`, started by netopsai.sandbox.worker.

It pays the sandbox's fixed cost once: it imports child.py's PRELOAD (numpy, pandas ...) inside
the network namespace it was started in. Each run is then a fork: the job gets its own session,
the run's dir as its cwd and the parent's files as stdout/stderr, and from there follows
exactly the cold child's steps (child.run: rlimits, inputs, the drop to the unprivileged user,
the audit hook, the code, the result file). The worker itself never runs analysis code and
never loads inputs, so no run sees another's data; it keeps the user it was started as, so a
job (unprivileged by then) can neither signal it nor read its memory.

Protocol on the SOCK_SEQPACKET socket FD (one message each): the worker sends `ready`; the
parent sends `run SECONDS` with three descriptors (the run's dir, stdout file, stderr file); the
worker answers {"pid": N} at the fork and {"status": S, "timed_out": B} (a waitpid status) when
the job is reaped, killing it at the time limit. An empty read means the parent is gone: the
worker exits. In the prison (prison.py) it then kills whatever of the run's user is left in its
PID namespace before it takes the next run. Standard library only, executed by path.
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import socket
import sys
import tempfile
import time
from contextlib import suppress
from types import ModuleType

SWEEP_UID = "NETOPSAI_SANDBOX_SWEEP_UID"
RUNS = "NETOPSAI_SANDBOX_RUNS"  # in the prison: the runs folder bound into the worker
HOLD = "/tmp/.netopsai-run"  # the worker's private /tmp: where a job parks its dir a moment
CLONE_NEWNS, MS_BIND, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV, MNT_DETACH = (
    0x20000, 4096, 16384, 1 << 18, 2, 4, 2)


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
        os.setsid()  # its own group: the parent kills the whole group when the run ends
        root, out, err = fds
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.fchdir(root)
        for fd in fds:
            os.close(fd)
        with open("spec.json") as f:
            spec = json.load(f)
        if os.environ.get(RUNS):
            isolate(spec["root"], os.environ[RUNS])
        os.environ.update(HOME=spec["root"], TMPDIR=spec["root"])  # as the cold path's env
        tempfile.tempdir = None  # forget a default the worker may have chosen
        child.run(spec)
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(0)


def isolate(run_dir: str, runs: str) -> None:
    """Before the job drops to the unprivileged user: a mount namespace of its own in which an
    empty tmpfs covers the runs folder, with only this run's dir bound back at its path, so the
    code can reach no other run's files. Any failure raises: the job then runs nothing."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def ok(rc: int, what: str) -> None:
        if rc != 0:
            raise OSError(ctypes.get_errno(), f"prison: {what} failed")

    ok(libc.unshare(CLONE_NEWNS), "unshare")
    ok(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "making mounts private")
    os.makedirs(HOLD, exist_ok=True)
    ok(libc.mount(run_dir.encode(), HOLD.encode(), None, MS_BIND, None), "holding the run dir")
    ok(libc.mount(b"tmpfs", runs.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755"),
       "covering the runs folder")
    os.makedirs(run_dir, mode=0o755, exist_ok=True)
    ok(libc.mount(HOLD.encode(), run_dir.encode(), None, MS_BIND, None), "binding the run dir")
    ok(libc.umount2(HOLD.encode(), MNT_DETACH), "releasing the hold")
    os.chdir(run_dir)


def serve(child: ModuleType, ctl: socket.socket) -> None:
    ctl.send(b"ready")
    while True:
        msg, fds, _, _ = socket.recv_fds(ctl, 64, 3)
        if not msg:
            return
        timeout = _run_timeout(msg)
        if timeout is None or len(fds) != 3:
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
    """In the prison (NETOPSAI_SANDBOX_SWEEP_UID set): kill every process of the run's user left
    in this PID namespace — a fork that called setsid() escaped the job's group, not this."""
    uid = os.environ.get(SWEEP_UID)
    if not uid:
        return
    for _ in range(100):
        left = [int(p) for p in os.listdir("/proc") if p.isdigit() and _owner(p) == int(uid)]
        if not left:
            return
        for p in left:
            with suppress(OSError):
                os.kill(p, signal.SIGKILL)
        time.sleep(0.005)
    os._exit(1)  # something outran the sweep: end the worker, and its namespace with it


def _owner(pid: str) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def main(fd: int) -> None:
    child = load_child()
    for name in child.PRELOAD:
        __import__(name)
    ctl = socket.socket(fileno=fd)
    with suppress(BrokenPipeError, ConnectionResetError):
        serve(child, ctl)


if __name__ == "__main__":
    main(int(sys.argv[1]))
