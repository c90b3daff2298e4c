"""`netopsai api`: the copilot over HTTP (FastAPI; OpenAPI docs at /docs). Every call but
/api/health needs a bearer token (`netopsai tokens create`), except on the owner's Unix socket
(`local`); every call is read-only on the network. A caller's threads are its own: ids are kept
under the token's name."""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from sse_starlette.sse import EventSourceResponse

from netopsai.api import tokens
from netopsai.api.jobs import JobNotFound, Jobs, TooManyJobs
from netopsai.api.triage import PayloadError, Triage
from netopsai.errors import NetopsError
from netopsai.service import Stop, Stopped

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.service import Copilot


OWNER = tokens.Caller("local", frozenset(tokens.SCOPES))  # the socket's only possible caller


class AskBody(BaseModel):
    question: str = Field(description="The question, in plain words")
    thread: str | None = Field(default=None, description="Conversation id; a follow-up passes the "
                               "`thread` of the earlier answer. None: a new conversation")
    window: str | None = Field(default=None, description="A window for a question that names "
                               "none, in words: 'in the last 6h', 'between … and …'")


class BatchBody(BaseModel):
    pairs: str = Field(description="src,dst pairs (or single IPs), one a line; CSV with a "
                       "header is fine", max_length=50_000_000)
    source: str | None = Field(default=None, description="Probe source for single IPs")


class ConfirmBody(BaseModel):
    thread: str = Field(description="The thread whose last diagnosis the caller confirms")


def build_api(copilot: Copilot, engine: Engine, triage: Triage | None = None, *,
              local: bool = False) -> FastAPI:
    """The API over one copilot; tokens are checked against `engine`'s store; `triage` takes
    Alertmanager's webhook when auto-triage rules are configured. `local`: the instance only the
    owner's Unix socket serves (netopsai.api.socket_server), where the socket file's permission
    is the authentication: no token, every scope, and the thread ids of the owner's standalone
    `ask` (so --continue follows up whether or not a server answered)."""
    api = FastAPI(title="netopsai", version="1", description=__doc__)
    bearer = HTTPBearer(auto_error=False)
    jobs = Jobs(copilot.backends)

    def caller(scope: str) -> Any:
        def check(cred: HTTPAuthorizationCredentials | None = Depends(bearer)) -> tokens.Caller:
            if local:
                return OWNER
            who = tokens.verify(engine, cred.credentials) if cred else None
            if who is None:
                raise HTTPException(401, "a valid bearer token is needed (netopsai tokens create)",
                                    headers={"WWW-Authenticate": "Bearer"})
            if scope not in who.scopes:
                raise HTTPException(403, f"token {who.name!r} lacks the {scope!r} scope")
            return who
        return Depends(check)

    @api.exception_handler(NetopsError)
    def bad_input(_req: Request, exc: NetopsError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @api.get("/api/health")
    def health() -> dict[str, Any]:
        return {"status": "ok", "clock": copilot.backends.inventory.clock().isoformat()}

    @api.post("/api/ask")
    async def ask(body: AskBody, request: Request, who: tokens.Caller = caller("read")) -> Any:
        """The cited answer as `ask --json` prints it; with `Accept: text/event-stream`, each
        step as an event (`step`) as it completes, then the answer (`answer`), or `error`.
        The work stops when the caller goes away, the server stops or the time budget is
        spent (503, naming which)."""
        copilot.check_question(body.question, body.window or "")  # sized before any work
        if not body.question.strip():
            raise NetopsError("the question is empty")
        thread = body.thread or _new_thread()
        key = thread if local else f"api:{who.name}:{thread}"
        budget = copilot.limits.ask_budget_s
        if "text/event-stream" in request.headers.get("accept", ""):
            return EventSourceResponse(_events(
                lambda stop: _stream(copilot, body, key, thread, who.name, stop), budget))
        work = _Work(lambda stop: iter([copilot.answer(body.question, key, who.name,
                                                       body.window or "", stop)]))
        try:
            out = [o async for o in work.results(budget, request)][0]
        except Stopped as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        return {**out, "thread": thread}

    @api.post("/api/tools/{name}")
    def tool(name: str, args: dict[str, Any], _who: tokens.Caller = caller("read")) -> Any:
        """One tool call; its Evidence as `netopsai tool NAME --json` prints it (422 when the
        tool reports an error, the evidence saying which)."""
        from netopsai.tools.registry import REGISTRY, run_tool

        if name not in REGISTRY:
            raise HTTPException(404, f"unknown tool {name!r}; tools: {', '.join(REGISTRY)}")
        ev = run_tool(name, args, copilot.backends)
        return JSONResponse(ev.model_dump(mode="json"), status_code=422 if ev.errors else 200)

    @api.get("/api/alarms")
    def alarms(window: str = "24h", state: str = "any", site: str | None = None,
               category: str | None = None, _who: tokens.Caller = caller("read")) -> Any:
        """The alarms tool over a window, grouped into cases (`facts.cases`)."""
        args = {"window": window, "state": state, "site": site, "category": category,
                "correlate": True}
        return tool("alarms", {k: v for k, v in args.items() if v is not None}, _who)

    @api.exception_handler(JobNotFound)
    def no_job(_req: Request, exc: JobNotFound) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=404)

    @api.exception_handler(TooManyJobs)
    def too_many(_req: Request, exc: TooManyJobs) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=429)

    @api.post("/api/batch", status_code=202)
    def batch(body: BatchBody, who: tokens.Caller = caller("read")) -> dict[str, Any]:
        """Start a batch job; it is the calling token's (other tokens get 404 for it)."""
        return jobs.submit(body.pairs, body.source, who.name).status()

    @api.get("/api/batch/{job_id}")
    def batch_status(job_id: str, who: tokens.Caller = caller("read")) -> dict[str, Any]:
        return jobs.get(job_id, who.name).status()

    @api.get("/api/batch/{job_id}/csv", response_class=PlainTextResponse)
    def batch_csv(job_id: str, who: tokens.Caller = caller("read")) -> PlainTextResponse:
        return PlainTextResponse(jobs.get(job_id, who.name).csv(), media_type="text/csv")

    @api.delete("/api/batch/{job_id}")
    def batch_cancel(job_id: str, who: tokens.Caller = caller("read")) -> dict[str, Any]:
        """Cancel a job: pairs in flight finish, no new ones start; the CSV keeps what was done."""
        return jobs.cancel(job_id, who.name).status()

    @api.post("/api/triage/alertmanager", status_code=202)
    async def alertmanager(request: Request, _who: tokens.Caller = caller("read")) -> dict[str, Any]:
        """Alertmanager's webhook (version 4): firing alerts matching a triage rule are
        diagnosed in the background and the cited answer posted to the rule's Slack channel."""
        if triage is None:
            raise HTTPException(404, "auto-triage has no rules (config.yaml: triage.rules)")
        try:
            chosen, skipped = triage.select(await request.body())
        except PayloadError as exc:
            raise NetopsError(f"not an Alertmanager webhook payload: {exc}") from None
        triage.start(chosen)
        return {"diagnosing": [{"question": c.question, "channel": c.channel} for c in chosen],
                "skipped": skipped}

    @api.post("/api/incidents/confirm")
    def confirm(body: ConfirmBody, who: tokens.Caller = caller("confirm")) -> dict[str, Any]:
        key = body.thread if local else f"api:{who.name}:{body.thread}"
        row = copilot.confirm(key, f"api:{who.name}", "api")
        return {"incident": row.id, "label": row.label, "device": row.device}

    return api


def _new_thread() -> str:
    import uuid

    return uuid.uuid4().hex[:16]


def _stream(copilot: Copilot, body: AskBody, key: str, thread: str, user: str,
            stop: Stop) -> Iterator[dict[str, str]]:
    for step in copilot.ask(body.question, key, user, body.window or "", stop):
        if step.node != "done":
            yield {"event": "step", "data": json.dumps(step.as_dict(), default=str)}
    out = copilot.result(key)
    yield {"event": "answer", "data": json.dumps({**out, "thread": thread}, default=str)}


async def _events(steps: Callable[[Stop], Iterator[dict[str, str]]],
                  budget: float) -> AsyncIterator[dict[str, str]]:
    """The SSE stream; sse-starlette closes it when the caller goes away (and the work stops)."""
    try:
        async for event in _Work(steps).results(budget):
            yield event
    except NetopsError as exc:
        yield {"event": "error", "data": json.dumps({"error": str(exc)})}


GRACE_S = 5.0  # past the copilot's own budget (checked between steps), the caller is let go
POLL_S = 0.25


class _Work:
    """One answer on a daemon thread of its own, its results handed to the event loop: the
    handler stops waiting the moment the caller goes away, the server is told to stop or the
    budget is spent, and the work stops at its next step (Copilot checks `stop` between the
    graph's nodes). Daemon, so a step still running never holds up the process's exit (with
    a worker of the shared pool, SIGTERM waited for the answer: issue 23, B6)."""

    def __init__(self, run: Callable[[Stop], Iterator[Any]]) -> None:
        self.stop = threading.Event()
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        threading.Thread(target=self._pump, args=(run,), name="netopsai-ask", daemon=True).start()

    def _pump(self, run: Callable[[Stop], Iterator[Any]]) -> None:
        try:
            for item in run(self.stop.is_set):
                self._put("item", item)
            self._put("end", None)
        except BaseException as exc:  # handed to the handler, which answers with it
            self._put("error", exc)

    def _put(self, kind: str, value: Any) -> None:
        with suppress(RuntimeError):  # the loop is closed: nobody waits for this any more
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, value))

    async def results(self, budget: float, request: Request | None = None) -> AsyncIterator[Any]:
        deadline = self.loop.time() + budget + GRACE_S
        try:
            while True:
                try:
                    kind, value = await asyncio.wait_for(self.queue.get(), POLL_S)
                except TimeoutError:
                    await self._check(deadline, budget, request)
                    continue
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                yield value
        finally:
            self.stop.set()

    async def _check(self, deadline: float, budget: float, request: Request | None) -> None:
        if request is not None and await request.is_disconnected():
            raise Stopped("the caller went away")
        if _server_stopping():
            raise Stopped("the server is stopping; ask again when it is back")
        if self.loop.time() > deadline:
            raise Stopped(f"no answer within {budget:g} s, this server's time budget for a "
                          "question (NETOPSAI_ASK_BUDGET_S)")


def _server_stopping() -> bool:
    """Whether the uvicorn server running us was told to stop (SIGTERM, Ctrl-C): its signal
    handler is a method of the server, as sse-starlette finds it too. uvicorn waits for running
    requests before it exits, so a long answer must notice and end."""
    server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    return bool(getattr(server, "should_exit", False))
