"""Stopping a peer process a test started: politely, then for sure."""

from __future__ import annotations

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
