"""The sandboxed child: `python -I child.py '{"in": FD, "result": FD, "cgroups": [FD ...]}'`,
run by netopsai.sandbox.run_code (the cold path), or `run()` in a job forked from the warm worker.

Standard library at import time (pandas inside functions), and no project code: this file is
executed by path, not imported, in the child. It reaches its run's files only through the
descriptors it is handed: the run dir (spec, inputs, code: read, never written), a nameless
result file, and the `cgroup.procs` of its control groups, joined first of all. Order matters:
the groups, then limits; imports while the interpreter's files are still readable (outside the
prison, as root, the child then drops to an unprivileged user, and the Python install may sit in
a directory that user cannot read); the audit hook last, just before the code runs. The code
sees its inputs as DataFrames named after their evidence ids; its cwd is its scratch dir.
"""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import signal
import sys
import traceback
from typing import Any

MARK = "@@sandbox-violation@@"
# Imported before the privilege drop; socket so that a connect is refused, not a missing module.
PRELOAD = ["math", "statistics", "collections", "itertools", "functools", "operator", "re",
           "datetime", "json", "ipaddress", "decimal", "fractions", "string", "textwrap", "heapq",
           "bisect", "random", "zoneinfo", "csv", "io", "dataclasses", "difflib", "calendar", "time",
           "socket", "encodings.idna", "ctypes", "ctypes.util", "numpy", "pandas"]
NET_MODULES = {"ssl", "http.client", "urllib.request", "ftplib", "smtplib", "poplib", "imaplib",
               "telnetlib", "socketserver", "xmlrpc.client", "requests", "httpx", "urllib3",
               "aiohttp", "paramiko"}
REFUSED = {"network": "network access", "process": "process creation",
           "filesystem": "writing outside the sandbox dir"}
WRITE = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
FS_EVENTS = {"os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.link",
             "os.symlink", "os.truncate", "os.utime", "os.mkfifo", "os.mknod", "shutil.rmtree"}
PROC_EVENTS = ("os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec", "os.system",
               "os.kill", "os.killpg", "subprocess.", "pty.", "ctypes.", "resource.")
SPEC: dict[str, Any] = {}
FOUND: list[str] = []  # violations the hook saw, even if the code caught the exception
BUSY: list[int] = []
PID = os.getpid()


class SandboxViolation(Exception):
    pass


def report(kind: str, what: str) -> None:
    """A marker line on stderr, written before raising: the parent trusts it even when the code
    swallows the exception or is killed afterwards."""
    FOUND.append(kind)
    if len(FOUND) <= 10:  # a loop of refusals must not fill the stderr file
        os.write(2, f"\n{MARK} {kind} {what}\n".encode())


def on_xcpu(*_: object) -> None:
    report("cpu", f"CPU time limit of {SPEC['cpu_seconds']} s reached")
    os._exit(152)


def set_limits() -> None:
    mb = 1 << 20
    cpu = SPEC["cpu_seconds"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL a second on
    for res, val in ((resource.RLIMIT_AS, SPEC["memory_mb"] * mb),
                     (resource.RLIMIT_FSIZE, SPEC["max_file_mb"] * mb),
                     (resource.RLIMIT_NPROC, SPEC["max_procs"]), (resource.RLIMIT_CORE, 0),
                     (resource.RLIMIT_NOFILE, SPEC.get("max_open_files", 256))):
        resource.setrlimit(res, (val, val))
    signal.signal(signal.SIGXCPU, on_xcpu)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG instead


# Syscalls an analysis never needs, refused by the kernel (seccomp): debugging other processes,
# mounts and namespaces, kernel keys, modules and BPF, io_uring (which bypasses the rest), clocks
DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
          "chroot", "unshare", "setns", "keyctl", "add_key", "request_key", "bpf",
          "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load", "init_module",
          "finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct",
          "io_uring_setup", "io_uring_enter", "io_uring_register", "open_by_handle_at",
          "name_to_handle_at", "syslog", "quotactl", "settimeofday", "clock_settime",
          "adjtimex", "clock_adjtime", "iopl", "ioperm", "fanotify_init",
          # memory no limit sees (a memfd, SysV segments that outlive the run) and IPC that
          # could carry data from one run to the next
          "memfd_create", "memfd_secret", "shmget", "shmat", "shmctl", "shmdt", "semget", "semop",
          "semtimedop", "semctl", "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open",
          "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr", "mq_unlink",
          # the new mount API, as the old one
          "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr")
NEW_NAMESPACES = (0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000)


def seccomp_filter(export_to: int | None = None) -> None:
    """Build the filter through libseccomp (as bubblewrap depends on it, it is there) and load
    it into this process, or with `export_to` write it as a BPF program to that descriptor
    (for bwrap --seccomp: the prison's own copy, applied whatever the run's settings say).
    Once loaded the kernel keeps it for this process and every child: nothing the code does
    can remove it. Also refused: clone with a namespace flag, sockets other than AF_UNIX;
    clone3 answers ENOSYS so the C library falls back to clone, where flags can be checked."""
    import ctypes
    import ctypes.util

    class Cmp(ctypes.Structure):  # struct scmp_arg_cmp
        _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                    ("a", ctypes.c_uint64), ("b", ctypes.c_uint64)]

    lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(Cmp)]
    lib.seccomp_load.argtypes = lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    ctx = lib.seccomp_init(0x7FFF0000)  # SCMP_ACT_ALLOW: refuse only what is named
    eperm, enosys = 0x50000 | errno.EPERM, 0x50000 | errno.ENOSYS

    def rule(action: int, name: str, *cmps: tuple[int, int, int, int]) -> None:
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:  # not a syscall on this architecture
            return
        arr = (Cmp * max(1, len(cmps)))(*[Cmp(*c) for c in cmps])
        if lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr) != 0:
            raise OSError(f"seccomp rule for {name} not added")

    try:
        for name in DENIED:
            rule(eperm, name)
        for flag in NEW_NAMESPACES:  # SCMP_CMP_MASKED_EQ: (flags & flag) == flag
            rule(eperm, "clone", (0, 7, flag, flag))
        rule(enosys, "clone3")
        rule(eperm, "socket", (0, 1, 1, 0))  # SCMP_CMP_NE AF_UNIX
        done = lib.seccomp_load(ctx) if export_to is None else lib.seccomp_export_bpf(ctx, export_to)
        if done != 0:
            raise OSError("seccomp filter not loaded")
    finally:
        lib.seccomp_release(ctx)


def outside(path: Any) -> bool:
    if isinstance(path, int):
        return False  # an already open descriptor
    full = os.path.realpath(os.fsdecode(os.fspath(path)))
    return os.path.commonpath([full, SPEC["root"]]) != SPEC["root"]


def classify(event: str, args: tuple[Any, ...]) -> str | None:
    if event.startswith("socket.") or (event == "import" and args[0] in NET_MODULES):
        return "network"
    if event.startswith(PROC_EVENTS):
        return "process"
    if event == "open" and args[0] is not None and (args[2] or 0) & WRITE:
        return "filesystem" if outside(args[0]) else None
    if event in FS_EVENTS and any(outside(a) for a in args if isinstance(a, str | bytes | os.PathLike)):
        return "filesystem"
    return None


def hook(event: str, args: tuple[Any, ...]) -> None:
    if BUSY:
        return  # realpath inside the hook must not re-enter it
    BUSY.append(1)
    try:
        kind = classify(event, args)
    finally:
        BUSY.pop()
    if kind:
        target = f" {str(args[0])[:120]}" if args else ""
        report(kind, f"{REFUSED[kind]} refused: {event}{target}")
        raise SandboxViolation(f"{event} refused in the sandbox ({kind})")


def read(dir_fd: int, name: str) -> str:
    """A file of the run dir, by descriptor; a link there is refused, never followed."""
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    with open(fd, encoding="utf-8") as f:
        return f.read()


def load(dir_fd: int) -> dict[str, Any]:
    """The namespace the code runs in: pd, np, one DataFrame per input, INPUTS (each input's
    tool, args, facts, columns), TABLES (name -> DataFrame) and PARAMS."""
    import numpy as np
    import pandas as pd

    tables: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    for name in SPEC["inputs"]:
        data = json.loads(read(dir_fd, f"{name}.json"))
        tables[name] = pd.DataFrame(data["rows"], columns=data["columns"] or None)
        inputs[name] = {**data["meta"], "columns": list(tables[name].columns)}
    return {"pd": pd, "np": np, "TABLES": tables, "INPUTS": inputs, "PARAMS": SPEC["params"],
            **tables, "__name__": "__analysis__"}


def classify_exc(exc: BaseException) -> str | None:
    """A violation the OS layers stopped (no hook involved): what the exception says."""
    if FOUND:
        return FOUND[0]
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, RuntimeError) and "new thread" in str(exc):
        return "process"
    no = getattr(exc, "errno", None)
    # in its own network namespace only a bare loopback answers: refused counts as reached for
    if type(exc).__name__ == "gaierror" or no in (errno.ENETUNREACH, errno.ENETDOWN,
                                                   errno.EHOSTUNREACH, errno.ECONNREFUSED):
        return "network"
    if no == errno.EPERM and _raised_in(exc, "socket.py"):  # the seccomp filter's refusal
        return "network"
    if no in (errno.EACCES, errno.EPERM, errno.EROFS, errno.EFBIG):
        return "filesystem"
    return "process" if no == errno.EAGAIN else None


def _raised_in(exc: BaseException, filename: str) -> bool:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.endswith(filename)


def one_line(exc: BaseException) -> str:
    """'ValueError: ... (line 4)': the code's own line, for the model's retry."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<analysis>"]
    lineno = exc.lineno if isinstance(exc, SyntaxError) else (lines or [None])[-1]
    msg = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    text = (f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__).splitlines()[0][:300]
    return text + (f" (line {lineno})" if lineno else "")


def dump(result: Any) -> dict[str, Any]:
    """`result` as JSON: a table (Series and indexed frames flattened) or a plain value."""
    import numpy as np
    import pandas as pd

    if isinstance(result, pd.Series):
        result = result.to_frame(name=result.name if result.name is not None else "value")
    if isinstance(result, pd.DataFrame):
        if any(n is not None for n in result.index.names):
            result = result.reset_index()  # a groupby's keys are columns of the answer
        elif not isinstance(result.index, pd.RangeIndex):  # row labels left by filtering/sorting
            result = result.reset_index(drop=pd.api.types.is_integer_dtype(result.index))
        cols = ["_".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in result.columns]
        part = json.loads(result.head(SPEC["max_rows"]).to_json(
            orient="split", index=False, date_format="iso", default_handler=str))
        return {"columns": cols, "rows": [dict(zip(cols, r, strict=False)) for r in part["data"]],
                "truncated": len(result) > SPEC["max_rows"]}
    if isinstance(result, np.generic):
        result = result.item()
    return {"value": json.loads(json.dumps(result, default=str))}


def prepare(dir_fd: int) -> tuple[Any, dict[str, Any]]:
    """Limits, imports and inputs (read through the run dir's descriptor, then closed), then
    the privilege drop where the child still has one to make."""
    set_limits()
    for name in PRELOAD:  # in a warm worker's job these are already loaded: a dict lookup each
        __import__(name)
    ns = load(dir_fd)
    code = compile(read(dir_fd, "analysis.py"), "<analysis>", "exec")
    os.close(dir_fd)
    if SPEC["uid"] is not None:  # root ignores RLIMIT_NPROC; the unprivileged user does not
        os.setgroups([])
        os.setgid(SPEC["gid"])
        os.setuid(SPEC["uid"])
    if SPEC.get("seccomp"):  # fails closed: no filter, no run
        seccomp_filter()
    return code, ns


def nondumpable() -> None:
    """No other process of the run's user (another run, a host daemon running as nobody) may
    debug this one or read its memory: setpriv's exec left it dumpable."""
    import ctypes

    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0


def join_groups(fds: list[int]) -> None:
    """Into the run's control groups (netopsai/sandbox/cgroup.py) before anything else runs:
    "0" written to a group's cgroup.procs moves the writer. A failure ends the run."""
    for fd in fds:
        os.write(fd, b"0")
        os.close(fd)


def main(arg: str) -> None:
    """The cold path: a fresh interpreter per run, started in its scratch dir."""
    fds = json.loads(arg)
    join_groups(fds["cgroups"])
    nondumpable()
    run(json.loads(read(fds["in"], "spec.json")), fds["in"], fds["result"])


def run(spec: dict[str, Any], dir_fd: int, out: int) -> None:
    """One run in this process, cwd its scratch dir: limits, inputs, the code, its result
    (written to `out`, a nameless file the parent holds). A warm worker's forked job calls this
    too (netopsai/sandbox/zygote.py)."""
    global PID
    PID = os.getpid()  # the process that reports; any copy the code forks exits silently
    SPEC.update(spec)
    if isinstance(sys.stdout, io.TextIOWrapper):  # what was printed survives a kill at a limit
        sys.stdout.reconfigure(line_buffering=True)
    try:
        code, ns = prepare(dir_fd)
        if SPEC["hook"]:
            sys.addaudithook(hook)
        exec(code, ns)
        if "result" not in ns:
            raise NameError("the code must leave its answer in a variable named `result`")
        result = {**dump(ns["result"]), "ok": True}
    except BaseException as exc:  # noqa: B036 - SystemExit and the like are the code's errors too
        if os.getpid() != PID:
            os._exit(0)  # a forked copy of the child: only the original reports
        result = {"ok": False, "error": one_line(exc), "violation": classify_exc(exc)}
    if os.getpid() != PID:
        os._exit(0)
    if FOUND:
        result.update(ok=False, violation=FOUND[0])
    os.ftruncate(out, 0)  # from the start, whatever the code wrote to the descriptor
    os.pwrite(out, json.dumps(result, default=str).encode(), 0)


if __name__ == "__main__":
    main(sys.argv[1])
