"""A scripted OpenAI-compatible server on loopback, for driving ChatOpenAI over real HTTP.

Queue replies with `server.script(text("..."), calls(call("traceroute", {...})), status(500),
slow(5.0), garbage())`; each POST /v1/chat/completions takes the next one, in order. Every
request body is recorded in `server.requests` (parsed JSON) so tests can assert what was sent.
`stream: true` is answered with SSE chunks, with a usage chunk when the client asks for one.

Reuse from any test module: `from netopsai_testkit.fake_openai import FakeOpenAI, fake_openai_fixture  # noqa:
F401` registers the fixture there; take `fake_openai` as a test argument.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

MODEL = "fake-model"


@dataclass
class Reply:
    """One scripted response. `raw` is sent as the body unchanged (for garbage)."""

    status: int = 200
    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    usage: tuple[int, int] | None = (10, 5)  # (prompt, completion); None leaves usage out
    delay: float = 0.0
    raw: bytes | None = None


def text(content: str, usage: tuple[int, int] | None = (10, 5)) -> Reply:
    """A plain answer, no tool calls."""
    return Reply(content=content, usage=usage)


def call(name: str, args: dict[str, Any] | str) -> tuple[str, dict[str, Any] | str]:
    """One tool call; a str `args` is sent verbatim (e.g. malformed JSON)."""
    return name, args


def calls(*tool_calls: tuple[str, dict[str, Any] | str], content: str | None = None,
          usage: tuple[int, int] | None = (10, 5)) -> Reply:
    """One or several (parallel) tool calls in one assistant message."""
    return Reply(content=content, tool_calls=list(tool_calls), usage=usage)


def status(code: int, message: str = "scripted failure") -> Reply:
    return Reply(status=code, raw=json.dumps({"error": {"message": message, "type": "server_error",
                                                        "code": code}}).encode())


def slow(seconds: float, reply: Reply | None = None) -> Reply:
    """`reply` (a plain answer by default) sent only after `seconds`."""
    r = reply or text("too late")
    r.delay = seconds
    return r


def garbage(body: bytes = b"<html>502 Bad Gateway?\x00{not json") -> Reply:
    return Reply(raw=body)


class FakeOpenAI:
    """The server: start() binds 127.0.0.1:0, `url` is the base_url for ChatOpenAI."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # names lower-cased
        self.unscripted = 0  # requests that found the queue empty (answered 500)
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    def script(self, *replies: Reply) -> FakeOpenAI:
        with self._lock:
            self.replies.extend(replies)
        return self

    @property
    def pending(self) -> int:
        return len(self.replies)

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        server.block_on_close = False  # a reply still sleeping must not hold up stop()
        self._server = server
        # a short poll so stop() (shutdown) returns quickly after each test
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                         name="fake-openai").start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes replies sleeping in slow()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def chat_model(self, **kwargs: Any) -> Any:
        """A ChatOpenAI pointed at this server (no retries, so one reply = one call)."""
        from langchain_openai import ChatOpenAI

        opts: dict[str, Any] = {"model": MODEL, "api_key": "x", "max_retries": 0, "timeout": 10,
                                **kwargs}
        return ChatOpenAI(base_url=self.url, **opts)

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply | None:
        with self._lock:
            self.requests.append(body)
            self.headers.append({k.lower(): v for k, v in headers.items()})
            if self.replies:
                return self.replies.popleft()
            self.unscripted += 1
            return None

    def _wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    def new_id(self) -> int:
        return next(self._ids)


def _message(reply: Reply, call_ids: list[str]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        msg["tool_calls"] = [
            {"id": cid, "type": "function",
             "function": {"name": name, "arguments": _args(args)}}
            for cid, (name, args) in zip(call_ids, reply.tool_calls, strict=True)]
    return msg


def _args(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _usage(reply: Reply) -> dict[str, int] | None:
    if reply.usage is None:
        return None
    p, c = reply.usage
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


def completion(reply: Reply, n: int) -> dict[str, Any]:
    """The non-streaming chat.completion body."""
    call_ids = [f"call_{n}_{i}" for i in range(len(reply.tool_calls))]
    body: dict[str, Any] = {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1_700_000_000, "model": MODEL,
        "choices": [{"index": 0, "message": _message(reply, call_ids),
                     "finish_reason": "tool_calls" if reply.tool_calls else "stop"}]}
    if (u := _usage(reply)) is not None:
        body["usage"] = u
    return body


def chunks(reply: Reply, n: int, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The chat.completion.chunk sequence for `stream: true` (tool arguments in two pieces)."""
    head = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": MODEL}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    if reply.content:
        yield chunk({"content": reply.content})
    for i, (name, args) in enumerate(reply.tool_calls):
        raw = _args(args)
        cut = len(raw) // 2
        yield chunk({"tool_calls": [{"index": i, "id": f"call_{n}_{i}", "type": "function",
                                     "function": {"name": name, "arguments": raw[:cut]}}]})
        yield chunk({"tool_calls": [{"index": i, "function": {"arguments": raw[cut:]}}]})
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    if include_usage and (u := _usage(reply)) is not None:
        yield {**head, "choices": [], "usage": u}


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {"_unparsed": raw.decode(errors="replace")}
            reply = fake._next(body, dict(self.headers.items()))
            if reply is None:
                reply = status(500, "fake_openai: no scripted response left")
            if reply.delay:
                fake._wait(reply.delay)
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._answer(reply, body)  # a client that timed out is gone: nothing to answer

        def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
            n = fake.new_id()
            if reply.raw is not None or reply.status != 200:
                self._send(reply.status, reply.raw or b"", "application/json")
            elif body.get("stream"):
                self._stream(reply, n, bool((body.get("stream_options") or {}).get("include_usage")))
            else:
                self._send(200, json.dumps(completion(reply, n)).encode(), "application/json")

        def _send(self, code: int, data: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, reply: Reply, n: int, include_usage: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends when the connection closes
            for c in chunks(reply, n, include_usage):
                self.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


@pytest.fixture(name="fake_openai")
def fake_openai_fixture() -> Iterator[FakeOpenAI]:
    """A started FakeOpenAI, stopped after the test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
