"""Running iproute2/iptables for the namespace lab: root and binary checks, one-line errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence

from netopsai.common.errors import NetopsError

NEEDED = ("ip", "traceroute", "iptables")


def require_root(what: str = "the namespace lab") -> None:
    if os.geteuid() != 0:
        raise NetopsError(f"{what} needs root (it creates network namespaces); run it as root")
    missing = [b for b in NEEDED if shutil.which(b) is None]
    if missing:
        raise NetopsError(f"{what} needs {', '.join(missing)} (apt-get install iproute2 "
                          f"traceroute iptables)")


def run(cmd: Sequence[str], stdin: str | None = None, check: bool = True) -> str:
    """Run one command; a failure is a NetopsError naming the command and its first error line."""
    p = subprocess.run(list(cmd), input=stdin, capture_output=True, text=True, timeout=60)
    if check and p.returncode != 0:
        err = (p.stderr or p.stdout).strip().splitlines()
        raise NetopsError(f"'{' '.join(cmd[:6])}' failed: {err[0] if err else p.returncode}")
    return p.stdout


def ip_batch(ns: str, lines: list[str]) -> None:
    """Many `ip` commands inside one namespace in one process."""
    if lines:
        run(["ip", "-n", ns, "-batch", "-"], stdin="\n".join(lines) + "\n")


def in_ns(ns: str, *cmd: str, check: bool = True, stdin: str | None = None) -> str:
    return run(["ip", "netns", "exec", ns, *cmd], stdin=stdin, check=check)


def namespaces() -> set[str]:
    out = run(["ip", "netns", "list"], check=False)
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def delete_ns(names: Sequence[str]) -> int:
    """Delete the namespaces that exist (their veths go with them); returns how many."""
    have = namespaces()
    gone = [n for n in names if n in have]
    for n in gone:
        run(["ip", "netns", "del", n], check=False)
    return len(gone)
