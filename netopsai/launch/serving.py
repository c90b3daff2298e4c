"""netopsai commands that serve other programs: `api` (HTTP, FastAPI), `tokens` (its bearer
tokens) and `mcp` (an MCP server over stdio or Streamable HTTP); registered by the launcher
(launch/app.py), which alone may start the API and hand it the Slack poster. Heavy imports stay
inside the commands."""

from __future__ import annotations

from typing import Annotated, Any

import typer


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    app.command("mcp")(mcp_cmd)
    app.command("api")(api_cmd)
    tok = typer.Typer(no_args_is_help=True, help="Bearer tokens for `netopsai api`.")
    app.add_typer(tok, name="tokens")
    tok.command("create")(token_create)
    tok.command("list")(token_list)
    tok.command("revoke")(token_revoke)


def api_cmd(host: Annotated[str, typer.Option(help="Address to bind")] = "127.0.0.1",
            port: Annotated[int, typer.Option(help="Port")] = 8080) -> None:
    """The HTTP API (OpenAPI docs at /docs): ask (JSON or server-sent events), tools, alarms and
    cases, batch jobs, incident confirm. Callers need a token from `netopsai tokens create`;
    the same API answers the home's owner on $NETOPSAI_HOME/api.sock with none."""
    import os

    import uvicorn

    from netopsai.api import tokens
    from netopsai.api.http import build_api
    from netopsai.api.limits import GRACEFUL_S, uvicorn_options
    from netopsai.api.socket_server import local_socket
    from netopsai.copilot.frontend import frontend_copilot, store_engine
    from netopsai.launch.fronts import check_port

    check_port(port)
    os.environ.setdefault("NETOPSAI_EMBED_MODEL", "off")
    copilot = frontend_copilot(first_run_lab=True)
    engine = store_engine()
    if not any(t.revoked_at is None for t in tokens.listing(engine)):
        typer.echo("no API token yet: every call will be refused until `netopsai tokens create "
                   "NAME` makes one", err=True)
    copilot.warm_up()
    typer.echo(f"netopsai API on http://{host}:{port} (docs at /docs)")
    triage = _triage(copilot)
    with local_socket(copilot, triage):  # a second app instance, tokenless, on the socket only
        uvicorn.run(build_api(copilot, engine, triage), host=host, port=port, log_level="warning",
                    timeout_graceful_shutdown=GRACEFUL_S,  # then open connections are closed
                    **uvicorn_options())  # connections capped, headers timed


def owner_socket(copilot: Any) -> Any:
    """The API on $NETOPSAI_HOME/api.sock beside the web app (`netopsai serve`), on its copilot:
    the owner's thin `ask` and `tool` answered warm. Started here, by the launcher, so the web
    app does not import the API."""
    from netopsai.api.socket_server import local_socket

    return local_socket(copilot)


def _triage(copilot: Any) -> Any:
    """Auto-triage when config.yaml has triage rules (they post through the Slack bot's token)."""
    from netopsai.api.triage import Triage
    from netopsai.config.load import load_netconfig
    from netopsai.ui.slack.triage_post import slack_poster

    settings = load_netconfig().settings.triage
    return Triage(copilot, settings, slack_poster(copilot.backends.zone)) if settings.rules else None


def token_create(name: Annotated[str, typer.Argument(help="Who or what uses it, e.g. alertmanager")],
                 scope: Annotated[list[str] | None, typer.Option(
                     help="read (every read-only call; the default), confirm (incident memory)")] = None,
                 ) -> None:
    """Make a token; it is printed once (only its hash is kept)."""
    from netopsai.api import tokens
    from netopsai.copilot.frontend import store_engine

    typer.echo(tokens.create(store_engine(), name, scope or ["read"]))


def token_list() -> None:
    """The tokens' names, scopes and state (never the tokens)."""
    from netopsai.api import tokens
    from netopsai.cli.zone import network_zone
    from netopsai.common.localtime import at
    from netopsai.copilot.frontend import store_engine

    rows = tokens.listing(store_engine())
    if not rows:
        typer.echo("no tokens")
    zone = network_zone()  # times on the network's clock, its zone named
    for t in rows:
        state = f"revoked {at(t.revoked_at, zone)}" if t.revoked_at else "active"
        typer.echo(f"{t.name}\t{t.scopes}\t{state}\tcreated {at(t.created_at, zone)}")


def token_revoke(name: Annotated[str, typer.Argument(help="The token's name")]) -> None:
    """Revoke a token: calls with it are refused from now on."""
    from netopsai.api import tokens
    from netopsai.copilot.frontend import store_engine

    tokens.revoke(store_engine(), name)
    typer.echo(f"revoked {name}")


def mcp_cmd(http: Annotated[bool, typer.Option(
                "--http", help="Same as --transport http")] = False,
            transport: Annotated[str, typer.Option(
                help="stdio (the default: the local user who starts it is the caller) or http "
                     "(Streamable HTTP at http://HOST:PORT/mcp; callers need a token with the "
                     "read scope from `netopsai tokens create`)")] = "stdio",
            host: Annotated[str, typer.Option(help="http: address to bind")] = "127.0.0.1",
            port: Annotated[int, typer.Option(help="http: port")] = 8765) -> None:
    """An MCP server: the read-only tools (metadata, telemetry, traceroute, changelog, alarms,
    events) and `diagnose` (a question in plain words -> the cited answer), for any MCP client.
    stdio by default (stdout is the protocol: messages go to stderr)."""
    import os

    from netopsai.api.mcp_server import run_http, run_stdio
    from netopsai.common.errors import NetopsError
    from netopsai.copilot.frontend import frontend_copilot, store_engine

    if transport not in ("stdio", "http"):
        raise NetopsError(f"--transport must be stdio or http, not {transport!r}")
    from netopsai.launch.fronts import check_port

    check_port(port)
    engine = store_engine() if http or transport == "http" else None
    if engine is not None:
        _mcp_http_guard(engine, host)
    os.environ.setdefault("NETOPSAI_EMBED_MODEL", "off")  # a tool server: no torch start-up
    copilot = frontend_copilot(first_run_lab=True)
    if engine is not None:
        run_http(copilot, engine, host, port)
    else:
        run_stdio(copilot)


def _mcp_http_guard(engine: Any, host: str) -> None:
    """Before anything starts: with no active token every HTTP call would be refused; on
    loopback that is said and the server runs (a token can be made meanwhile), but on any other
    address it is refused outright, so a shared server never comes up open or useless."""
    import ipaddress

    from netopsai.api import tokens
    from netopsai.common.errors import NetopsError

    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if any(t.revoked_at is None for t in tokens.listing(engine)):
        if not loopback:
            typer.echo(f"serving MCP on {host} over plain HTTP: tokens cross the network in clear "
                       "unless a TLS proxy is in front", err=True)
        return
    if not loopback:
        raise NetopsError(f"refusing to serve MCP on {host} without authentication: no API token "
                          "exists; make one with `netopsai tokens create NAME` first")
    typer.echo("no API token yet: every MCP call will be refused until `netopsai tokens create "
               "NAME` makes one", err=True)
