"""Optional login for shared deployments: a users file of `name:scrypt$n$r$p$salt$hash` lines
(stdlib hashlib.scrypt, so no extra dependency). Off unless NETOPSAI_UI_USERS names a file.
Wrong passwords are throttled per (name, address), per address and globally (Throttle).

Add a user:  python -m netopsai.ui.gradio.auth USERS_FILE NAME   (asks for the password)
"""

from __future__ import annotations

import asyncio
import functools
import getpass
import hashlib
import hmac
import logging
import secrets
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from netopsai.common.errors import NetopsError
from netopsai.config.settings import UiSettings

ENV = "NETOPSAI_UI_USERS"
MAX_NAME = 64  # a user name is short; a longer one at the login box is no user
log = logging.getLogger("netopsai.ui")
N, R, P = 2**14, 8, 1  # ~16 MB and ~50 ms per check: slow for guessing, fine for a login
# who is logging in: set per request by the web app's guard (Gradio hands `auth` only the name
# and password); "" when unknown, e.g. a direct call
LOGIN_ADDRESS: ContextVar[str] = ContextVar("netopsai_login_address", default="")
_HASHING = threading.BoundedSemaphore(4)  # ~16 MB each: a flood cannot take the machine's memory


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


@functools.cache
def _dummy() -> str:
    """What an unknown name's password is checked against (made once, on first use)."""
    return hash_password("not a password")


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


@dataclass
class _Strikes:
    failures: int = 0
    until: float = 0.0  # refused without a check until then
    last: float = 0.0  # the latest failure: an hour later the count starts again


class Throttle:
    """Guessing passwords gets slow without letting a stranger lock anyone out:

    - per (name, address): after FREE failures, that name from that address is refused without
      a check for a lockout that doubles with each further failure (up to MAX_LOCK_S); a
      success clears it. The same name from another address is not affected.
    - per address: after ADDRESS_FREE failures over any names, the address is locked the same
      way (one host spraying names).
    - global: beyond GLOBAL_FREE failures in GLOBAL_WINDOW_S from everywhere, every attempt
      waits first, doubling with the excess up to GLOBAL_MAX_DELAY_S (a flood from many
      addresses is slowed; a real user is slowed too, never refused).

    Behind a reverse proxy every login comes from the proxy's address: the per-address rules
    then act on everyone, as the old per-name lock did."""

    FREE, FIRST_LOCK_S, MAX_LOCK_S = 5, 30.0, 900.0
    ADDRESS_FREE = 20
    GLOBAL_WINDOW_S, GLOBAL_FREE, GLOBAL_STEP_S, GLOBAL_MAX_DELAY_S = 60.0, 30, 0.05, 5.0
    FORGET_S = 3600.0  # failures this long ago no longer count (a month of typos is not an attack)
    MAX_KEYS = 10_000  # strikes kept; a flood of made-up names cannot grow memory without end

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.strikes: dict[tuple[str, str], _Strikes] = {}
        self.recent: deque[float] = deque()
        self.lock = threading.Lock()

    def locked(self, name: str, address: str) -> bool:
        now = self.clock()
        with self.lock:
            return any(now < self.strikes.get(key, _Strikes()).until
                       for key in ((name, address), ("", address)))

    def delay(self) -> float:
        """Seconds every attempt waits now, by the failures of the last window from anywhere."""
        with self.lock:
            self._forget_old(self.clock())
            excess = len(self.recent) - self.GLOBAL_FREE
        if excess <= 0:
            return 0.0
        return min(self.GLOBAL_MAX_DELAY_S, self.GLOBAL_STEP_S * 2 ** (excess / 10))

    def record(self, name: str, address: str, ok: bool) -> None:
        now = self.clock()
        with self.lock:
            if ok:
                self.strikes.pop((name, address), None)
                return
            self.recent.append(now)
            self._forget_old(now)
            self._strike((name, address), self.FREE, now)
            self._strike(("", address), self.ADDRESS_FREE, now)

    def _strike(self, key: tuple[str, str], free: int, now: float) -> None:
        if key not in self.strikes and len(self.strikes) >= self.MAX_KEYS:
            self._prune(now)
        s = self.strikes.setdefault(key, _Strikes())
        s.failures = (s.failures if now - s.last < self.FORGET_S else 0) + 1
        s.last = now
        if s.failures >= free:
            s.until = now + min(self.MAX_LOCK_S, self.FIRST_LOCK_S * 2 ** (s.failures - free))

    def _prune(self, now: float) -> None:
        """Unlocked entries go first; if every entry is locked, the oldest half goes."""
        for key in [k for k, s in self.strikes.items() if s.until <= now]:
            del self.strikes[key]
        for key in list(self.strikes)[: max(0, len(self.strikes) - self.MAX_KEYS // 2)]:
            del self.strikes[key]

    def _forget_old(self, now: float) -> None:
        while self.recent and now - self.recent[0] > self.GLOBAL_WINDOW_S:
            self.recent.popleft()


def authenticator(path: str | Path | None = None, throttle: Throttle | None = None,
                  sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                  ) -> Callable[[str, str], Awaitable[bool]] | None:
    """Gradio's `auth` callable for the users file, or None when login is off. A coroutine:
    Gradio awaits it on its event loop, so the throttle's waits and the password hashing
    (in a worker thread, a few at a time) do not stall other requests. The caller's address
    comes from LOGIN_ADDRESS, set by the web app's guard (app.WebGuard)."""
    where = path or UiSettings().users
    if not where:
        return None
    users = load_users(Path(where).expanduser())
    guard = throttle or Throttle()

    async def check(name: str, password: str) -> bool:
        address = LOGIN_ADDRESS.get()
        # the throttle remembers (name, address): a stranger's megabyte "names" must not be
        # what it remembers; no user name is that long, so such a login simply fails
        name = name[:MAX_NAME + 1]
        wait = guard.delay()
        if wait:
            await sleep(wait)
        if guard.locked(name, address):
            log.warning("login refused for %r from %s: too many wrong passwords, locked for now",
                        name[:64], address or "?")
            return False
        ok = len(name) <= MAX_NAME and await asyncio.to_thread(_verify, users.get(name), password)
        guard.record(name, address, ok)
        return ok
    return check


def _verify(stored: str | None, password: str) -> bool:
    with _HASHING:
        if stored is None:
            verify_password(password, _dummy())  # same cost, so names do not leak by timing
            return False
        return verify_password(password, stored)


def add_user(path: Path, name: str, password: str) -> None:
    if not name or ":" in name or not name.isprintable() or len(name) > MAX_NAME:
        raise NetopsError(f"a user name is 1 to {MAX_NAME} characters with no ':' nor control "
                          "characters")
    if name == "anonymous":  # the web's threads without login are web:anonymous:…
        raise NetopsError("'anonymous' is reserved; pick another user name")
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
