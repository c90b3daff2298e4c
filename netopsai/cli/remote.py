"""The thin client: when NETOPSAI_URL names a running `netopsai api`, `ask` and `tool` send the
work there (NETOPSAI_TOKEN is the bearer token) and print the same output, without loading the
copilot in this process. Only the standard library here: this path is about start-up time.
A server that does not answer means working standalone, said on stderr; a refused token is an
error, not a fallback."""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from netopsai.errors import NetopsError

TIMEOUT_S = 600  # a diagnosis of a big network can take minutes; the server bounds its own work


def server() -> tuple[str, str] | None:
    """(base URL, token) when NETOPSAI_URL is set."""
    url = os.environ.get("NETOPSAI_URL", "").strip().rstrip("/")
    return (url, os.environ.get("NETOPSAI_TOKEN", "").strip()) if url else None


def call(path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """POST `body` to the server; its JSON reply, or None when no server is set or it cannot be
    reached (the caller works standalone)."""
    where = server()
    if where is None:
        return None
    url, token = where
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          "Authorization": f"Bearer {token}"})
    try:
        with _opener().open(req, timeout=TIMEOUT_S) as r:
            return dict(json.load(r))
    except urllib.error.HTTPError as exc:
        return _refused(exc)
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(f"netopsai server at {url} not reachable ({reason}); answering here", file=sys.stderr)
        return None


def _opener() -> urllib.request.OpenerDirector:
    # the server is ours, often on loopback: never through a proxy from the environment
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _refused(exc: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        body = json.load(exc)
    except (ValueError, OSError):
        body = {}
    if exc.code == 422 and isinstance(body, dict) and "errors" in body:
        return dict(body)  # a tool's own error: its evidence says which
    detail = body.get("error") or body.get("detail") if isinstance(body, dict) else None
    if exc.code == 401:
        raise NetopsError("the netopsai server refused the token: set NETOPSAI_TOKEN to one from "
                          "`netopsai tokens create NAME`")
    raise NetopsError(f"the netopsai server said {exc.code}: {detail or exc.reason}")
