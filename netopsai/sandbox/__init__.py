"""Run a piece of pandas code in a separate, contained `python -I` process.

Inputs are JSON files in a fresh temp dir (the child's cwd); child.py loads them into
DataFrames named after their evidence ids (E1, E2 ...), runs the code and writes `result` back
as JSON. Containment, in layers, each reported as a violation rather than raised:
- rlimits: CPU seconds (SIGXCPU -> "cpu"), address space (MemoryError -> "memory"), file size,
  processes (as root the child drops to an unprivileged user first: root ignores RLIMIT_NPROC);
- its own network namespace when root (`unshare --net`: only a downed loopback);
- an audit hook refusing sockets, process creation and writes outside the temp dir; it prints a
  marker line on stderr before raising, so a violation the code swallows is still reported;
- a wall-clock timeout that kills the whole process group ("timeout");
- as root, the prison (prison.py, bubblewrap): the run's own PID, mount, IPC, UTS and network
  namespaces, a read-only view of the interpreter and its libraries, its run dir the only
  writable path; nothing it starts outlives it. This layer holds with the others switched off.

Warm runs: the fixed cost (a fresh interpreter importing pandas, ~0.7 s) is paid once by a
worker (worker.py, zygote.py) that already sits in its own network namespace; each run is a
fork of it that takes the cold child's steps from there (rlimits, the drop to the unprivileged
user, the audit hook) before the code runs. When the worker is not ready, busy or broken, the
run takes the cold path above.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from contextlib import suppress
from functools import cache
from pathlib import Path
from typing import IO, Any, Literal, get_args

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from netopsai.sandbox import prison, worker, zygote
from netopsai.sandbox.child import MARK

BASE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
Violation = Literal["network", "filesystem", "process", "timeout", "memory", "cpu"]
VIOLATIONS: tuple[str, ...] = get_args(Violation)
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
    prison: bool = Field(default=True, description="Each run in its own namespaces (bubblewrap, "
                         "when root): pid, mount, ipc, uts; the run's dir its only writable path")
    netns: bool = Field(default=True, description="Own network namespace when running as root")
    audit_hook: bool = Field(default=True, description="Refuse sockets/processes/outside writes")
    seccomp: bool = Field(default=True, description="A kernel syscall filter (libseccomp): no "
                          "ptrace, mounts, new namespaces, modules, BPF, io_uring, network sockets")
    run_as: str | None = Field(default="nobody", description="User to drop to when root")
    tmp_root: str | None = Field(default=None, description="Parent of the temp dirs")
    warm: bool = Field(default=True, description="Fork runs from a pre-started worker that has "
                       "pandas loaded (same layers); cold start when it is busy or not ready")


class SandboxResult(BaseModel):
    ok: bool
    columns: list[str] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    value: Any = None  # a scalar or str result (rows/columns stay empty)
    truncated: bool = False  # more result rows than max_rows
    stdout: str = ""
    error: str | None = None
    violation: Violation | None = None
    elapsed_ms: float = 0.0
    isolation: list[str] = Field(default_factory=list)  # the layers this run had
    warm: bool = False  # forked from the warm worker rather than a fresh interpreter


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
    tmp: Path | None = None
    try:
        tmp = Path(tempfile.mkdtemp(prefix="netopsai-sbx-", dir=runs_root(s)))
        res = _run(code, dict(inputs or {}), dict(params or {}), s, tmp)
    except Exception as exc:  # the caller gets a result, never a traceback
        res = SandboxResult(ok=False, error=f"sandbox failed to run: {type(exc).__name__}: {exc}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    res.elapsed_ms = round((time.monotonic() - start) * 1000, 1)
    return res


def runs_root(s: SandboxSettings) -> Path:
    """The folder the run dirs are made in: the settings' own, else one of ours under the system
    temp dir (the warm worker's prison binds it, so it must hold nothing but runs)."""
    root = Path(s.tmp_root) if s.tmp_root else Path(tempfile.gettempdir()) / "netopsai-sandbox"
    root.mkdir(parents=True, exist_ok=True, mode=0o711)  # entered by path, never listed
    return root.resolve()


def _user(s: SandboxSettings) -> tuple[int, int] | None:
    if os.geteuid() != 0 or not s.run_as:
        return None
    try:
        pw = pwd.getpwnam(s.run_as)
    except KeyError:
        return None
    return pw.pw_uid, pw.pw_gid


def prestart(settings: SandboxSettings | None = None, wait: bool = False) -> bool:
    """Start the warm worker for these settings now rather than at the first run (long-lived
    front ends); with wait, until it is ready. Whether it is ready."""
    s = settings or SandboxSettings()
    return s.warm and worker.prestart(*worker_args(s), wait=wait)


def worker_args(s: SandboxSettings) -> tuple[list[str], dict[str, str]]:
    """What a worker is started with: its prison (or namespace) prefix and base environment
    (the user drop, the limits and the hook are per run, as on the cold path)."""
    env = {**BASE_ENV, "HOME": "/", "TMPDIR": "/"}
    user = _user(s)
    if s.prison and prison.available():
        runs = runs_root(s)
        env[zygote.RUNS] = str(runs)  # each job keeps only its own dir of it
        if user:  # between runs the worker kills whatever the run's user left behind
            env[zygote.SWEEP_UID] = str(user[0])
        return prison.argv(runs, network=not s.netns, chdir=False), env
    return ([UNSHARE, "--net", "--"] if s.netns and netns_available() else []), env


def _prepare(code: str, inputs: dict[str, Mapping[str, Any]], params: dict[str, Any],
             s: SandboxSettings, tmp: Path) -> tuple[list[str], list[str]]:
    """Write the run's files; return the command and the isolation layers it will have."""
    bad = [k for k in inputs if not k.isidentifier()]
    if bad:
        raise ValueError(f"input names must be identifiers, got {bad}")
    for name, table in inputs.items():
        (tmp / f"{name}.json").write_text(json.dumps(
            {"columns": list(table.get("columns") or []), "rows": list(table.get("rows") or []),
             "meta": dict(table.get("meta") or {})}, default=str))
    user = _user(s)
    spec = {"root": str(tmp.resolve()), "inputs": list(inputs), "params": params,
            "cpu_seconds": s.cpu_seconds, "memory_mb": s.memory_mb, "max_procs": s.max_procs,
            "max_file_mb": s.max_file_mb, "max_rows": s.max_rows, "hook": s.audit_hook,
            "seccomp": s.seccomp, "uid": user[0] if user else None, "gid": user[1] if user else None}
    (tmp / "spec.json").write_text(json.dumps(spec, default=str))
    (tmp / "analysis.py").write_text(code)
    layers = ["rlimits"] + (["audit-hook"] if s.audit_hook else []) + (["seccomp"] if s.seccomp else [])
    cmd = [sys.executable, "-I", str(CHILD), str(tmp / "spec.json")]
    if s.prison and prison.available():
        cmd = [*prison.argv(tmp, network=not s.netns), *cmd]
        layers += ["prison", "netns"] if s.netns else ["prison"]
    elif s.netns and netns_available():
        cmd = [UNSHARE, "--net", "--", *cmd]
        layers.append("netns")
    if user:
        os.chown(tmp, *user)  # the unprivileged child may write only here (and world-writable dirs)
        layers.append(f"user:{s.run_as}")
    return cmd, layers


def _run(code: str, inputs: dict[str, Mapping[str, Any]], params: dict[str, Any],
         s: SandboxSettings, tmp: Path) -> SandboxResult:
    cmd, layers = _prepare(code, inputs, params, s, tmp)
    out_path, err_path = tmp.parent / f"{tmp.name}.out", tmp.parent / f"{tmp.name}.err"
    w = worker.acquire(*worker_args(s)) if s.warm else None
    try:
        # files, not pipes: output is bounded by RLIMIT_FSIZE and nothing can deadlock
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            if w is not None:
                rc, timed_out = _run_warm(w, tmp, out, err, s.timeout_s)
            else:
                env = {**BASE_ENV, "HOME": str(tmp), "TMPDIR": str(tmp)}
                proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err, start_new_session=True,
                                        close_fds=True)
                timed_out = _wait(proc, s.timeout_s)
                rc = proc.returncode
        stdout = _head(out_path, s.max_stdout)
        stderr = _head(err_path, 64_000)
    finally:
        for p in (out_path, err_path):
            p.unlink(missing_ok=True)
    res = _collect(tmp / "result.json", stdout, stderr, rc, timed_out, s)
    res.isolation, res.warm = layers, w is not None
    return res


def _run_warm(w: worker.Worker, tmp: Path, out: IO[bytes], err: IO[bytes],
              timeout: float) -> tuple[int | None, bool]:
    """One run forked from the warm worker. A worker that fails mid-run is killed (its job with
    it) and the run reported as failed, never silently re-run."""
    try:
        return w.run(tmp, out.fileno(), err.fileno(), timeout)
    except (OSError, ValueError, KeyError) as exc:
        worker.fail(w)
        err.write(f"the sandbox worker failed: {type(exc).__name__}: {exc}\n".encode())
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


def _head(path: Path, limit: int) -> str:
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    text = data.decode("utf-8", "replace")
    return text[:limit] + ("\n[... output truncated]" if len(text) > limit else "")


def _collect(result_path: Path, stdout: str, stderr: str, rc: int | None, timed_out: bool,
             s: SandboxSettings) -> SandboxResult:
    """The child's result file and markers, plus what the parent saw, as one SandboxResult."""
    marks = [line.split(" ", 2) for line in stderr.splitlines() if line.startswith(MARK + " ")]
    res: dict[str, Any] = {}
    if result_path.is_file() and result_path.stat().st_size <= (s.max_file_mb << 20):
        try:
            res = json.loads(result_path.read_text())
        except ValueError:
            res = {}
    violation, error = res.get("violation"), res.get("error")
    if marks and marks[0][1] in VIOLATIONS:
        violation = marks[0][1]
        error = marks[0][2] if len(marks[0]) > 2 else violation
    elif timed_out:
        violation, error = "timeout", f"killed after {s.timeout_s:g} s of wall-clock time"
    elif not res and rc in (-signal.SIGKILL, -signal.SIGXCPU):
        violation, error = "cpu", f"killed at the CPU limit ({s.cpu_seconds} s)"
    elif not res:
        last = [ln for ln in stderr.splitlines() if ln.strip()][-1:] or [f"exit code {rc}"]
        error = f"the sandbox exited without a result: {last[0][:300]}"
    if violation not in VIOLATIONS:
        violation = None
    if not (res.get("ok") and violation is None and error is None):  # no data from a failed run
        return SandboxResult(ok=False, stdout=stdout, error=error or "failed", violation=violation)
    return SandboxResult(ok=True, columns=res.get("columns") or [], rows=res.get("rows") or [],
                         value=res.get("value"), truncated=bool(res.get("truncated")), stdout=stdout)
