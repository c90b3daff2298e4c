"""A small HTTP/1.1 server for webhooks: a POST's body in, a JSON reply out (HookServer.handle).
One asyncio loop on its own thread serves every connection, so idle or slow clients cost a
socket each, never a thread; a whole request (headers and body) must arrive within
`read_timeout`, connections over `max_connections` are closed at once, and when `auth` is set
the Authorization header is checked before the body is read. A body is sized before it is
read: it needs a Content-Length (411 without one, so no chunked body) of at most MAX_BODY (413)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import threading
from dataclasses import dataclass
from http import HTTPStatus

from pydantic import SecretStr

MAX_BODY = 1 << 20
MAX_HEAD = 16 << 10  # request line and headers
READ_TIMEOUT_S = 10.0  # one whole request; Alertmanager sends its payload at once
MAX_CONNECTIONS = 64  # Alertmanager keeps a few; more is someone else
Head = tuple[str, dict[str, str], bool]  # method, headers (lower-case names), keep-alive


@dataclass(frozen=True)
class WebhookAuth:
    """What the server accepts: a bearer token (Alertmanager's `http_config.authorization`),
    basic auth (`http_config.basic_auth`), or either when both are set. Compared in constant
    time; the secrets stay in SecretStr and are never logged nor echoed."""

    bearer: SecretStr | None = None
    username: str | None = None
    password: SecretStr | None = None

    def allows(self, header: str) -> bool:
        scheme, _, text = header.strip().partition(" ")
        value = text.strip().encode()
        if scheme.lower() == "bearer" and self.bearer is not None:
            return hmac.compare_digest(value, self.bearer.get_secret_value().encode())
        if scheme.lower() == "basic" and self.password is not None:
            try:
                user, _, password = base64.b64decode(value, validate=True).decode().partition(":")
            except (binascii.Error, UnicodeDecodeError):
                return False
            same_user = hmac.compare_digest(user.encode(), (self.username or "").encode())
            same_password = hmac.compare_digest(password.encode(), self.password.get_secret_value().encode())
            return same_user and same_password
        return False

    def challenge(self) -> str:
        return "Bearer" if self.password is None else 'Basic realm="netopsai"'


class Refused(Exception):
    """A request answered with `code` and a one-line `text`, and its connection closed."""

    def __init__(self, code: int, text: str, extra: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(text)
        self.code, self.text, self.extra = code, text, extra


async def read_head(reader: asyncio.StreamReader) -> Head | None:
    """The request line and headers; None when the client closed between requests."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise Refused(400, "incomplete request") from None
    except asyncio.LimitOverrunError:
        raise Refused(431, f"request headers over {MAX_HEAD} bytes") from None
    line, *rest = head.decode("latin-1").split("\r\n")
    parts = line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise Refused(400, "not an HTTP/1.x request")
    headers: dict[str, str] = {}
    for field in filter(None, rest):
        name, sep, value = field.partition(":")
        if not sep:
            raise Refused(400, "malformed header line")
        headers[name.strip().lower()] = value.strip()
    wants = headers.get("connection", "").lower()
    keep = wants == "keep-alive" if parts[2] == "HTTP/1.0" else wants != "close"
    return parts[0], headers, keep


def response(code: int, text: str, ctype: str = "text/plain; charset=utf-8",
             extra: tuple[tuple[str, str], ...] = (), keep: bool = False) -> bytes:
    data = (text.replace("\n", " ") + "\n").encode()
    lines = [f"HTTP/1.1 {code} {HTTPStatus(code).phrase}", f"Content-Type: {ctype}",
             f"Content-Length: {len(data)}", f"Connection: {'keep-alive' if keep else 'close'}",
             *(f"{k}: {v}" for k, v in extra)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


class HookServer:
    """Serves on host:port (0 = a free port; `port` is the bound one after `start`). A subclass
    says what a POST body gets: `handle(body, sender)` returns the JSON reply or raises Refused."""

    def __init__(self, host: str, port: int, auth: WebhookAuth | None = None, *,
                 read_timeout: float = READ_TIMEOUT_S, max_connections: int = MAX_CONNECTIONS) -> None:
        self.host, self.port, self.auth = host, port, auth
        self.read_timeout, self.max_connections = read_timeout, max_connections
        self.connections = 0
        self._writers: set[asyncio.StreamWriter] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def handle(self, body: bytes, sender: str) -> str:
        raise NotImplementedError

    def start(self) -> None:
        """Bind and serve on the server's own thread and loop (the caller may be running a loop
        of its own); a bind error, e.g. a port in use, is raised here."""
        ready, failed = threading.Event(), list[BaseException]()
        self._thread = threading.Thread(target=self._run, args=(ready, failed),
                                        name="netopsai-webhook", daemon=True)
        self._thread.start()
        ready.wait()
        if failed:
            self._thread.join()
            self._thread = None
            raise failed[0]

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._loop = self._thread = None

    def _run(self, ready: threading.Event, failed: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(asyncio.start_server(
                self._connection, self.host, self.port, limit=MAX_HEAD))
            self.port, self._loop = server.sockets[0].getsockname()[1], loop
        except BaseException as exc:
            failed.append(exc)
            loop.close()
            return
        finally:
            ready.set()
        try:
            loop.run_forever()
        finally:  # stopped: drop the open connections (their handlers then end), then close
            server.close()
            for writer in list(self._writers):
                writer.transport.abort()
            pending = asyncio.all_tasks(loop)
            if pending:
                loop.run_until_complete(asyncio.wait(pending, timeout=2))
            loop.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.connections >= self.max_connections:
            writer.close()  # over the cap: no request is read, nothing is held
            return
        self.connections += 1
        self._writers.add(writer)
        try:
            while await self._one(reader, writer):
                pass
        except (OSError, asyncio.IncompleteReadError):  # reset, timed out, or gone mid-body
            pass
        finally:
            self.connections -= 1
            self._writers.discard(writer)
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; True to wait for another on the same connection."""
        try:
            async with asyncio.timeout(self.read_timeout):  # the whole request, not each read
                head = await read_head(reader)
                if head is None:
                    return False
                body = await self._body(reader, head)
            peer = writer.get_extra_info("peername") or ("?",)
            keep = head[2]
            reply = response(200, self.handle(body, str(peer[0])), "application/json", keep=keep)
        except TimeoutError:
            reply, keep = response(408, "request not received in time"), False
        except Refused as no:
            reply, keep = response(no.code, no.text, extra=no.extra), False
        writer.write(reply)
        async with asyncio.timeout(self.read_timeout):  # a client that never reads is dropped
            await writer.drain()
        return keep

    async def _body(self, reader: asyncio.StreamReader, head: Head) -> bytes:
        method, headers, _ = head
        if self.auth is not None and not self.auth.allows(headers.get("authorization", "")):
            raise Refused(401, "authentication required", (("WWW-Authenticate", self.auth.challenge()),))
        if method != "POST":
            raise Refused(405, "POST Alertmanager webhook payloads here")
        length = headers.get("content-length", "")
        if not length.isdigit():  # a chunked body is never read: its size is not known first
            raise Refused(411, "a Content-Length header is required")
        if int(length) > MAX_BODY:
            raise Refused(413, f"payload over {MAX_BODY} bytes")
        return await reader.readexactly(int(length))
