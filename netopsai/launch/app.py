"""The `netopsai` command: the root typer app and the process's entry (`main`). It mounts the
command line's own command groups (netopsai/cli/) and the launchers of the other front ends
(fronts.py, serving.py, bench.py), so a front end never imports another to start it."""

from __future__ import annotations

import gc
import os
import sys

import typer
from typer.exceptions import TyperException

from netopsai.cli.failure import failure
from netopsai.common.textsafe import visible

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="netopsai: a copilot for network on-calls.")
lab_app = typer.Typer(no_args_is_help=True, help="The embedded lab network.")
app.add_typer(lab_app, name="lab")

STARTUP_GC_GEN0 = 50_000  # allocations between young collections (CPython's default: 700)


def _register_groups() -> None:
    """Every command, each group from its own module (each imports only typer here). The help
    lists commands, then groups, each in the order added: this order is the help's."""
    from netopsai.cli import alarms, config, core, db, devices, incidents, ingest, jobs, netns, poll, report
    from netopsai.cli import lab as lab_group
    from netopsai.cli import snapshots as snapshot_group
    from netopsai.launch import bench, fronts, serving

    for group in (core, fronts, lab_group, config, poll, ingest, devices, netns, incidents, alarms,
                  bench, serving, db, snapshot_group, jobs, report):
        group.register(app, lab_app)


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


def run() -> None:
    """The full command line, typer first (the console script enters through thin.py)."""
    raise SystemExit(main())


if __name__ == "__main__":
    run()
