"""A `netopsai ingest` for bench/bench_ingest_storm.py, in a process of its own, run against
whichever netopsai is first on PYTHONPATH (this checkout, or an older tree to compare with).

    python bench/ingest_harness.py URL SPOOL_DIR|- WORKERS

Prints one JSON line with its ports (and the writer thread's native id) once listening, then
answers each line on stdin: `stats` with one JSON line of counters, `stop` by stopping (writing
out what it took in), printing the last counters and exiting."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def counters(ing: object) -> dict[str, float]:
    writer = getattr(ing, "writer", None)
    stats = writer.stats if writer is not None else None
    syslog, traps = getattr(ing, "syslog", None), getattr(ing, "traps", None)
    return {"t": time.time(), "received": stats.received if stats else 0,
            "written": stats.written if stats else 0, "failed": stats.failed if stats else 0,
            "undecodable": getattr(stats, "undecodable", 0),
            "syslog": syslog.received if syslog else 0, "traps": traps.received if traps else 0}


def main() -> None:
    from pydantic import SecretStr

    from netopsai.backends.receivers import BackgroundIngest, IngestSettings

    url, spool, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cfg = IngestSettings(trap_port=0, syslog_port=0, webhook_port=None, community=SecretStr("bench"),
                         spool=None if spool == "-" else Path(spool))
    if hasattr(cfg, "parse_workers"):
        cfg.parse_workers = workers
    with BackgroundIngest(url, cfg) as ing:
        assert ing.syslog is not None and ing.traps is not None
        import netopsai.backends.receivers as receivers

        if hasattr(receivers, "tune_gc"):  # as `netopsai ingest` (serve) does
            receivers.tune_gc()
        parsing = getattr(ing.writer, "parsing", None)
        if parsing is not None:  # the parsing workers started: not timed as ingest
            parsing.wait_ready(120)
        thread = getattr(ing.writer, "_thread", None)  # its CPU is measured apart
        print(json.dumps({"syslog": ing.syslog.port, "trap": ing.traps.port,
                          "writer_tid": getattr(thread, "native_id", None)}), flush=True)
        for line in sys.stdin:
            if line.strip() == "stop":
                break
            print(json.dumps(counters(ing)), flush=True)
        final_ing = ing
    print(json.dumps(counters(final_ing)), flush=True)


if __name__ == "__main__":
    main()
