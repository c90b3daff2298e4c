"""Which conversation a one-shot command joins: `ask` starts a new one each run (a question from
an earlier shell session must not colour this one), `--continue` follows up the last, and
`--thread ID` names one. The last thread is kept in NETOPSAI_HOME/last_thread."""

from __future__ import annotations

from netopsai.common.errors import NetopsError
from netopsai.common.textsafe import visible
from netopsai.config.settings import StoreSettings, private_dir
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


def pick_thread(thread: str | None, resume: bool) -> str:
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
    private_dir(home)
    (home / LAST).write_text(chosen + "\n")
    return chosen
