"""Run a piece of pandas code in a separate, contained `python -I` process.

The run's files (its inputs as JSON, the spec, the code) are written to a run dir of its own
below a runs folder only the running user can enter (rundir.py: checked with lstat, every file
made and read through directory descriptors); child.py loads them into DataFrames named after
their evidence ids (E1, E2 ...), runs the code and writes `result` back as JSON into a nameless
file the parent holds. Containment, in layers, each reported as a violation rather than raised:
- rlimits: CPU seconds (SIGXCPU -> "cpu"), address space (MemoryError -> "memory"), file size,
  open files, processes (as root the run is an unprivileged user: root ignores RLIMIT_NPROC);
- a control group per run (cgroup.py, as root): memory counting shared memory and tmpfs pages
  (an OOM kill -> "memory"), processes, CPU — limits no code can step around;
- its own network namespace when root (`unshare --net`: only a downed loopback);
- an audit hook refusing sockets, process creation and writes outside its dir; it prints a
  marker line on stderr before raising, so a violation the code swallows is still reported;
- a seccomp filter (the kernel's: no ptrace, mounts, namespaces, network sockets, memfd, SysV);
- a wall-clock timeout that kills the whole process group ("timeout");
- as root, the prison (prison.py, bubblewrap): the run's own PID, mount, IPC, UTS and network
  namespaces, a read-only view of the interpreter and its libraries, size-capped tmpfs scratch
  as its only writable place, the unprivileged user with no capability from its first
  instruction; nothing it starts outlives it. This layer holds with the others switched off.
As root, code never runs without an unprivileged user to run as (`run_as`): it is refused.

Warm runs: the fixed cost (a fresh interpreter importing pandas, ~0.7 s) is paid once by a
worker (worker.py, zygote.py) that already sits in its prison; each run is a fork of it that
takes namespaces of its own, becomes the unprivileged user and takes the cold child's steps from
there. When the worker is not ready, busy or broken, the run takes the cold path above.
"""

from __future__ import annotations

import json
import os
import pwd
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from netopsai.sandbox import cgroup, child, prison, rundir, worker, zygote
from netopsai.sandbox.outcome import VIOLATIONS as VIOLATIONS
from netopsai.sandbox.outcome import SandboxResult as SandboxResult
from netopsai.sandbox.outcome import Violation as Violation
from netopsai.sandbox.outcome import collect, text

BASE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
UNSHARE = "/usr/bin/unshare"
CHILD = Path(__file__).with_name("child.py")


class SandboxSettings(BaseSettings):
    """NETOPSAI_SANDBOX_*: the limits of one analysis run."""

    model_config = SettingsConfigDict(env_prefix="NETOPSAI_SANDBOX_", extra="ignore")

    cpu_seconds: int = Field(default=10, ge=1, description="CPU time, pandas import included")
    timeout_s: float = Field(default=30.0, gt=0, description="Wall clock before the group is killed")
    memory_mb: int = Field(default=1024, ge=256, description="Address space; pandas needs ~170 MB")
    max_procs: int = Field(default=32, ge=1, description="RLIMIT_NPROC of the unprivileged user")
    max_file_mb: int = Field(default=64, ge=1, description="Largest file the code may write")
    max_stdout: int = Field(default=4000, ge=0, description="Characters of stdout kept")
    max_rows: int = Field(default=1000, ge=1, description="Result rows kept")
    max_result_kb: int = Field(default=2048, ge=16, description="Largest result the parent reads "
                               "(the run writes it: a bigger one is refused, never parsed)")
    prison: bool = Field(default=True, description="Each run in its own namespaces (bubblewrap, "
                         "when root): pid, mount, ipc, uts; the run's dir its only writable path")
    netns: bool = Field(default=True, description="Own network namespace when running as root")
    audit_hook: bool = Field(default=True, description="Refuse sockets/processes/outside writes")
    seccomp: bool = Field(default=True, description="A kernel syscall filter (libseccomp): no "
                          "ptrace, mounts, new namespaces, modules, BPF, io_uring, network sockets")
    run_as: str | None = Field(default="nobody", description="User to drop to when root")
    tmp_root: str | None = Field(default=None, description="Parent of the run dirs: a directory "
                                 "of the running user's, mode 0700 (else runs are refused); "
                                 "default a fresh one per process under the system temp dir")
    max_disk_mb: int = Field(default=128, ge=8, description="Size of the run's scratch dir and "
                             "/tmp in the prison (tmpfs; counted in its memory too)")
    max_open_files: int = Field(default=256, ge=32, description="RLIMIT_NOFILE")
    cpu_cores: float = Field(default=1.0, gt=0, description="CPU share of the run's control "
                             "group (1.0: one core)")
    cgroup: bool = Field(default=True, description="Each run in a control group of its own "
                         "(root): memory incl. shared memory and tmpfs, processes, CPU")
    warm: bool = Field(default=True, description="Fork runs from a pre-started worker that has "
                       "pandas loaded (same layers); cold start when it is busy or not ready")


@cache
def netns_available() -> bool:
    """Whether `unshare --net` works here (root, and not forbidden by a container)."""
    if os.geteuid() != 0 or not os.access(UNSHARE, os.X_OK):
        return False
    try:
        return subprocess.run([UNSHARE, "--net", "--", "true"], timeout=10,
                              capture_output=True).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def run_code(code: str, inputs: Mapping[str, Mapping[str, Any]] | None = None,
             params: Mapping[str, Any] | None = None,
             settings: SandboxSettings | None = None) -> SandboxResult:
    """Run `code` over `inputs` ({"E1": {"columns", "rows", "meta"}}); never raises."""
    s = settings or SandboxSettings()
    start = time.monotonic()
    try:
        user = _user(s)
        if os.geteuid() == 0 and user is None:
            raise rundir.RunsFolderRefused(
                f"will not run analysis code as root: NETOPSAI_SANDBOX_RUN_AS={s.run_as!r} "
                "names no user on this host")
        with rundir.RunDir(rundir.runs_root(s.tmp_root)) as rd:
            res = _run(code, dict(inputs or {}), dict(params or {}), s, rd, user)
    except rundir.RunsFolderRefused as exc:
        res = SandboxResult(ok=False, error=f"sandbox refused: {exc}")
    except Exception as exc:  # the caller gets a result, never a traceback
        res = SandboxResult(ok=False, error=f"sandbox failed to run: {type(exc).__name__}: {exc}")
    res.elapsed_ms = round((time.monotonic() - start) * 1000, 1)
    return res


def runs_root(s: SandboxSettings) -> Path:
    """The folder the run dirs are made in (rundir.runs_root: ours alone, checked)."""
    return rundir.runs_root(s.tmp_root)


def _user(s: SandboxSettings) -> tuple[int, int] | None:
    if os.geteuid() != 0 or not s.run_as:
        return None
    try:
        pw = pwd.getpwnam(s.run_as)
    except KeyError:
        return None
    return (pw.pw_uid, pw.pw_gid) if pw.pw_uid != 0 else None


def _jailed(s: SandboxSettings, user: tuple[int, int] | None) -> bool:
    return s.prison and prison.available(user)


def prestart(settings: SandboxSettings | None = None, wait: bool = False) -> bool:
    """Start the warm worker for these settings now rather than at the first run (long-lived
    front ends); with wait, until it is ready. Whether it is ready."""
    s = settings or SandboxSettings()
    return s.warm and worker.prestart(*worker_args(s), wait=wait)


def worker_args(s: SandboxSettings) -> tuple[list[str], dict[str, str]]:
    """What a worker is started with: its prison (or namespace) prefix and base environment
    (outside the prison the user drop, the limits and the hook are per run, as on the cold
    path)."""
    env = {**BASE_ENV, "HOME": "/", "TMPDIR": "/"}
    user = _user(s)
    if user and _jailed(s, user):
        runs = runs_root(s).resolve()
        env.update({zygote.RUNS: str(runs), zygote.SWEEP: "1", zygote.RUN_AS: f"{user[0]}:{user[1]}",
                    zygote.SCRATCH_MB: str(s.max_disk_mb)})
        return prison.argv(runs, network=not s.netns, size_mb=s.max_disk_mb, worker=True), env
    return ([UNSHARE, "--net", "--"] if s.netns and netns_available() else []), env


def _prepare(code: str, inputs: dict[str, Mapping[str, Any]], params: dict[str, Any],
             s: SandboxSettings, rd: rundir.RunDir, user: tuple[int, int] | None,
             grouped: bool) -> tuple[list[str], list[str]]:
    """Write the run's files; return the command (less its descriptors) and the isolation
    layers the run will have. In the prison the run is the unprivileged user from its start and
    only reads the run dir; outside it, the child drops to that user itself and writes there."""
    bad = [k for k in inputs if not k.isidentifier()]
    if bad:
        raise ValueError(f"input names must be identifiers, got {bad}")
    for name, table in inputs.items():
        rd.write(f"{name}.json", json.dumps(
            {"columns": list(table.get("columns") or []), "rows": list(table.get("rows") or []),
             "meta": dict(table.get("meta") or {})}, default=str))
    jailed = _jailed(s, user)
    drop = user if not jailed else None
    spec = {"root": str(rd.path), "inputs": list(inputs), "params": params,
            # with a pids group per run, RLIMIT_NPROC (counted over every process of the
            # shared unprivileged user) only backs it up, so one run cannot starve another's
            "cpu_seconds": s.cpu_seconds, "memory_mb": s.memory_mb,
            "max_procs": s.max_procs * (8 if grouped else 1),
            "max_file_mb": s.max_file_mb, "max_rows": s.max_rows, "hook": s.audit_hook,
            "max_open_files": s.max_open_files, "seccomp": s.seccomp,
            "uid": drop[0] if drop else None, "gid": drop[1] if drop else None}
    rd.write("spec.json", json.dumps(spec, default=str))
    rd.write("analysis.py", code)
    layers = ["rlimits"] + (["audit-hook"] if s.audit_hook else []) + (["seccomp"] if s.seccomp else [])
    cmd = [sys.executable, "-I", str(CHILD)]
    if user and jailed:
        cmd = [*prison.argv(rd.path, network=not s.netns, size_mb=s.max_disk_mb),
               *prison.drop(user), *cmd]
        layers += ["prison", "netns"] if s.netns else ["prison"]
    elif s.netns and netns_available():
        cmd = [UNSHARE, "--net", "--", *cmd]
        layers.append("netns")
    if user:
        rd.give(*user, writable=not jailed)
        layers.append(f"user:{s.run_as}")
    return cmd, layers


def _run(code: str, inputs: dict[str, Mapping[str, Any]], params: dict[str, Any],
         s: SandboxSettings, rd: rundir.RunDir, user: tuple[int, int] | None) -> SandboxResult:
    group = cgroup.create(cgroup.Limits(s.memory_mb << 20, s.max_procs, s.cpu_cores)) \
        if s.cgroup else None
    # nameless files, not pipes: output is bounded by RLIMIT_FSIZE and nothing can deadlock
    out, err, result, rules = (rd.nameless(n) for n in ("stdout", "stderr", "result", "seccomp"))
    w = None
    try:
        cmd, layers = _prepare(code, inputs, params, s, rd, user, group is not None)
        fds = [rd.fd, out, err, result, *(group.open() if group else [])]
        layers += ["cgroup"] if group else []
        w = worker.acquire(*worker_args(s)) if s.warm else None
        if w is not None:
            rc, timed_out = _run_warm(w, fds, s.timeout_s)
        else:
            rc, timed_out = _run_cold(cmd, rd, fds, rules, s)
        stdout = text(rundir.read_head(out, s.max_stdout * 4 + 1), s.max_stdout)
        stderr = rundir.read_head(err, 64_000).decode("utf-8", "replace")
        raw = rundir.read_head(result, (s.max_result_kb << 10) + 1)
        res = collect(raw, stdout, stderr, rc, timed_out, s,
                      oom=bool(group and group.hit_memory_limit()))
    finally:
        for fd in (out, err, result, rules):
            os.close(fd)
        if group:
            group.destroy()
    res.isolation, res.warm = layers, w is not None
    return res


def _run_cold(cmd: list[str], rd: rundir.RunDir, fds: list[int], rules: int,
              s: SandboxSettings) -> tuple[int | None, bool]:
    run_dir, out, err, result, *groups = fds
    arg = json.dumps({"in": run_dir, "result": result, "cgroups": groups})
    env = {**BASE_ENV, "HOME": str(rd.path), "TMPDIR": str(rd.path)}
    passed = [run_dir, result, *groups]
    if cmd[0] == prison.BWRAP:  # the prison's own filter, applied whatever the settings say
        child.seccomp_filter(export_to=rules)
        os.lseek(rules, 0, os.SEEK_SET)
        cmd = [cmd[0], "--seccomp", str(rules), *cmd[1:]]
        passed.append(rules)
    # the prison's cwd is its own scratch tmpfs (bwrap --chdir); outside it, the run dir
    proc = subprocess.Popen([*cmd, arg], cwd=rd.path, env=env, stdin=subprocess.DEVNULL,
                            stdout=out, stderr=err, start_new_session=True, close_fds=True,
                            pass_fds=passed)
    timed_out = _wait(proc, s.timeout_s)
    return proc.returncode, timed_out


def _run_warm(w: worker.Worker, fds: list[int], timeout: float) -> tuple[int | None, bool]:
    """One run forked from the warm worker. A worker that fails mid-run is killed (its job with
    it) and the run reported as failed, never silently re-run."""
    try:
        return w.run(fds, timeout)
    except (OSError, ValueError, KeyError) as exc:
        worker.fail(w)
        os.write(fds[2], f"the sandbox worker failed: {type(exc).__name__}: {exc}\n".encode())
        return None, False
    finally:
        w.lock.release()


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the child; on timeout kill its whole process group. Returns whether it timed out."""
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # also any straggler the code managed to start
    proc.wait()
    return timed_out
