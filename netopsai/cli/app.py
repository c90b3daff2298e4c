"""The netopsai command line. Heavy imports (gradio, langgraph) stay out of `tool` and `lab`."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.exceptions import TyperException

from netopsai.cli.failure import failure
from netopsai.cli.poll import AddressOption, EngineName, EngineOption, ray_choice
from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible
from netopsai.tools import tool_names

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from netopsai.copilot.evidence import Evidence
    from netopsai.copilot.service import Copilot

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="netopsai: a copilot for network on-calls.")
lab_app = typer.Typer(no_args_is_help=True, help="The embedded lab network.")
app.add_typer(lab_app, name="lab")


def _engine() -> Engine:
    from netopsai.copilot.frontend import store_engine

    return store_engine()


def _out(text: str) -> None:
    typer.echo(text)


STARTUP_GC_GEN0 = 50_000  # allocations between young collections (CPython's default: 700)
TOOL_HELP = " | ".join(tool_names())


@app.command("tool")
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
    return _copilot().answer(question, thread)


@app.command("ask")
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


@app.command("chat")
def chat_cmd(thread: Annotated[str, typer.Option(help="Conversation thread id")] = "chat") -> None:
    """Chat in the terminal; each step shows as it happens. Ctrl-D or 'exit' to leave."""
    from netopsai.cli.chat import run_chat
    from netopsai.cli.threads import check_thread

    run_chat(_copilot(), check_thread(thread))


@app.command("batch")
def batch_cmd(file: Annotated[Path, typer.Argument(help="IPs one per line, or CSV src,dst")],
              out: Annotated[Path | None, typer.Option("-o", "--out", help="Write results here")] = None,
              as_json: Annotated[bool, typer.Option("--json", help="JSON instead of CSV")] = False,
              resume: Annotated[bool, typer.Option(help="Skip pairs already in --out")] = False,
              concurrency: Annotated[int, typer.Option(help="Checks at once")] = 8,
              source: Annotated[str | None, typer.Option(help="Probe source for bare IPs")] = None,
              summary: Annotated[Path | None, typer.Option(
                  help="Also write the summary here, as JSON")] = None,
              engine: EngineOption = EngineName.local,
              address: AddressOption = None,
              record: Annotated[bool, typer.Option(
                  "--record", help="Also store each result with the run's time (probe history "
                  "for the reliability report)")] = False,
              ) -> None:
    """Batch connectivity checks over a list of IPs or src,dst pairs. Rows in input order; exit
    0 when every pair is reachable, 1 when some are degraded, unreachable or errors, 2 for bad
    input."""
    from netopsai.batch import cli_main

    # checks trace through the configured paths backend (netopsai.copilot.frontend; the lab by default)
    results = cli_main(_engine(), file, out=out, as_json=as_json, resume=resume,
                       concurrency=concurrency, source=source, summary=summary,
                       ray=ray_choice(engine, address), record=record)
    if any(r.status != "reachable" for r in results):
        raise typer.Exit(1)


@app.command("serve")
def serve_cmd(host: Annotated[str, typer.Option(help="Address to bind")] = "127.0.0.1",
              port: Annotated[int, typer.Option(help="Port")] = 7860) -> None:
    """The Gradio web app on the configured backends (the embedded lab, built on first run, by default)."""
    from netopsai.cli.serving import owner_socket
    from netopsai.ui.gradio.app import serve

    serve(host=host, port=check_port(port), beside=owner_socket)


@app.command("slack")
def slack_cmd(http: Annotated[bool, typer.Option("--http", help="HTTP mode instead of Socket Mode")] = False,
              host: Annotated[str, typer.Option(help="HTTP mode: address to bind")] = "127.0.0.1",
              port: Annotated[int, typer.Option(help="HTTP mode: port")] = 3000) -> None:
    """The Slack bot (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET; SLACK_APP_TOKEN for Socket Mode)."""
    from netopsai.ui.slack.app import main as slack_main

    slack_main(http=http, host=host, port=check_port(port))


def check_port(port: int) -> int:
    """A TCP port to listen on, checked before anything starts (0: any free port)."""
    if not 0 <= port <= 65535:
        raise NetopsError(f"--port {port} is not a port (0-65535)")
    return port


def _register_groups() -> None:
    """Command groups that live in their own modules: real networks (config, poll, ingest, devices,
    lab netns) and the diagnosis engine (incidents, alarms, bench). Each imports only typer here."""
    from netopsai.cli import alarms, bench, config, db, devices, incidents, ingest, jobs, netns, poll, serving
    from netopsai.cli import lab as lab_group
    from netopsai.cli import snapshots as snapshot_group

    for group in (lab_group, config, poll, ingest, devices, netns, incidents, alarms, bench, serving,
                  db, snapshot_group, jobs):
        group.register(app, lab_app)
    from netopsai.cli import report as report_group  # reliability reports

    report_group.register(app, lab_app)


_register_groups()


def main(argv: list[str] | None = None) -> int:
    """Entry point: bad input is one line on stderr and a non-zero exit, never a traceback."""
    # Loading langgraph and sqlalchemy allocates ~1M long-lived objects and few cycles; the
    # default young-generation threshold (700) re-scans them ~1,400 times, ~8% of start-up CPU.
    gc.set_threshold(STARTUP_GC_GEN0, *gc.get_threshold()[1:])
    # pydantic looks for plugins by scanning every installed distribution's entry points (~0.1 s)
    # the first time a model validates; netopsai uses none. An explicit setting is respected.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # the store, the conversations and incident memory are private: files 0600, folders 0700
    os.umask(0o077)
    try:
        return _main(argv)
    finally:
        # Objects still alive at exit are moved out of the collector's reach: interpreter
        # teardown otherwise spends ~0.6 s collecting the ~1M objects langgraph and sqlalchemy
        # allocate, after the answer is already printed and the checkpoint committed.
        gc.freeze()


def _main(argv: list[str] | None) -> int:
    cmd = typer.main.get_command(app)
    try:
        code = cmd.main(args=argv if argv is not None else sys.argv[1:], prog_name="netopsai",
                        standalone_mode=False)
        if isinstance(code, int) and code:  # typer returns 130 after Ctrl-C rather than raising
            return code
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 130
    except TyperException as exc:  # usage errors: typer vendors its own click
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        if message:  # 'no arguments' has already printed the help
            typer.echo(f"error: {visible(message)}", err=True)
        return int(getattr(exc, "exit_code", 2) or 2)
    except (Exception, KeyboardInterrupt) as exc:  # NetopsError, Ctrl-C, a new store, our bug
        line, code = failure(exc)
        typer.echo(line, err=True)
        return code
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def run() -> None:
    """Console-script entry."""
    raise SystemExit(main())
