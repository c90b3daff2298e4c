"""The parent's side of the warm sandbox worker (zygote.py): start it, hand it runs, time them.

One worker per namespace choice (own network namespace or not), started on first use in the background
and shared by the whole process; a run uses it only when it is ready and idle, otherwise the
cold path runs instead (netopsai.sandbox._run), so nothing ever waits for the worker. A worker
that misbehaves (no answer, a broken socket) is killed and replaced on a later run.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import suppress
from pathlib import Path

ZYGOTE = Path(__file__).with_name("zygote.py")
START_TIMEOUT_S = 60.0  # pandas imported on a loaded two-core box
RETRY_AFTER_S = 30.0  # after a worker failed, before starting another
REPLY_TIMEOUT_S = 10.0  # for the worker's own bookkeeping replies


class Worker:
    def __init__(self, prefix: list[str], env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.ctl = ours
        cmd = [*prefix, sys.executable, "-I", str(ZYGOTE), str(theirs.fileno())]
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=[theirs.fileno()], start_new_session=True, cwd="/")
        theirs.close()
        self.started = time.monotonic()
        self.owner = os.getpid()  # a forked copy of this process must not use or stop it
        self.ready = False
        self.lock = threading.Lock()

    def poll_ready(self) -> bool:
        """Whether the worker said `ready`, without waiting."""
        if not self.ready and self.proc.poll() is None:
            self.ctl.settimeout(0)
            with suppress(BlockingIOError, TimeoutError):
                self.ready = self.ctl.recv(64) == b"ready"
        return self.ready and self.proc.poll() is None

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> bool:
        end = time.monotonic() + timeout
        while not self.poll_ready() and self.proc.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        return self.poll_ready()

    def run(self, fds: list[int], timeout: float) -> tuple[int, bool]:
        """One run (the caller holds the lock) over its descriptors (run dir, stdout, stderr,
        result, control groups): (its exit code as Popen reports it, timed out). Raises
        OSError/ValueError when the worker fails; the caller then kills it."""
        socket.send_fds(self.ctl, [f"run {timeout:.3f}".encode()], fds)
        self._reply(REPLY_TIMEOUT_S)  # {"pid": N}: the worker's own numbering in the prison
        # the worker kills the job at the limit; no reply by then plus a margin: it is broken
        reply = self._reply(timeout + REPLY_TIMEOUT_S)
        return os.waitstatus_to_exitcode(int(reply["status"])), bool(reply.get("timed_out"))

    def _reply(self, timeout: float) -> dict[str, int]:
        self.ctl.settimeout(timeout)
        data = self.ctl.recv(4096)
        if not data:
            raise OSError("the sandbox worker went away")
        reply = json.loads(data)
        if not isinstance(reply, dict) or "error" in reply:
            raise ValueError(f"the sandbox worker refused the run: {reply}")
        return reply

    def stop(self) -> None:
        with suppress(OSError):
            self.ctl.close()  # the worker reads EOF, kills any job and exits
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


_WORKERS: dict[tuple[str, ...], Worker] = {}
_FAILED: dict[tuple[str, ...], float] = {}
_GUARD = threading.Lock()


def acquire(prefix: list[str], env: dict[str, str]) -> Worker | None:
    """The ready, idle worker for this isolation (its lock held: release it after the run), or
    None; starts one in the background when there is none yet."""
    key = _key(prefix, env)
    with _GUARD:
        _forget_inherited()
        w = _WORKERS.get(key)
        if w is not None and w.proc.poll() is not None:  # died: replace it (later)
            _discard(key, w)
            w = None
        if w is None:
            if time.monotonic() - _FAILED.get(key, -RETRY_AFTER_S) < RETRY_AFTER_S:
                return None
            try:
                w = _WORKERS[key] = Worker(prefix, env)
            except OSError:
                _FAILED[key] = time.monotonic()
                return None
        if not w.lock.acquire(blocking=False):
            return None
    if w.poll_ready():
        return w
    w.lock.release()
    if time.monotonic() - w.started > START_TIMEOUT_S:
        fail(w)
    return None


def prestart(prefix: list[str], env: dict[str, str], wait: bool) -> bool:
    """Start the worker now (a long-lived front end, a test); with wait, until it is ready."""
    w = acquire(prefix, env)
    if w is not None:
        w.lock.release()
        return True
    w = _WORKERS.get(_key(prefix, env))
    return bool(w and wait and w.wait_ready())


def _key(prefix: list[str], env: dict[str, str]) -> tuple[str, ...]:
    """One worker per command line and environment: settings that differ only in the run's
    user (or scratch size) must not share a worker started for another."""
    return (*prefix, *sorted(f"{k}={v}" for k, v in env.items()))


def fail(w: Worker) -> None:
    """Kill a worker that misbehaved; the next runs go cold until the retry delay passes."""
    with _GUARD:
        for key, known in list(_WORKERS.items()):
            if known is w:
                _discard(key, w)
                _FAILED[key] = time.monotonic()


def _discard(key: tuple[str, ...], w: Worker) -> None:
    _WORKERS.pop(key, None)
    w.stop()


def _forget_inherited() -> None:
    """After a fork, the workers in the registry are the parent's: drop them untouched."""
    for key, w in list(_WORKERS.items()):
        if w.owner != os.getpid():
            del _WORKERS[key]


def shutdown() -> None:
    """Stop every worker of this process (tests; also at exit)."""
    with _GUARD:
        _forget_inherited()
        for key, w in list(_WORKERS.items()):
            _discard(key, w)
        _FAILED.clear()


atexit.register(shutdown)
