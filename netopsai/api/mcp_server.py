"""`netopsai mcp`: the copilot's tools and `diagnose` as MCP tools (the official `mcp` SDK),
over stdio or Streamable HTTP, so an IDE, a desktop assistant or another agent can use the
same evidence an on-call sees.

The low-level server is used, not the decorator one: each tool's input schema is the exact
one the LLM planner binds to (tools/base.py Tool.schema), and the arguments are checked by
the tools' own models, whose one-line errors come back as the result, never an exception."""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server import Server

if TYPE_CHECKING:
    from mcp.server import ServerRequestContext

    from netopsai.service import Copilot

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
    from netopsai.tools.registry import REGISTRY

    tools = [types.Tool(name=t.name, description=t.description,
                        input_schema=t.schema()["parameters"], annotations=READ_ONLY)
             for t in REGISTRY.values()]
    return [*tools, types.Tool(name=DIAGNOSE, description=DIAGNOSE_HELP,
                               input_schema=DIAGNOSE_SCHEMA,
                               annotations=READ_ONLY.model_copy(update={"idempotent_hint": False}))]


def call(copilot: Copilot, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
    """One tool call, synchronously: the evidence (or the answer) as structured content and its
    summary as text; bad arguments or an unknown tool are an error result naming what was wrong."""
    from netopsai.errors import NetopsError
    from netopsai.tools.registry import REGISTRY, run_tool

    if name == DIAGNOSE:
        question = str(arguments.get("question") or "").strip()
        if not question:
            return _error("diagnose needs a question")
        thread = str(arguments.get("thread") or uuid.uuid4().hex[:12])  # none given: a new one
        try:
            out = copilot.answer(question, f"mcp:{thread}")
        except NetopsError as exc:
            return _error(str(exc))
        return types.CallToolResult(content=[types.TextContent(text=out["answer"])],
                                    structured_content=json.loads(json.dumps(
                                        {**out, "thread": thread}, default=str)))
    if name not in REGISTRY:
        return _error(f"unknown tool {name!r}; tools: {', '.join([*REGISTRY, DIAGNOSE])}")
    ev = run_tool(name, arguments, copilot.backends)
    text = ev.summary + "".join(f"\nerror: {e}" for e in ev.errors)
    return types.CallToolResult(content=[types.TextContent(text=text)],
                                structured_content=ev.model_dump(mode="json"),
                                is_error=bool(ev.errors))


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def build_server(copilot: Copilot) -> Server[Any]:
    """The MCP server over one copilot. Tool calls run in a worker thread: the tools and the
    graph are synchronous, and the event loop must keep serving other sessions."""
    tools = tool_list()

    async def list_tools(_ctx: ServerRequestContext[Any],
                         _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        args = dict(params.arguments or {})
        return await anyio.to_thread.run_sync(call, copilot, params.name, args)

    return Server("netopsai", on_list_tools=list_tools, on_call_tool=call_tool)


def run_stdio(copilot: Copilot) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(copilot)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    anyio.run(main)


def run_http(copilot: Copilot, host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp (DNS-rebinding protection on for loopback)."""
    import uvicorn

    app = build_server(copilot).streamable_http_app(host=host)
    print(f"netopsai MCP server on http://{host}:{port}/mcp", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
