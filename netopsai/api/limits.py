"""What one HTTP request may cost the API (`netopsai api`) and the MCP server (`netopsai mcp
--transport http`), checked before any work (issue 23, B6): its body's size (BodyLimit, an ASGI
middleware: a Content-Length over the limit is refused with 413 before the app runs; a body
without one, chunked, is cut at the limit while it is read), its time (Work: the answer runs on
a daemon thread the handler stops waiting for when the caller goes away, the server is told to
stop or the budget is spent) and how long a stopping server waits for requests still running
(GRACEFUL_S)."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, MutableMapping
from contextlib import suppress
from typing import Any

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from netopsai.common.errors import NetopsError
from netopsai.copilot.service import Stop, Stopped

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

GRACEFUL_S = 10  # a stopping server waits this long for requests still running, then closes them
GRACE_S = 5.0  # past the copilot's own budget (checked between steps), the caller is let go
POLL_S = 0.25
TRIAGE_BODY = 1 << 20  # Alertmanager's payloads, as the webhook receiver takes them


class HttpLimits(BaseSettings):
    """NETOPSAI_HTTP_*: the largest request body the API and the MCP server read
    (MAX_BODY_KB, 64: a question is at most NETOPSAI_MAX_QUESTION characters), and the
    larger one of a batch job's pairs (`POST /api/batch`, MAX_BATCH_MB); how many asks (and MCP
    tool calls) run at once, in all (MAX_ASKS, 4) and per token (MAX_ASKS_PER_TOKEN, 2); the
    connections uvicorn keeps open (MAX_CONNECTIONS, 100: past it a request is answered 503)
    and how long a connection may take to send a request's headers (HEADER_TIMEOUT_S, 10)."""

    model_config = SettingsConfigDict(env_prefix="NETOPSAI_HTTP_", extra="ignore")

    max_body_kb: int = Field(default=64, ge=1)
    max_batch_mb: int = Field(default=50, ge=1)
    max_asks: int = Field(default=4, ge=1)
    max_asks_per_token: int = Field(default=2, ge=1)
    max_connections: int = Field(default=100, ge=1)
    header_timeout_s: float = Field(default=10.0, gt=0)

    @classmethod
    def from_env(cls) -> HttpLimits:
        try:
            return cls()
        except ValidationError as exc:
            err = exc.errors()[0]
            raise NetopsError(f"NETOPSAI_HTTP_{str(err['loc'][0]).upper()}: {err['msg']}") from None

    @property
    def max_body(self) -> int:
        return self.max_body_kb << 10

    def api_routes(self) -> dict[str, int]:
        """The API's paths whose bodies may be larger than the default."""
        return {"/api/batch": self.max_batch_mb << 20, "/api/triage/alertmanager": TRIAGE_BODY}


class Busy(NetopsError):
    """No slot for one more ask: `status` 429 (the caller's own share is taken) or 503 (the
    server's)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Slots:
    """How many asks run at once, per caller and in all. A slot is taken before any work and
    given back when the work's thread ends, not when the handler stops waiting: a step still
    running after its caller went away keeps its slot, so callers that leave cannot pile up
    work (six asks closed at once grew the API to 2.5 GB)."""

    def __init__(self, total: int, per_caller: int) -> None:
        self.total, self.per_caller = total, per_caller
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls) -> Slots:
        limits = HttpLimits.from_env()
        return cls(limits.max_asks, limits.max_asks_per_token)

    def take(self, caller: str) -> Callable[[], None]:
        """A slot for `caller`, or Busy; the callable gives it back (once, however often called)."""
        with self._lock:
            mine = self._held.get(caller, 0)
            if mine >= self.per_caller:
                raise Busy(f"{mine} asks of yours are still running (at most {self.per_caller} at "
                           "once, NETOPSAI_HTTP_MAX_ASKS_PER_TOKEN); ask again when one ends", 429)
            if sum(self._held.values()) >= self.total:
                raise Busy(f"the server is answering {self.total} asks already (at most "
                           f"{self.total} at once, NETOPSAI_HTTP_MAX_ASKS); try again shortly", 503)
            self._held[caller] = mine + 1
        done = threading.Event()

        def release() -> None:
            with self._lock:
                if done.is_set():
                    return
                done.set()
                left = self._held.get(caller, 1) - 1
                if left > 0:
                    self._held[caller] = left
                else:
                    self._held.pop(caller, None)
        return release

    def running(self) -> int:
        with self._lock:
            return sum(self._held.values())


class BodyTooLarge(Exception):
    """Raised into the app by the capped `receive` when a body passes its limit."""


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 and not n % (1 << 20) else f"{n >> 10} KB"


class BodyLimit:
    """ASGI middleware: a request body over `limit` bytes (`routes`: other limits by exact
    path) is answered 413 and never reaches the app whole. A Content-Length over the limit is
    refused before the app is called; a body without one is counted as it is received, and at
    the limit the app's read fails and whatever it answered is replaced by the 413. The reply
    closes the connection (the rest of the body is never read)."""

    def __init__(self, app: App, limit: int, routes: Mapping[str, int] | None = None) -> None:
        self.app, self.limit, self.routes = app, limit, dict(routes or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.routes.get(scope.get("path", ""), self.limit)
        length = _header(scope, b"content-length")
        if length is not None and not length.isdigit():
            await _refuse(send, 400, "the Content-Length header is not a number")
            return
        if length is not None and int(length) > limit:
            await _refuse(send, 413, _too_large(limit))
            return
        await self._capped(scope, receive, send, limit)

    async def _capped(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        seen, over, started = 0, False, False

        async def capped_receive() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    over = True
                    raise BodyTooLarge(_too_large(limit))
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the app's own answer to the cut body: the 413 goes instead
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, capped_receive, guarded_send)
        except Exception:
            if not over:
                raise
        if over and not started:
            await _refuse(send, 413, _too_large(limit))


def _too_large(limit: int) -> str:
    return (f"the request body is over {_size(limit)}, the most this server reads "
            "(NETOPSAI_HTTP_MAX_BODY_KB; batch pairs: NETOPSAI_HTTP_MAX_BATCH_MB)")


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or []:
        if key.lower() == name:
            return bytes(value).decode("latin-1").strip()
    return None


async def _refuse(send: Send, code: int, text: str) -> None:
    body = json.dumps({"error": text}).encode()
    await send({"type": "http.response.start", "status": code,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class Work:
    """One answer on a daemon thread of its own, its results handed to the event loop: the
    handler stops waiting the moment the caller goes away, the server is told to stop or the
    budget is spent, and the work stops at its next step (Copilot checks `stop` between the
    graph's nodes). Daemon, so a step still running never holds up the process's exit (with
    a worker of the shared pool, SIGTERM waited for the answer: issue 23, B6). `release`: the
    Slots slot it holds, given back when the thread ends; `budget`: past it (plus GRACE_S) the
    stop flag is set even when nobody iterates the results (a stream never started)."""

    def __init__(self, run: Callable[[Stop], Iterator[Any]],
                 release: Callable[[], None] | None = None, budget: float | None = None) -> None:
        self.stop = threading.Event()
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.release = release
        if budget is not None:
            self.loop.call_later(budget + GRACE_S, self.stop.set)
        try:
            threading.Thread(target=self._pump, args=(run,), name="netopsai-ask",
                             daemon=True).start()
        except BaseException:
            if release is not None:
                release()
            raise

    def _pump(self, run: Callable[[Stop], Iterator[Any]]) -> None:
        try:
            for item in run(self.stop.is_set):
                self._put("item", item)
            self._put("end", None)
        except BaseException as exc:  # handed to the handler, which answers with it
            self._put("error", exc)
        finally:
            if self.release is not None:
                self.release()

    def _put(self, kind: str, value: Any) -> None:
        with suppress(RuntimeError):  # the loop is closed: nobody waits for this any more
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, value))

    async def results(self, budget: float, gone: Callable[[], Awaitable[bool]] | None = None,
                      ) -> AsyncIterator[Any]:
        """The run's items as they come; Stopped when `gone()` says the caller went away, the
        server is stopping or the budget (plus GRACE_S) is spent."""
        deadline = self.loop.time() + budget + GRACE_S
        try:
            while True:
                try:
                    kind, value = await asyncio.wait_for(self.queue.get(), POLL_S)
                except TimeoutError:
                    await self._check(deadline, budget, gone)
                    continue
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                yield value
        finally:
            self.stop.set()

    async def _check(self, deadline: float, budget: float,
                     gone: Callable[[], Awaitable[bool]] | None) -> None:
        if gone is not None and await gone():
            raise Stopped("the caller went away")
        if server_stopping():
            raise Stopped("the server is stopping; ask again when it is back")
        if self.loop.time() > deadline:
            raise Stopped(f"no answer within {budget:g} s, this server's time budget for a "
                          "question (NETOPSAI_ASK_BUDGET_S)")


def server_stopping() -> bool:
    """Whether the uvicorn server running us was told to stop (SIGTERM, Ctrl-C): its signal
    handler is a method of the server, as sse-starlette finds it too. uvicorn waits for running
    requests before it exits, so a long answer must notice and end."""
    server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    return bool(getattr(server, "should_exit", False))


HEADER_BYTES = 32 << 10  # the largest request line and headers h11 buffers


def uvicorn_options(limits: HttpLimits | None = None) -> dict[str, Any]:
    """uvicorn.run's limits for a server of ours (red team 2, C: connections trickling headers
    stayed open with no cap): at most MAX_CONNECTIONS connections and running requests (uvicorn
    answers 503 past it), headers within HEADER_TIMEOUT_S (HeaderTimeout: uvicorn itself has no
    such timeout) and HEADER_BYTES, idle keep-alive connections closed after 5 s."""
    limits = limits or HttpLimits.from_env()
    return {"http": header_timeout(limits.header_timeout_s), "limit_concurrency": limits.max_connections,
            "timeout_keep_alive": 5, "h11_max_incomplete_event_size": HEADER_BYTES}


def header_timeout(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline for each request's headers: armed when the
    connection opens and when a response completes (a kept-alive connection's next request),
    disarmed when a request's headers are in; at the deadline the connection is closed. A
    slow-loris connection is dropped after `seconds`, however it trickles its bytes."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderTimeout(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:  # a request's headers are in: the app has it now
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

    return HeaderTimeout
