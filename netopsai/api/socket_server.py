"""The owner's Unix socket: `netopsai serve` and `netopsai api` also answer the HTTP API on
$NETOPSAI_HOME/api.sock, where the thin `ask` and `tool` (netopsai.cli.remote) find them with no
URL and no token. The socket file is 0600 inside the 0700 home, so only the home's owner can
connect: that permission is the authentication, and the app behind it is a separate instance
built with `local=True` (the TCP listener's app still requires tokens).

A socket file nobody answers on (a server that crashed) is replaced; one a running server
answers on is left to it, and this server goes without a socket."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from netopsai.copilot.service import Copilot

log = logging.getLogger(__name__)
NAME = "api.sock"


def socket_path(home: Path) -> Path:
    return home / NAME


def answers(path: Path, timeout: float = 1.0) -> bool:
    """Whether something accepts connections on the socket file `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(str(path))
        except FileNotFoundError:
            return False
        except ConnectionRefusedError:
            return False  # a socket file with no listener: its server is gone
        except OSError:
            return True  # unsure (busy, no permission): not ours to remove
        return True


def claim(path: Path) -> bool:
    """Clear the way for binding `path`: True when it is free (a stale socket removed), False
    when something else holds it (a live server, or a file that is not a socket)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    if not stat.S_ISSOCK(st.st_mode):
        _say(f"{path} exists and is not a socket: left alone, no local socket")
        return False
    if answers(path):
        _say(f"another netopsai server answers on {path}: left to it, no local socket")
        return False
    path.unlink(missing_ok=True)
    return True


def bind(path: Path) -> socket.socket:
    """A listening socket at `path`, 0600 before it listens: a connect before the chmod is
    refused (nothing listens yet), so there is no window where others could get in."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        os.chmod(path, 0o600)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


@contextlib.contextmanager
def local_socket(copilot: Copilot, triage: Any = None, home: Path | None = None) -> Iterator[Path | None]:
    """Serve the API on the home's socket for the duration of the block (the main listener runs
    inside it); the socket file is removed on the way out. Yields the path, or None when the
    socket could not be had (the main listener runs anyway)."""
    from netopsai.config.settings import StoreSettings, private_dir

    path = socket_path(private_dir(home or StoreSettings().home))
    sock = _open(path)
    if sock is None:
        yield None
        return
    inode = os.stat(path).st_ino
    server, thread = _start(copilot, triage, sock)
    _exit_on_sigterm()
    try:
        yield path
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()
        _remove(path, inode)


def _open(path: Path) -> socket.socket | None:
    if not claim(path):
        return None
    try:
        return bind(path)
    except OSError as exc:  # e.g. another server bound it a moment ago
        _say(f"no local socket at {path}: {exc}")
        return None


def _start(copilot: Copilot, triage: Any, sock: socket.socket) -> tuple[Any, threading.Thread]:
    import uvicorn

    from netopsai.api.http import build_api
    from netopsai.copilot.frontend import store_engine

    app = build_api(copilot, store_engine(), triage, local=True)
    # our own bound socket: uvicorn's `uds=` would chmod the file 0666
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name="netopsai-socket", daemon=True)
    thread.start()
    return server, thread


def _exit_on_sigterm() -> None:
    """SIGTERM's default kills the process on the spot, skipping the socket's removal: make it
    an orderly exit. A handler someone installed already is kept (uvicorn re-raises the signal
    to it after its own shutdown)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))


def _remove(path: Path, inode: int) -> None:
    with contextlib.suppress(OSError):
        if os.lstat(path).st_ino == inode:  # still ours, not a successor's
            path.unlink()


def _say(message: str) -> None:
    print(f"netopsai: {message}", file=sys.stderr, flush=True)
