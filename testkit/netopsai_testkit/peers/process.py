"""Stopping a peer process a test started: politely, then for sure."""

from __future__ import annotations

import socket
import subprocess
from typing import Any


def stop(proc: subprocess.Popen[Any], grace_s: float = 10) -> None:
    """SIGTERM, and SIGKILL if it is still there after `grace_s`; reaped either way."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    """A port on loopback nobody uses (now): TCP by default, `socket.SOCK_DGRAM` for UDP."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[Any], log: Any, timeout: float = 90) -> None:
    """Until something accepts on 127.0.0.1:port; fails the test with the log's tail when the
    process exits first or the time runs out."""
    import time

    import pytest

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"nothing listens on port {port} after {timeout:.0f} s:\n{log.read_text()[-3000:]}")
