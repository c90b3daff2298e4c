"""`netopsai mcp`: the copilot's tools and `diagnose` as MCP tools (the official `mcp` SDK),
over stdio or Streamable HTTP, so an IDE, a desktop assistant or another agent can use the
same evidence an on-call sees.

Who asks: on stdio, the local user who started the server (threads `mcp:ID`, as before). Over
HTTP every request carries a bearer token of `netopsai tokens` with the `read` scope (checked by
the SDK's bearer middleware against our token store); threads are kept under the token's name
(`mcp:NAME:ID`), and an MCP session answers only the token that opened it. Request bodies are
sized before they are read (limits.BodyLimit, NETOPSAI_HTTP_MAX_BODY_KB).

Each call runs on a daemon thread (limits.Work) within the question's time budget: a server
told to stop (SIGTERM, Ctrl-C) answers a running call at once with an error result saying so,
and the call stops at its next step, so the server exits promptly instead of waiting for it.

The low-level server is used, not the decorator one: each tool's input schema is the exact
one the LLM planner binds to (tools/base.py Tool.schema), and the arguments are checked by
the tools' own models, whose one-line errors come back as the result, never an exception."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server import Server

from netopsai.api.limits import (
    GRACEFUL_S,
    BodyLimit,
    Busy,
    HttpLimits,
    Slots,
    Work,
    uvicorn_options,
)
from netopsai.copilot import threads
from netopsai.copilot.payload import answer_of
from netopsai.copilot.service import Stop, Stopped

if TYPE_CHECKING:
    from mcp.server import ServerRequestContext
    from mcp.server.auth.provider import AccessToken
    from sqlalchemy import Engine

    from netopsai.copilot.service import Copilot

DIAGNOSE = "diagnose"
DIAGNOSE_HELP = (
    "Ask netopsai a network question in plain words, as an on-call would: a connectivity "
    "problem ('10.1.3.20 to 10.2.1.40 not communicating'), a device ('what is wrong with "
    "dc1-spine-04?'), alarms, ports, changes. Returns the cited answer (markdown), the root "
    "cause when one is confirmed (label, device, interface, confidence) and the evidence. "
    "Read-only: nothing on the network is changed.")
DIAGNOSE_SCHEMA = {"type": "object", "required": ["question"], "additionalProperties": False,
                   "properties": {
                       "question": {"type": "string", "description": "The question, in plain words"},
                       "thread": {"type": "string", "description": (
                           "A conversation id (the result's `thread`): a follow-up in the same "
                           "thread sees the earlier questions ('and its upstream switch?'); "
                           "without one each question is a new conversation")}}}
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                  idempotent_hint=True, open_world_hint=False)


def tool_list() -> list[types.Tool]:
    """Every registered tool with its own schema, then `diagnose`."""
    from netopsai.copilot.doors import tool_catalog

    tools = [types.Tool(name=t.name, description=t.description,
                        input_schema=t.schema()["parameters"], annotations=READ_ONLY)
             for t in tool_catalog().values()]
    return [*tools, types.Tool(name=DIAGNOSE, description=DIAGNOSE_HELP,
                               input_schema=DIAGNOSE_SCHEMA,
                               annotations=READ_ONLY.model_copy(update={"idempotent_hint": False}))]


def call(copilot: Copilot, name: str, arguments: dict[str, Any],
         caller: str | None = None, stop: Stop | None = None) -> types.CallToolResult:
    """One tool call, synchronously: the evidence (or the answer) as structured content and its
    summary as text; bad arguments or an unknown tool are an error result naming what was wrong.
    `caller`: the token's name over HTTP (its threads are its own), None on stdio; `stop`: when
    it says so, `diagnose` stops between two steps."""
    from netopsai.common.errors import NetopsError
    if name == DIAGNOSE:
        question = str(arguments.get("question") or "").strip()
        if not question:
            return _error("diagnose needs a question")
        thread = str(arguments.get("thread") or threads.new_id("mcp"))  # none given: a new one
        try:
            out = answer_of(copilot.answer(question, threads.key("mcp", caller or "", thread),
                                           stop=stop))
        except NetopsError as exc:
            return _error(str(exc))
        return types.CallToolResult(content=[types.TextContent(text=out["answer"])],
                                    structured_content=json.loads(json.dumps(
                                        {**out, "thread": thread}, default=str)))
    known = copilot.tools()
    if name not in known:
        return _error(f"unknown tool {name!r}; tools: {', '.join([*known, DIAGNOSE])}")
    ev = copilot.tool(name, arguments)
    text = ev.summary + "".join(f"\nerror: {e}" for e in ev.errors)
    return types.CallToolResult(content=[types.TextContent(text=text)],
                                structured_content=ev.model_dump(mode="json"),
                                is_error=bool(ev.errors))


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def build_server(copilot: Copilot, slots: Slots | None = None) -> Server[Any]:
    """The MCP server over one copilot. Tool calls run on a thread of their own (limits.Work):
    the tools and the graph are synchronous, the event loop must keep serving other sessions,
    and a stopping server must not wait for them. At most NETOPSAI_HTTP_MAX_ASKS calls run at
    once, NETOPSAI_HTTP_MAX_ASKS_PER_TOKEN of one token (`slots`; an error result past them,
    before any work). A call the client cancels (notifications/cancelled: the SDK cancels the
    handler's task) sets the work's stop flag; the step in progress ends, then the work stops
    and gives its slot back. A client that only drops its HTTP connection is not noticed (the
    SDK gives the handler no cheap signal of it): its call runs to the budget, in its slot."""
    tools = tool_list()
    slots = slots or Slots.from_env()

    async def list_tools(_ctx: ServerRequestContext[Any],
                         _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        args, caller = dict(params.arguments or {}), _caller(_ctx)
        budget = copilot.limits.ask_budget_s
        try:
            release = slots.take(caller or "local")
        except Busy as exc:
            return _error(str(exc))
        work = Work(lambda stop: iter([call(copilot, params.name, args, caller, stop)]),
                    release, budget)
        try:
            return [r async for r in work.results(budget)][0]
        except Stopped as exc:  # the server is stopping, or the budget is spent
            return _error(str(exc))

    return Server("netopsai", on_list_tools=list_tools, on_call_tool=call_tool)


def _caller(ctx: ServerRequestContext[Any]) -> str | None:
    """The token's name the HTTP request was authenticated with (the bearer middleware put it in
    the request's scope); None on stdio, where there is no request and no token."""
    request = getattr(ctx, "request", None)
    user = request.scope.get("user") if request is not None else None
    token = getattr(user, "access_token", None)
    return str(token.client_id) if token is not None else None


class StoreTokens:
    """The SDK's TokenVerifier over `netopsai tokens`: a token's name is the MCP client id."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        from netopsai.api import tokens

        who = await anyio.to_thread.run_sync(tokens.verify, self.engine, token)
        if who is None:
            return None
        # the SDK keeps the token with the session: a digest serves as well and is not a secret
        return AccessToken(token=hashlib.sha256(token.encode()).hexdigest(), client_id=who.name,
                           scopes=sorted(who.scopes))


def http_app(copilot: Copilot, engine: Engine, host: str, port: int) -> Any:
    """The Streamable HTTP app: bodies over NETOPSAI_HTTP_MAX_BODY_KB refused (413), bearer
    tokens with the `read` scope required on /mcp (401 or 403 otherwise), DNS-rebinding
    protection on for loopback. The tokens are issued by this
    server's own store, so the issuer the SDK asks for is this server; no OAuth routes."""
    from mcp.server.auth.settings import AuthSettings

    name = f"[{host}]" if ":" in host else host
    auth = AuthSettings(issuer_url=f"http://{name}:{port}", resource_server_url=None,  # type: ignore[arg-type]
                        required_scopes=["read"])
    app = build_server(copilot).streamable_http_app(host=host, auth=auth,
                                                    token_verifier=StoreTokens(engine))
    return BodyLimit(app, HttpLimits.from_env().max_body)


def run_stdio(copilot: Copilot) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(copilot)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    anyio.run(main)


def run_http(copilot: Copilot, engine: Engine, host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp, bearer tokens required (http_app). On SIGTERM
    running calls answer that the server is stopping; a connection still open after
    GRACEFUL_S is closed."""
    import uvicorn

    app = http_app(copilot, engine, host, port)
    print(f"netopsai MCP server on http://{host}:{port}/mcp", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=GRACEFUL_S,
                **uvicorn_options())  # connections capped, headers timed
