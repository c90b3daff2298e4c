"""Shared by the sandbox and coder tests: settings under the test's own dir, the two run paths (a
fresh interpreter or a fork of the warm worker), a loopback listener nothing may reach, and a
finder for processes a sandbox left behind. Import `path_fixture`, `listener_fixture` and
`stop_workers` to register `path`, `listener` and the worker shutdown in a module."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from netopsai.copilot.evidence import Evidence
from netopsai.sandbox import SandboxResult, SandboxSettings, netns_available, prestart, run_code, worker

ROOT = os.geteuid() == 0
NEEDS_ROOT = pytest.mark.skipif(not ROOT, reason="dropping to an unprivileged user needs root")
NEEDS_NETNS = pytest.mark.skipif(not netns_available(),
                                 reason="`unshare --net` needs root and a kernel that allows it")
FLAPS = Evidence(id="E1", tool="telemetry", args={"metric": "flaps"},
                 columns=["device", "interface", "flaps"],
                 rows=[{"device": "dc1-spine-04", "interface": "Ethernet17", "flaps": 5},
                       {"device": "dc1-leaf-21", "interface": "Ethernet52", "flaps": 2},
                       {"device": "dc1-spine-04", "interface": "Ethernet18", "flaps": 1}])


def table(e: Evidence) -> dict[str, dict[str, Any]]:
    return {e.id: {"columns": e.columns, "rows": e.rows, "meta": {"tool": e.tool}}}


def settings(tmp: Path, **kw: Any) -> SandboxSettings:
    """Temp dirs under the test's own dir, so leftover processes can be found by path. Cold runs
    unless the test asks for the warm worker (the `path` fixture)."""
    return SandboxSettings(tmp_root=str(tmp), **{"warm": False, **kw})


def survivors(tmp: Path) -> list[int]:
    """Processes still running from this test's sandboxes: their command line names tmp (cold
    runs) or their working directory is under it (runs forked from the warm worker). The warm
    worker itself (zygote.py, in / , its prison binding the runs folder) is not one. A process
    SIGKILLed a moment ago keeps its cwd until it has finished exiting: allow it a few seconds."""
    deadline = time.monotonic() + 5
    while True:
        found = []
        for p in psutil.process_iter(["pid", "cmdline", "cwd", "status"]):
            if p.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            cmdline, cwd = p.info["cmdline"] or [], str(p.info["cwd"] or "")
            worker = any(part.endswith("zygote.py") for part in cmdline) and not cwd.startswith(str(tmp))
            if (any(str(tmp) in part for part in cmdline) and not worker) or cwd.startswith(str(tmp)):
                found.append(p.info["pid"])
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.fixture(scope="module", autouse=True)
def stop_workers() -> Iterator[None]:
    yield
    worker.shutdown()


@pytest.fixture(params=["cold", "warm"], name="path")
def path_fixture(request: pytest.FixtureRequest) -> Callable[..., SandboxSettings]:
    """Settings for a run by either path: a fresh interpreter, or a fork of the warm worker
    (started and awaited here, so the run cannot fall back to cold unnoticed)."""
    warm = request.param == "warm"

    def make(tmp: Path, **kw: Any) -> SandboxSettings:
        s = settings(tmp, warm=warm, **kw)
        assert not warm or prestart(s, wait=True), "the warm worker did not start"
        return s
    return make


def run_by(path: Callable[..., SandboxSettings], code: str, tmp: Path,
           inputs: dict[str, dict[str, Any]] | None = None, **kw: Any) -> SandboxResult:
    s = path(tmp, **kw)
    res = run_code(code, inputs, settings=s)
    assert res.warm == s.warm, "ran by the other path"
    return res


@pytest.fixture(name="listener")
def listener_fixture() -> Iterator[socket.socket]:
    """A port on loopback that the sandboxed code tries to reach; nothing must arrive."""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(8)
        srv.setblocking(False)
        yield srv


def connects(srv: socket.socket) -> bool:
    """Whether a connection reached the listener (the sandbox has exited by now)."""
    try:
        srv.accept()[0].close()
    except BlockingIOError:
        return False
    return True


def warm(tmp: Path, **kw: Any) -> SandboxSettings:
    s = settings(tmp, warm=True, **kw)
    assert prestart(s, wait=True), "the warm worker did not start"
    return s
