"""Which conversation a one-shot command joins: `ask` starts a new one each run (a question from
an earlier shell session must not colour this one), `--continue` follows up the last, and
`--thread ID` names one. The last thread is kept in NETOPSAI_HOME/last_thread."""

from __future__ import annotations

import os
from pathlib import Path

from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible
from netopsai.copilot import threads

LAST = "last_thread"


def check_thread(thread: str) -> str:
    """A thread id given on the command line: not empty, and plain text (it is echoed to the
    terminal and kept in last_thread, whose one line a line break would split)."""
    if not thread.strip():
        raise NetopsError("--thread is empty: give a thread id, or leave it out for a new "
                          "conversation")
    for ch in thread:
        if visible(ch) != ch:
            raise NetopsError(f"--thread has a control character (U+{ord(ch):04X}); use "
                              "letters, digits, - and _")
    return thread


def plain_home() -> Path | None:
    """NETOPSAI_HOME read with the standard library alone (the thin `ask` loads no pydantic):
    the variable as StoreSettings reads it when it is spelt in capitals, or unset; None when
    some other spelling of it is set (StoreSettings reads names in any case: let it decide)."""
    if any(k.upper() == "NETOPSAI_HOME" and k != "NETOPSAI_HOME" for k in os.environ):
        return None
    return Path(os.environ.get("NETOPSAI_HOME", "~/.netopsai")).expanduser()


def pick_thread(thread: str | None, resume: bool, home: Path | None = None) -> str:
    """The thread this `ask` joins, kept in `home` (default: StoreSettings' NETOPSAI_HOME) as
    the last one."""
    if home is None:
        from netopsai.config.settings import StoreSettings

        home = StoreSettings().home
    if thread is not None:
        check_thread(thread)
    if thread and resume:
        raise NetopsError("give --thread ID or --continue, not both")
    if resume:
        path = home / LAST
        if not path.exists():
            raise NetopsError("no earlier question to continue; ask one first")
        thread = path.read_text().strip()
    chosen = thread or threads.key("cli", "", threads.new_id("cli"))
    home.mkdir(parents=True, exist_ok=True, mode=0o700)  # config.settings.private_dir: 0700
    (home / LAST).write_text(chosen + "\n")
    return chosen
