"""One HTTP/1.1 POST over the home's Unix socket with the socket module alone. http.client
imports email's parser and ssl, ~20 ms of a thin `ask` whose whole budget is a few times a bare
interpreter's start (issue 28 item 4); the socket's server is always ours (uvicorn), so the
exchange needed is small: one request, a reply sized by Content-Length (or chunked), then close.
A reply that is not HTTP is an OSError, as a connection dropped half-way is."""

from __future__ import annotations

import socket

MAX_HEAD = 64 << 10  # a status line and headers longer than this are not our server's


class Reply:
    def __init__(self, status: int, reason: str, body: bytes) -> None:
        self.status, self.reason, self.body = status, reason, body


def connect(sock_path: str, connect_s: float, timeout_s: float) -> socket.socket:
    """A connected stream socket (OSError when nobody answers: a stale file)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(connect_s)
        s.connect(sock_path)
    except OSError:
        s.close()
        raise
    s.settimeout(timeout_s)
    return s


def post(s: socket.socket, path: str, body: bytes) -> Reply:
    """POST `body` (JSON) to `path` on the connected socket and read the whole reply."""
    s.sendall(b"POST %s HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: identity\r\n"
              b"Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
              % (path.encode("ascii"), len(body)) + body)
    buf = b""
    while b"\r\n\r\n" not in buf:
        if len(buf) > MAX_HEAD:
            raise OSError("the server's reply headers are too long")
        buf += _recv(s)
    head, _, rest = buf.partition(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise OSError(f"not an HTTP reply: {status_line[:80]!r}")
    headers = {k.strip().lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
    status, reason = int(parts[1]), parts[2] if len(parts) > 2 else ""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return Reply(status, reason, _dechunk(s, rest))
    length = headers.get("content-length")
    if length is None or not length.isdigit():  # read to the close
        while chunk := s.recv(1 << 16):
            rest += chunk
        return Reply(status, reason, rest)
    want = int(length)
    while len(rest) < want:
        rest += _recv(s)
    return Reply(status, reason, rest[:want])


def _recv(s: socket.socket) -> bytes:
    chunk = s.recv(1 << 16)
    if not chunk:
        raise OSError("the server closed the connection mid-reply")
    return chunk


def _dechunk(s: socket.socket, buf: bytes) -> bytes:
    """A chunked body: each chunk's hex size line, its bytes, CRLF; a zero size ends it."""
    out = bytearray()
    while True:
        while b"\r\n" not in buf:
            buf += _recv(s)
        size_line, _, buf = buf.partition(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
        except ValueError:
            raise OSError(f"bad chunk size {size_line[:40]!r}") from None
        if size == 0:
            return bytes(out)
        while len(buf) < size + 2:
            buf += _recv(s)
        out += buf[:size]
        buf = buf[size + 2:]
