"""What a run came to: the child's result and the markers it left, with what the parent saw
(exit code, time-out, the control group's OOM kill), as one SandboxResult."""

from __future__ import annotations

import json
import signal
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import BaseModel, Field

from netopsai.sandbox.child import MARK

if TYPE_CHECKING:
    from netopsai.sandbox import SandboxSettings

MAX_COLUMNS = 200  # of a result table; more is a run playing games, not an analysis
Violation = Literal["network", "filesystem", "process", "timeout", "memory", "cpu"]
VIOLATIONS: tuple[str, ...] = get_args(Violation)


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


def text(data: bytes, limit: int) -> str:
    text = data.decode("utf-8", "replace")
    return text[:limit] + ("\n[... output truncated]" if len(text) > limit else "")


def collect(raw: bytes, stdout: str, stderr: str, rc: int | None, timed_out: bool,
             s: SandboxSettings, oom: bool = False) -> SandboxResult:
    """The child's result and markers, plus what the parent saw, as one SandboxResult."""
    marks = [line.split(" ", 2) for line in stderr.splitlines() if line.startswith(MARK + " ")]
    res, refused = _result(raw, s)
    violation, error = res.get("violation"), res.get("error") or refused
    if marks and marks[0][1] in VIOLATIONS:
        violation = marks[0][1]
        error = marks[0][2] if len(marks[0]) > 2 else violation
    elif timed_out:
        violation, error = "timeout", f"killed after {s.timeout_s:g} s of wall-clock time"
    elif oom and not res:
        violation = "memory"
        error = f"killed at the memory limit ({s.memory_mb} MB, shared memory and files included)"
    elif not res and rc in (-signal.SIGKILL, -signal.SIGXCPU):
        violation, error = "cpu", f"killed at the CPU limit ({s.cpu_seconds} s)"
    elif not res and error is None:
        last = [ln for ln in stderr.splitlines() if ln.strip()][-1:] or [f"exit code {rc}"]
        error = f"the sandbox exited without a result: {last[0][:300]}"
    if violation not in VIOLATIONS:
        violation = None
    if not (res.get("ok") and violation is None and error is None):  # no data from a failed run
        return SandboxResult(ok=False, stdout=stdout, error=error or "failed", violation=violation)
    rows: list[Any] = res["rows"] if isinstance(res.get("rows"), list) else []
    columns = [str(c) for c in (res.get("columns") or [])][:MAX_COLUMNS]
    kept = [{k: v for k, v in list(r.items())[:MAX_COLUMNS]} for r in rows[:s.max_rows]
            if isinstance(r, dict)]
    return SandboxResult(ok=True, columns=columns, rows=kept, value=res.get("value"),
                         truncated=bool(res.get("truncated")) or len(rows) > s.max_rows,
                         stdout=stdout)


def _result(raw: bytes, s: SandboxSettings) -> tuple[dict[str, Any], str | None]:
    """The result file as the run wrote it — untrusted: the code holds its descriptor and may
    have written anything there. Sized before it is parsed; too big or malformed is refused."""
    if not raw:
        return {}, None
    if len(raw) > s.max_result_kb << 10:
        return {}, f"the result is larger than {s.max_result_kb} KB: not read"
    try:
        loaded = json.loads(raw)
    except (ValueError, RecursionError):
        return {}, "the result is not readable JSON"
    return (loaded, None) if isinstance(loaded, dict) else ({}, "the result is not readable JSON")
