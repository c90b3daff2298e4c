"""The command line's own core commands: `tool`, `ask` and `chat`, registered into the
`netopsai` command by the launcher (netopsai/launch/app.py) like every other command group.
Heavy imports (gradio, langgraph) stay out of `tool` and `lab`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible
from netopsai.tools import tool_names

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.copilot.evidence import Evidence
    from netopsai.copilot.service import Copilot


def register(app: typer.Typer, lab_app: typer.Typer) -> None:
    """Add the core commands (the launcher lists them first in the help)."""
    app.command("tool")(tool_cmd)
    app.command("ask")(ask_cmd)
    app.command("chat")(chat_cmd)


def _engine() -> Engine:
    from netopsai.copilot.frontend import store_engine

    return store_engine()


def _out(text: str) -> None:
    typer.echo(text)


TOOL_HELP = " | ".join(tool_names())


def tool_cmd(name: Annotated[str, typer.Argument(help=TOOL_HELP)],
             args: Annotated[str, typer.Argument(help="JSON arguments")] = "{}",
             as_json: Annotated[bool, typer.Option("--json", help="Print the Evidence as JSON")] = False,
             fmt: Annotated[str, typer.Option("--format", help=(
                 "table (full width, every row, when not a terminal), csv (every row and "
                 "column) or json"))] = "table",
             ) -> None:
    """Call one tool and print its Evidence."""
    if fmt not in ("table", "csv", "json"):
        raise NetopsError(f"--format must be table, csv or json, not {fmt!r}")
    ev = _run_tool(name, args)
    if as_json or fmt == "json":
        _out(ev.to_json())
    elif not ev.errors or ev.partial:
        from netopsai.cli.render import out_console, render_evidence, write_csv

        if fmt == "csv":
            write_csv(ev, sys.stdout)
        else:
            from netopsai.cli.zone import network_zone

            render_evidence(ev, out_console(), network_zone())
    if ev.errors and not ev.partial:
        raise NetopsError(ev.errors[0])
    for problem in ev.errors:  # partial: what could not be read (e.g. a device that timed out)
        typer.echo(f"warning: {visible(problem)}", err=True)


def _copilot() -> Copilot:
    """The copilot on the configured backends (the store's lab by default), the LLM when one is
    configured, its threads kept in NETOPSAI_HOME (resumable). Shared with Gradio and Slack."""
    from netopsai.copilot.frontend import frontend_copilot

    return frontend_copilot()  # a clear error when the store holds no network


def _run_tool(name: str, args: str) -> Evidence:
    """On the server NETOPSAI_URL names, else here on the configured backends (the lab by
    default; a clear error when the store is empty)."""
    import json

    from netopsai.cli import remote
    from netopsai.copilot.evidence import Evidence

    if remote.server() is not None:
        try:
            parsed = json.loads(args or "{}")
        except json.JSONDecodeError:
            parsed = None  # the local path words the error
        if isinstance(parsed, dict):
            got = remote.call(f"/api/tools/{name}", parsed)
            if got is not None:
                return Evidence.model_validate(got)
    from netopsai.copilot.doors import call_tool
    from netopsai.copilot.frontend import frontend_backends

    return call_tool(frontend_backends(_engine()), name, args)


def _answer(question: str, thread: str) -> dict[str, Any]:
    """The whole answer, from the server NETOPSAI_URL names or from a copilot in this process."""
    import os

    from netopsai.cli import remote

    got = remote.call("/api/ask", {"question": question, "thread": thread})
    if got is not None:
        got.pop("thread", None)
        return got
    # one question, one process: a warm sandbox worker would start and never be reused, and the
    # dense incident-memory model costs ~10 s of torch import (long-lived front ends load both once)
    os.environ.setdefault("NETOPSAI_SANDBOX_WARM", "false")
    os.environ.setdefault("NETOPSAI_EMBED_MODEL", "off")
    return dict(_copilot().answer(question, thread))  # printed as JSON, as the server's reply is


def ask_cmd(question: Annotated[str, typer.Argument(help="The question, in plain words")],
            as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON")] = False,
            thread: Annotated[str | None, typer.Option(
                help="Conversation thread id (default: a new conversation)")] = None,
            resume: Annotated[bool, typer.Option(
                "--continue", help="Follow up in the conversation of the last `ask`")] = False,
            ) -> None:
    """Ask one question through the whole copilot. Each run is a new conversation unless
    --thread names one or --continue follows up the last."""
    import json

    from netopsai.cli.threads import pick_thread

    if not question.strip():
        raise NetopsError("the question is empty")
    thread = pick_thread(thread, resume)
    result = _answer(question, thread)
    if as_json:  # JSON escapes every control character itself
        _out(json.dumps({**result, "thread": thread}, default=str))
    else:
        from netopsai.cli.render import print_answer

        typer.echo(f"thread {thread}: follow up with --continue", err=True)
        print_answer(str(result["answer"]))  # the headline first, then the answer
    if result["input_errors"]:  # the answer leads with it; scripts see it in the exit code
        typer.echo(f"error: {visible(result['input_errors'][0])}", err=True)
        raise typer.Exit(2)


def chat_cmd(thread: Annotated[str, typer.Option(help="Conversation thread id")] = "chat") -> None:
    """Chat in the terminal; each step shows as it happens. Ctrl-D or 'exit' to leave."""
    from netopsai.cli.chat import run_chat
    from netopsai.cli.threads import check_thread

    run_chat(_copilot(), check_thread(thread))
