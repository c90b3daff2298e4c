"""Kernel-enforced limits for one analysis run: a control group of its own.

rlimits are per process and count only what a process maps (RLIMIT_AS): memory held in a
memfd, in SysV shared memory or in tmpfs pages escapes them, and a fork fan-out is checked only
against the run user's process count. A control group counts every page its processes are
charged for (anonymous, shmem, tmpfs) and every task, so `memory`, `pids` and `cpu` limits hold
whatever the code does.

Both layouts are handled: the unified hierarchy (cgroup v2: one directory, memory.max, pids.max,
cpu.max) and the split one (v1: a directory in each of the memory, pids and cpu hierarchies).
Creating groups needs root; where groups cannot be made the run goes without this layer and
says so in its isolation list.

Joining happens from inside: the parent opens each group's `cgroup.procs` and hands the
descriptors to the run, whose first act (before any of the code runs, before it forks) is to
write "0" — "this process" — to each. That works from inside the prison, whose PID numbers mean
nothing outside, and the kernel checks the opener's rights, not the unprivileged writer's.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpu")
GROUP = "netopsai-sandbox"
CPU_PERIOD_US = 100_000


@dataclass(frozen=True)
class Limits:
    memory_bytes: int
    pids: int
    cpu_cores: float


@dataclass
class RunGroup:
    """The directories of one run's group (one for v2, one per controller for v1)."""

    dirs: list[Path]
    fds: list[int] = field(default_factory=list)

    def open(self) -> list[int]:
        """Descriptors of each `cgroup.procs`, for the run to join by writing "0"."""
        self.fds = [os.open(d / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for d in self.dirs]
        return self.fds

    def close(self) -> None:
        for fd in self.fds:
            with suppress(OSError):
                os.close(fd)
        self.fds = []

    def hit_memory_limit(self) -> bool:
        """Whether the kernel's OOM killer acted in the group (v2 memory.events, v1
        memory.oom_control; an older v1 kernel: whether usage ever hit the limit)."""
        for d in self.dirs:
            for name in ("memory.events", "memory.oom_control"):
                with suppress(OSError, ValueError):
                    fields = dict(line.split()[:2] for line in (d / name).read_text().splitlines())
                    if "oom_kill" in fields:
                        return int(fields["oom_kill"]) > 0
            with suppress(OSError, ValueError):
                return int((d / "memory.failcnt").read_text()) > 0
        return False

    def destroy(self) -> None:
        """Kill whatever is left in the group, then remove it."""
        self.close()
        for d in self.dirs:
            kill = d / "cgroup.kill"
            if kill.exists():
                with suppress(OSError):
                    kill.write_text("1")
        deadline = time.monotonic() + 5
        for d in self.dirs:
            while time.monotonic() < deadline:
                pids = _pids(d)
                if not pids:
                    break
                for pid in pids:
                    with suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                time.sleep(0.01)
        for d in self.dirs:
            for _ in range(100):  # a just-killed task leaves the group a moment after SIGKILL
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _pids(d: Path) -> list[int]:
    try:
        return [int(p) for p in (d / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def create(limits: Limits) -> RunGroup | None:
    """A new group with these limits, or None where groups cannot be made here."""
    parents = _parents()
    if not parents:
        return None
    name = f"run-{secrets.token_hex(6)}"
    dirs: list[Path] = []
    try:
        for parent in parents:
            d = parent / name
            d.mkdir(mode=0o700)
            dirs.append(d)
        _limit(dirs, limits)
    except OSError:
        RunGroup(dirs).destroy()
        return None
    return RunGroup(dirs)


def _limit(dirs: list[Path], limits: Limits) -> None:
    quota = max(1000, int(limits.cpu_cores * CPU_PERIOD_US))
    for d in dirs:
        if (d / "memory.max").exists():  # v2
            _write(d, "memory.max", limits.memory_bytes)
            _write(d, "memory.swap.max", 0, optional=True)
            _write(d, "pids.max", limits.pids)
            _write(d, "cpu.max", f"{quota} {CPU_PERIOD_US}", optional=True)
        elif (d / "memory.limit_in_bytes").exists():
            _write(d, "memory.limit_in_bytes", limits.memory_bytes)
            # memory plus swap: without it pages pushed to swap would not count
            _write(d, "memory.memsw.limit_in_bytes", limits.memory_bytes, optional=True)
        elif (d / "pids.max").exists():
            _write(d, "pids.max", limits.pids)
        elif (d / "cpu.cfs_quota_us").exists():
            _write(d, "cpu.cfs_period_us", CPU_PERIOD_US)
            _write(d, "cpu.cfs_quota_us", quota)


def _write(d: Path, name: str, value: object, optional: bool = False) -> None:
    try:
        (d / name).write_text(str(value))
    except OSError:
        if not optional:
            raise


@cache
def _parents() -> tuple[Path, ...]:
    """Where this process may make run groups: one folder (v2) or one per controller (v1),
    each made once; empty when any is missing (no partial limits)."""
    if os.geteuid() != 0:
        return ()
    mounts = _mounts()
    if "" in mounts and {"memory", "pids"} <= set(_controllers(mounts[""])):
        made = _v2_parent(mounts[""])
        return (made,) if made else ()
    found = []
    for c in V1_CONTROLLERS:
        if c not in mounts:
            return ()
        made = _made(mounts[c] / GROUP)
        if made is None:
            return ()
        found.append(made)
    return tuple(found)


def _v2_parent(root: Path) -> Path | None:
    """v2 lets a group hand controllers to its children only when it holds no process itself:
    the root group (exempt) gets our parent, which enables them for the runs below it."""
    try:
        wanted = [c for c in ("memory", "pids", "cpu") if c in _controllers(root)]
        (root / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
        parent = _made(root / GROUP)
        if parent is None:
            return None
        (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
        return parent
    except OSError:
        return None


def _made(d: Path) -> Path | None:
    try:
        d.mkdir(mode=0o755, exist_ok=True)
        st = d.lstat()
    except OSError:
        return None
    return d if st.st_uid == 0 and not d.is_symlink() else None


def _controllers(root: Path) -> list[str]:
    try:
        return (root / "cgroup.controllers").read_text().split()
    except OSError:
        return []


def _mounts() -> dict[str, Path]:
    """Controller -> its hierarchy's mount point ("" for the unified hierarchy)."""
    found: dict[str, Path] = {}
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        head, _, tail = line.partition(" - ")
        fstype, _, opts = (tail.split() + ["", "", ""])[:3]
        point = Path(head.split()[4])
        if fstype == "cgroup2":
            found.setdefault("", point)
        elif fstype == "cgroup":
            for c in opts.split(","):
                if c in V1_CONTROLLERS:
                    found.setdefault(c, point)
    return found
