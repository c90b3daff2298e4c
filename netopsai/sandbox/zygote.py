"""The warm sandbox worker: `python -I zygote.py FD`, started by netopsai.sandbox.worker.

It pays the sandbox's fixed cost once: it imports child.py's PRELOAD (numpy, pandas ...) inside
the network namespace it was started in. Each run is then a fork: the job gets its own session,
the run's dir as its cwd and the parent's files as stdout/stderr, and from there follows
exactly the cold child's steps (child.run: rlimits, inputs, the drop to the unprivileged user,
the audit hook, the code, the result file). The worker itself never runs analysis code and
never loads inputs, so no run sees another's data; it keeps the user it was started as, so a
job (unprivileged by then) can neither signal it nor read its memory.

Protocol on the SOCK_SEQPACKET socket FD (one message each): the worker sends `ready`; the
parent sends `run` with three descriptors (the run's dir, stdout file, stderr file); the worker
answers {"pid": N} at the fork and {"status": S} (a waitpid status) when the job is reaped. An
empty read means the parent is gone: the worker exits. Standard library only, executed by path.
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
from contextlib import suppress
from types import ModuleType


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
        os.environ.update(HOME=spec["root"], TMPDIR=spec["root"])  # as the cold path's env
        tempfile.tempdir = None  # forget a default the worker may have chosen
        child.run(spec)
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(0)


def serve(child: ModuleType, ctl: socket.socket) -> None:
    ctl.send(b"ready")
    while True:
        msg, fds, _, _ = socket.recv_fds(ctl, 64, 3)
        if not msg:
            return
        if msg != b"run" or len(fds) != 3:
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
        status = reap(pid, ctl)
        if status is None:
            return
        ctl.send(json.dumps({"status": status}).encode())


def reap(pid: int, ctl: socket.socket) -> int | None:
    """The job's waitpid status; None when the parent went away meanwhile (the job is killed:
    a worker and its job never outlive the copilot that started them)."""
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd, ctl.fileno()], [], [])
    finally:
        os.close(pidfd)
    gone = pidfd not in ready
    if gone:
        with suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    with suppress(OSError):
        os.killpg(pid, signal.SIGKILL)  # anything the job forked that is still running
    return None if gone else status


def main(fd: int) -> None:
    child = load_child()
    for name in child.PRELOAD:
        __import__(name)
    ctl = socket.socket(fileno=fd)
    with suppress(BrokenPipeError, ConnectionResetError):
        serve(child, ctl)


if __name__ == "__main__":
    main(int(sys.argv[1]))
