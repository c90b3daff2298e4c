"""netopsai commands that serve other programs: `mcp` (an MCP server over stdio or Streamable
HTTP). Heavy imports stay inside the commands."""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)


def mcp_cmd(http: Annotated[bool, typer.Option(
                "--http", help="Streamable HTTP at http://HOST:PORT/mcp instead of stdio")] = False,
            host: Annotated[str, typer.Option(help="--http: address to bind")] = "127.0.0.1",
            port: Annotated[int, typer.Option(help="--http: port")] = 8765) -> None:
    """An MCP server: the read-only tools (metadata, telemetry, traceroute, changelog, alarms,
    events) and `diagnose` (a question in plain words -> the cited answer), for any MCP client.
    stdio by default (stdout is the protocol: messages go to stderr)."""
    import os

    from netopsai.api.mcp_server import run_http, run_stdio
    from netopsai.frontend import frontend_copilot

    os.environ.setdefault("NETOPSAI_EMBED_MODEL", "off")  # a tool server: no torch start-up
    copilot = frontend_copilot(first_run_lab=True)
    if http:
        run_http(copilot, host, port)
    else:
        run_stdio(copilot)
