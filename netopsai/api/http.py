"""`netopsai api`: the copilot over HTTP (FastAPI; OpenAPI docs at /docs). Every call but
/api/health needs a bearer token (`netopsai tokens create`), except on the owner's Unix socket
(`local`); every call is read-only on the network. A caller's threads are its own: ids are kept
under the token's name."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field, ValidationError
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from netopsai.api import tokens
from netopsai.api.jobs import JobNotFound, Jobs, TooManyJobs, check_lines
from netopsai.api.limits import BodyLimit, Busy, HttpLimits, Slots, Work
from netopsai.api.triage import PayloadError, Triage
from netopsai.common.errors import NetopsError
from netopsai.copilot import threads
from netopsai.copilot.service import Stop, Stopped

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.copilot.service import Copilot


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
    sized = HttpLimits.from_env()  # every body is sized before any of it is parsed
    api.add_middleware(BodyLimit, limit=sized.max_body, routes=sized.api_routes())
    bearer = HTTPBearer(auto_error=False)
    jobs = Jobs(copilot.backends)
    slots = Slots(sized.max_asks, sized.max_asks_per_token)  # asks running at once
    api.state.slots = slots

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
        spent (503, naming which). At most NETOPSAI_HTTP_MAX_ASKS_PER_TOKEN asks of one token
        run at once (429 past it) and NETOPSAI_HTTP_MAX_ASKS in all (503), refused before any
        work; an ask whose caller left holds its slot until its step in progress ends."""
        copilot.check_question(body.question, body.window or "")  # sized before any work
        if not body.question.strip():
            raise NetopsError("the question is empty")
        thread = body.thread or threads.new_id("api")
        key = thread if local else threads.key("api", who.name, thread)
        budget = copilot.limits.ask_budget_s
        try:
            release = slots.take(who.name)
        except Busy as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        if "text/event-stream" in request.headers.get("accept", ""):
            return EventSourceResponse(_events(Work(
                lambda stop: _stream(copilot, body, key, thread, who.name, stop), release, budget),
                budget))
        work = Work(lambda stop: iter([copilot.answer(body.question, key, who.name,
                                                      body.window or "", stop)]), release, budget)
        try:
            out = [o async for o in work.results(budget, request.is_disconnected)][0]
        except Stopped as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        return {**out, "thread": thread}

    @api.post("/api/tools/{name}")
    def tool(name: str, args: dict[str, Any], _who: tokens.Caller = caller("read")) -> Any:
        """One tool call; its Evidence as `netopsai tool NAME --json` prints it (422 when the
        tool reports an error, the evidence saying which)."""
        known = copilot.tools()
        if name not in known:
            raise HTTPException(404, f"unknown tool {name!r}; tools: {', '.join(known)}")
        ev = copilot.tool(name, args)
        return JSONResponse(ev.model_dump(mode="json"), status_code=422 if ev.errors else 200)

    @api.get("/api/alarms")
    def alarms(window: str = "24h", state: str = "any", site: str | None = None,
               category: str | None = None, _who: tokens.Caller = caller("read")) -> Any:
        """The alarms tool over a window, grouped into cases (`facts.cases`)."""
        ev = copilot.alarms(window, state, site, category)
        return JSONResponse(ev.model_dump(mode="json"), status_code=422 if ev.errors else 200)

    @api.exception_handler(JobNotFound)
    def no_job(_req: Request, exc: JobNotFound) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=404)

    @api.exception_handler(TooManyJobs)
    def too_many(_req: Request, exc: TooManyJobs) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=429)

    @api.post("/api/batch", status_code=202, openapi_extra={"requestBody": {
        "required": True, "content": {"application/json": {"schema": BatchBody.model_json_schema()}}}})
    async def batch(request: Request, who: tokens.Caller = caller("read")) -> dict[str, Any]:
        """Start a batch job; it is the calling token's (other tokens get 404 for it). The
        token's running jobs (429 at the cap) and the body's lines (at most MAX_PAIRS) are
        checked before the body is parsed."""
        jobs.room(who.name)
        raw = await request.body()
        # a line of pairs is a JSON-escaped \n (or a raw one): counted in the bytes, unparsed
        check_lines(raw.count(b"\\n") + raw.count(b"\n") + 1)
        try:
            body = BatchBody.model_validate_json(raw)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "body"
            raise NetopsError(f"the request body: {where}: {err['msg']}") from None
        job = await run_in_threadpool(jobs.submit, body.pairs, body.source, who.name)
        return job.status()

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
        key = body.thread if local else threads.key("api", who.name, body.thread)
        row = copilot.confirm(key, f"api:{who.name}", "api")
        return {"incident": row.id, "label": row.label, "device": row.device}

    return api


def _stream(copilot: Copilot, body: AskBody, key: str, thread: str, user: str,
            stop: Stop) -> Iterator[dict[str, str]]:
    for step in copilot.ask(body.question, key, user, body.window or "", stop):
        if step.node != "done":
            yield {"event": "step", "data": json.dumps(step.as_dict(), default=str)}
    out = copilot.result(key)
    yield {"event": "answer", "data": json.dumps({**out, "thread": thread}, default=str)}


async def _events(work: Work, budget: float) -> AsyncIterator[dict[str, str]]:
    """The SSE stream; sse-starlette closes it when the caller goes away (and the work stops;
    a stream never started stops at the budget)."""
    try:
        async for event in work.results(budget):
            yield event
    except NetopsError as exc:
        yield {"event": "error", "data": json.dumps({"error": str(exc)})}
