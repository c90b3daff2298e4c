"""changelog: change records by device, site, ticket and window."""

from __future__ import annotations

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.backends.rows import ChangeRecord
from netopsai.common.words import count
from netopsai.copilot.evidence import Evidence, cell_text
from netopsai.tools.base import WindowArgs, tool
from netopsai.tools.facts import ChangeFacts

COLUMNS = list(ChangeRecord.__annotations__)


class ChangelogArgs(WindowArgs):
    devices: list[str] | None = Field(default=None, description="Device names to check")
    site: str | None = Field(default=None, description="Only this data centre, e.g. dc1")
    ticket: str | None = Field(default=None, description="One change ticket, e.g. CHG-1042")


SHOWN = ["ticket", "device", "start", "summary", "author", "status"]  # what an answer's table shows


@tool("changelog", ChangelogArgs, SHOWN)
def changelog(args: ChangelogArgs, backends: Backends) -> Evidence:
    """Change records (ticket, device, start/end, kind, summary, author, status) that overlap a
    time window, for given devices, a site or a ticket."""
    backends.inventory.check_names(args.devices, args.site)
    w = args.resolve(backends)
    rows = backends.changes.changes(args.devices, args.site, args.ticket, w)
    scope = ", ".join(args.devices) if args.devices else args.site or "all devices"
    if args.ticket:
        scope = f"ticket {args.ticket}"
    summary = (f"{count(len(rows), 'change record')} for {scope} in the window"
               + (": " + "; ".join(f"{r['ticket']} on {r['device']} at {r['start']} "
                                   f"\"{cell_text(r['summary'], 200)}\" ({r['status']})"
                                   for r in rows[:6]) if rows else "") + ".")
    return Evidence(tool="changelog", summary=summary, columns=COLUMNS,
                    rows=[{c: r.get(c) for c in COLUMNS} for r in rows], window=w.as_json(),
                    facts=dict(ChangeFacts(changes=len(rows),
                                           devices=sorted({r["device"] for r in rows}))))
