"""Which conversation a one-shot command joins: `ask` starts a new one each run (a question from
an earlier shell session must not colour this one), `--continue` follows up the last, and
`--thread ID` names one. The last thread is kept in NETOPSAI_HOME/last_thread."""

from __future__ import annotations

import uuid

from netopsai.config.settings import StoreSettings, private_dir
from netopsai.errors import NetopsError

LAST = "last_thread"


def pick_thread(thread: str | None, resume: bool) -> str:
    home = StoreSettings().home
    if thread and resume:
        raise NetopsError("give --thread ID or --continue, not both")
    if resume:
        path = home / LAST
        if not path.exists():
            raise NetopsError("no earlier question to continue; ask one first")
        thread = path.read_text().strip()
    chosen = thread or f"cli-{uuid.uuid4().hex[:8]}"
    private_dir(home)
    (home / LAST).write_text(chosen + "\n")
    return chosen
