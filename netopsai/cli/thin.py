"""The command line's front door: a plain `netopsai ask` with a server to answer it (the home's
Unix socket, or NETOPSAI_URL) is sent there and printed from here, before typer, click, rich,
pydantic or any command group is imported (issue 28 item 4: those cost a thin `ask` ~8x a bare
`python -c pass`; this path imports the standard library, cli.remote, cli.threads and the
answer's text helpers). Anything else — another command, --help, an option this parser does
not know, no server, a server that does not answer — goes to the full command line
(cli/app.py), which then does all of it as before: the output and exit codes are the same
either way (tests/cli/test_cli_thin.py)."""

from __future__ import annotations

import os
import sys
from typing import NamedTuple


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
    """The exit code of a plain `ask` answered by the server; None when the full command line
    must run it (not a plain ask, no server, or the server did not answer)."""
    asked = plain_ask(argv)
    if asked is None:
        return None
    from netopsai.cli import remote
    from netopsai.cli.threads import pick_thread, plain_home

    home = plain_home()
    if home is None or remote.server() is None:
        return None
    from netopsai.common.errors import NetopsError
    from netopsai.common.textsafe import visible

    os.umask(0o077)  # as the full command line: last_thread is private
    try:
        thread = pick_thread(asked.thread, asked.resume, home)
        got = remote.call("/api/ask", {"question": asked.question, "thread": thread})
        if got is None:  # said on stderr already where worth it; not asked again
            remote.give_up()
            return None
        got.pop("thread", None)
        show(got, thread, asked.as_json)
    except NetopsError as exc:
        print(f"error: {visible(str(exc))}", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr, flush=True)
        return 130
    except Exception as exc:  # as the full command line's last resort: one line, our bug
        print(f"internal error: {type(exc).__name__}: {visible(str(exc))}", file=sys.stderr, flush=True)
        return 1
    if got["input_errors"]:  # the answer leads with it; scripts see it in the exit code
        print(f"error: {visible(got['input_errors'][0])}", file=sys.stderr, flush=True)
        return 2
    return 0


def show(result: dict[str, object], thread: str, as_json: bool) -> None:
    """What the full `ask` prints (cli/app.py ask_cmd): the JSON, or the thread line on stderr
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
    """Console-script entry (and `python -m netopsai.cli`)."""
    code = ask_thin(sys.argv[1:])
    if code is None:
        from netopsai.cli.app import main

        code = main()
    raise SystemExit(code)
