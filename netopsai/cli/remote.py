"""The thin client: `ask` and `tool` send the work to a running netopsai server and print the
same output, without loading the copilot in this process. The server is, in order:
NETOPSAI_URL (a `netopsai api`; NETOPSAI_TOKEN is the bearer token), else the Unix socket
`netopsai serve` and `netopsai api` open in NETOPSAI_HOME (no token: the socket's 0600 file is
the authentication), else none and the work is done here.
Only the standard library here, imported lazily: this path is about start-up time.
A NETOPSAI_URL that does not answer means working standalone, said on stderr; a socket file
nobody answers on (a server that crashed) is just the usual no-server case, said nowhere; a
refused token is an error, not a fallback."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, NamedTuple

from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible

TIMEOUT_S = 600  # a diagnosis of a big network can take minutes; the server bounds its own work
CONNECT_S = 2  # a local socket accepts at once or not at all


class Server(NamedTuple):
    url: str  # the base URL, or "unix:PATH" for the home's socket
    token: str


def server() -> Server | None:
    """Where to send the work: NETOPSAI_URL when set, else the home's socket when it is there
    and ours (whether it answers is found out by calling)."""
    url = os.environ.get("NETOPSAI_URL", "").strip().rstrip("/")
    if url:
        return Server(url, os.environ.get("NETOPSAI_TOKEN", "").strip())
    sock = _socket_file()
    return Server(f"unix:{sock}", "") if sock else None


def call(path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """POST `body` to the server; its JSON reply, or None when there is no server or it cannot be
    reached (the caller works standalone)."""
    where = server()
    if where is None:
        return None
    if where.url.startswith("unix:"):
        return _call_socket(where.url.removeprefix("unix:"), path, body)
    return _call_url(where, path, body)


def _socket_file() -> str | None:
    """The home's api.sock when it is a socket owned by this user: one planted by anyone else
    (a home opened to others) would receive the questions, so it is not used."""
    import stat

    home = os.path.expanduser(os.environ.get("NETOPSAI_HOME", "~/.netopsai"))
    path = os.path.join(home, "api.sock")
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return path if stat.S_ISSOCK(st.st_mode) and st.st_uid == os.getuid() else None


def _call_socket(sock_path: str, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    from netopsai.cli import thin_http  # the socket module alone: no http.client, no ssl

    try:
        conn = thin_http.connect(sock_path, CONNECT_S, TIMEOUT_S)
    except OSError:
        return None  # a stale socket file: no server, as when there is no file
    try:
        r = thin_http.post(conn, path, json.dumps(body).encode())
    except OSError as exc:  # it accepted, then failed: worth a line, as for NETOPSAI_URL
        print(visible(f"netopsai server at {sock_path} not reachable ({exc}); answering here"),
              file=sys.stderr)
        return None
    finally:
        conn.close()
    return dict(json.loads(r.body)) if r.status < 400 else _refused(r.status, r.reason, r.body)


def _call_url(where: Server, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(where.url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Authorization": f"Bearer {where.token}"})
    # the server is ours, often on loopback: never through a proxy from the environment
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=TIMEOUT_S) as r:
            return dict(json.load(r))
    except urllib.error.HTTPError as exc:
        return _refused(exc.code, str(exc.reason), _body(exc))
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(visible(f"netopsai server at {where.url} not reachable ({reason}); answering here"),
              file=sys.stderr)
        return None


def _body(exc: Any) -> bytes:
    try:
        return bytes(exc.read())
    except OSError:
        return b""


def _refused(code: int, reason: str, raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError:
        body = {}
    if code == 422 and isinstance(body, dict) and "errors" in body:
        return dict(body)  # a tool's own error: its evidence says which
    detail = body.get("error") or body.get("detail") if isinstance(body, dict) else None
    if code == 401:
        raise NetopsError("the netopsai server refused the token: set NETOPSAI_TOKEN to one from "
                          "`netopsai tokens create NAME`")
    raise NetopsError(f"the netopsai server said {code}: {detail or reason}")
