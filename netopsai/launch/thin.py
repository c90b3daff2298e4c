"""The command line's front door: a plain `netopsai ask` is answered from here, before typer,
click, rich or any command group is imported: sent to the server when there is one (the home's
Unix socket, or NETOPSAI_URL; then pydantic is not loaded either), else answered by a copilot in
this process, as the full command line would (issue 28 item 4: typer and the command groups
cost a cold `ask` ~0.1 s, a thin one ~8x a bare `python -c pass`). Anything else — another
command, --help, an option this parser does not know — goes to the full command line
(launch/app.py). It is the console script's entry, and `python -m netopsai`'s: the launcher's,
so its fallback may load every front end; the plain ask itself reads only the CLI's light
modules (threads, remote, failure, thin_text). Output and exit codes are the same either way
(tests/launch/test_thin_door.py)."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, NamedTuple, NoReturn

STARTUP_GC_GEN0 = 50_000  # allocations between young collections, as launch/app.py's main sets


class Asked(NamedTuple):
    question: str
    as_json: bool
    thread: str | None
    resume: bool


def plain_ask(argv: list[str]) -> Asked | None:
    """`ask QUESTION [--json] [--thread ID] [--continue]` in any order, each option at most once;
    None for anything else (the full command line reads it, and words its errors)."""
    if not argv or argv[0] != "ask":
        return None
    question: str | None = None
    flags: set[str] = set()
    thread: str | None = None
    rest = iter(argv[1:])
    for word in rest:
        name = word.split("=", 1)[0] if word.startswith("--") else word
        if name in flags:
            return None
        if word in ("--json", "--continue"):
            flags.add(word)
        elif name == "--thread":
            flags.add(name)
            thread = word.split("=", 1)[1] if "=" in word else next(rest, None)
            if not thread or thread.startswith("-"):
                return None
        elif word.startswith("-") or question is not None:
            return None
        else:
            question = word
    if question is None or not question.strip():
        return None
    return Asked(question, "--json" in flags, thread, "--continue" in flags)


def ask_thin(argv: list[str]) -> int | None:
    """The exit code of a plain `ask`, answered by the server or else here (the copilot loaded
    in this process, as the full command line would); None when the full command line must run
    it (not a plain ask)."""
    asked = plain_ask(argv)
    if asked is None:
        return None
    from netopsai.cli.threads import pick_thread, plain_home

    home = plain_home()
    if home is None:
        return None
    from netopsai.cli import remote
    from netopsai.cli.failure import failure
    from netopsai.common.textsafe import visible

    os.umask(0o077)  # as the full command line: the store, threads and last_thread are private
    try:
        thread = pick_thread(asked.thread, asked.resume, home)
        got = remote.call("/api/ask", {"question": asked.question, "thread": thread})
        if got is None:
            got = answer_here(asked.question, thread)
        got.pop("thread", None)
        show(got, thread, asked.as_json)
    except (Exception, KeyboardInterrupt) as exc:  # worded as the full command line words it
        line, code = failure(exc)
        print(line, file=sys.stderr, flush=True)
        return code
    if got["input_errors"]:  # the answer leads with it; scripts see it in the exit code
        print(f"error: {visible(got['input_errors'][0])}", file=sys.stderr, flush=True)
        return 2
    return 0


def answer_here(question: str, thread: str) -> dict[str, Any]:
    """The answer from a copilot in this process, set up as launch/app.py's main and cli/core.py's
    _answer set it up (the same defaults; typer and the command groups are what is not loaded)."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # no entry-point scan (~0.1 s)
    # one question, one process: no warm sandbox worker, no dense incident-memory model
    os.environ.setdefault("NETOPSAI_SANDBOX_WARM", "false")
    os.environ.setdefault("NETOPSAI_EMBED_MODEL", "off")
    with long_lived_setup():
        from netopsai.copilot.frontend import frontend_copilot

        copilot = frontend_copilot()
    return dict(copilot.answer(question, thread))  # printed as JSON, as the server's reply is


@contextmanager
def long_lived_setup() -> Iterator[None]:
    """A command's set-up (its imports, its copilot) with the cyclic collector off, then what it
    left frozen and the collector back on as it was. Setting up imports langgraph, sqlalchemy and
    the tables: ~1M objects that live as long as the process, with few cycles among them. Even
    at a young-generation threshold of 50,000 the collector re-scanned them ~10 times, 0.2-0.3 s
    of a cold ask's CPU (RESULTS "cold-ask-gc"), ~0.1 s of a batch's serial start and full
    passes during its run: none runs during the set-up, and once frozen (out of every later
    collection) the command's own garbage is all the collector sees. Only for a command's own
    process (the CLI's): a server must not freeze what it may later drop. The collector comes
    back on even when the set-up fails."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.set_threshold(STARTUP_GC_GEN0, *gc.get_threshold()[1:])
        if was_on:
            gc.enable()


def show(result: dict[str, Any], thread: str, as_json: bool) -> None:
    """What the full `ask` prints (cli/core.py ask_cmd): the JSON, or the thread line on stderr
    and the answer (rich on a terminal, plain text into a pipe)."""
    if as_json:  # JSON escapes every control character itself
        import json

        print(json.dumps({**result, "thread": thread}, default=str), flush=True)
        return
    print(f"thread {thread}: follow up with --continue", file=sys.stderr, flush=True)
    if sys.stdout.isatty():
        from netopsai.cli.render import print_answer

        print_answer(str(result["answer"]))
        return
    from netopsai.cli.thin_text import ASK_PICK, answer_parts, piped

    head, body, _short, _shown = answer_parts(str(result["answer"]), ASK_PICK)
    sys.stdout.write(piped(head, body))
    sys.stdout.flush()


def run() -> None:
    """Console-script entry (and `python -m netopsai`, `python -m netopsai.cli`)."""
    code = ask_thin(sys.argv[1:])
    if code is None:
        from netopsai.launch.app import main

        raise SystemExit(main())
    leave(code)


def leave(code: int) -> NoReturn:
    """End a plain ask now. Its answer is printed and its thread committed (checkpoints are
    written per step): what is left is the interpreter's teardown, which takes ~40 ms taking
    apart every module langgraph and sqlalchemy loaded, ~2 % of a cold ask (issue 28 item 4).
    Output is flushed and the exit handlers run (logging, the temp folders of
    netopsai.common.scratch and the sandbox) before the process ends without it."""
    import atexit

    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # the reader left or the stream closed: nothing to lose
            stream.flush()
    atexit._run_exitfuncs()  # what a normal exit runs first; CPython's own entry point
    os._exit(code)
