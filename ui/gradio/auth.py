"""Optional login for shared deployments: a users file of `name:scrypt$n$r$p$salt$hash` lines
(stdlib hashlib.scrypt, so no extra dependency). Off unless NETOPSAI_UI_USERS names a file.

Add a user:  python -m netopsai.ui.gradio.auth USERS_FILE NAME   (asks for the password)
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import logging
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from netopsai.errors import NetopsError

ENV = "NETOPSAI_UI_USERS"
log = logging.getLogger("netopsai.ui")
N, R, P = 2**14, 8, 1  # ~16 MB and ~50 ms per check: slow for guessing, fine for a login


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p))
    except ValueError:  # a malformed line never lets anyone in
        return False
    return hmac.compare_digest(got.hex(), digest)


def load_users(path: Path) -> dict[str, str]:
    if not path.is_file():
        raise NetopsError(f"{ENV}: users file not found: {path}")
    users: dict[str, str] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, stored = line.partition(":")
        if not sep or not name:
            raise NetopsError(f"{path}:{n}: expected NAME:scrypt$..., got {line[:30]!r}")
        users[name] = stored
    if not users:
        raise NetopsError(f"{path}: no users; add one with 'python -m netopsai.ui.gradio.auth'")
    return users


class Throttle:
    """Guessing passwords gets slow: after FREE failures for a name, that name is refused
    without a check for a lockout that doubles with each further failure (up to MAX_LOCK_S);
    a success clears it. Per name, so one user's typos do not lock the others out."""

    FREE, FIRST_LOCK_S, MAX_LOCK_S = 5, 30.0, 900.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, int] = {}
        self.until: dict[str, float] = {}
        self.lock = threading.Lock()

    def locked(self, name: str) -> bool:
        with self.lock:
            return self.clock() < self.until.get(name, 0.0)

    def record(self, name: str, ok: bool) -> None:
        with self.lock:
            if ok:
                self.failures.pop(name, None)
                self.until.pop(name, None)
                return
            n = self.failures[name] = self.failures.get(name, 0) + 1
            if n >= self.FREE:
                wait = min(self.MAX_LOCK_S, self.FIRST_LOCK_S * 2 ** (n - self.FREE))
                self.until[name] = self.clock() + wait


def authenticator(path: str | Path | None = None,
                  throttle: Throttle | None = None) -> Callable[[str, str], bool] | None:
    """Gradio's `auth` callable for the users file, or None when login is off."""
    where = path or os.environ.get(ENV)
    if not where:
        return None
    users = load_users(Path(where).expanduser())
    guard = throttle or Throttle()

    def check(name: str, password: str) -> bool:
        if guard.locked(name):
            log.warning("login refused for %r: too many wrong passwords, locked for now", name)
            return False
        stored = users.get(name)
        if stored is None:
            verify_password(password, hash_password("x"))  # same cost, so names do not leak by timing
            ok = False
        else:
            ok = verify_password(password, stored)
        guard.record(name, ok)
        return ok
    return check


def add_user(path: Path, name: str, password: str) -> None:
    if not name or ":" in name:
        raise NetopsError("a user name is non-empty and has no ':'")
    if not password:
        raise NetopsError("empty password")
    lines = [ln for ln in (path.read_text().splitlines() if path.exists() else [])
             if ln.partition(":")[0] != name]
    path.write_text("\n".join([*lines, f"{name}:{hash_password(password)}"]) + "\n")
    path.chmod(0o600)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m netopsai.ui.gradio.auth USERS_FILE NAME", file=sys.stderr)
        return 2
    password = getpass.getpass(f"password for {argv[1]}: ")
    try:
        add_user(Path(argv[0]), argv[1], password)
    except NetopsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
