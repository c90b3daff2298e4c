"""Evidence headers an on-call reads (issue 26 item 6): what was asked of which tool, over what
scope and window, in the network's zone — "port flaps · all switches · top 5 · 2026-11-27
08:10–09:10 CET", never `devices=<26 items>` or a Python dict. Pure: no gradio here."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from netopsai.common.zones import zone_of
from netopsai.copilot.payload import EvidenceArgs, EvidenceDump

TOOLS = {"alarms": "alarms", "changelog": "change records", "traceroute": "traceroute",
         "metadata": "inventory", "events": "log lines", "telemetry": "port telemetry"}
METRICS = {"oper_status": "port up/down history", "flaps": "port flaps", "errors": "input errors",
           "discards": "discards", "utilization": "utilisation", "rx_power": "optical rx power",
           "pfc": "PFC pause frames", "ecn": "ECN marks", "retransmits": "RoCE retransmits"}
SHOWN_NAMES = 2  # names listed before "and N more"


def _names(values: list[Any]) -> str:
    names = [str(v) for v in values]
    if len(names) <= SHOWN_NAMES + 1:
        return ", ".join(names)
    return f"{', '.join(names[:SHOWN_NAMES])} and {len(names) - SHOWN_NAMES} more"


def _scope(tool: str, args: EvidenceArgs) -> list[str]:
    """The call's scope and filters in words, the place first."""
    words: list[str] = []
    if args.get("src") or args.get("dst"):
        words.append(f"{args.get('src', '?')} → {args.get('dst', '?')}")
    devices = args.get("devices")
    if devices:
        words.append(_names(list(devices)))
    for place in (args.get("pod"), args.get("site")):
        if place:
            words.append(str(place))
    if args.get("role"):
        words.append(f"{args['role']}s")
    if args.get("interface"):
        words.append(str(args["interface"]))
    if args.get("port_role"):
        words.append(f"{args['port_role']} ports")
    if not words and tool in ("alarms", "changelog", "telemetry", "events"):
        words.append("whole network")
    if args.get("state") in ("open", "closed"):
        words.append(f"{args['state']} only")
    if args.get("category"):
        words.append(f"{args['category']} alarms")
    if args.get("correlate"):
        words.append("grouped into cases")
    if args.get("ticket"):
        words.append(str(args["ticket"]))
    if args.get("query") and tool == "metadata":
        query = str(args["query"])
        words.append(f"{query} of {args['ip']}" if args.get("ip") else query)
    if args.get("top"):
        words.append(f"worst {args['top']}")
    return words


def _when(window: dict[str, str] | None, zone: str) -> str:
    """'2026-11-27 08:10–09:10 CET' (the end's date too when it is another day)."""
    if not window or not window.get("start") or not window.get("end"):
        return ""
    tz = zone_of(zone or "UTC")
    try:
        start, end = (datetime.fromisoformat(window[k].replace("Z", "+00:00")).astimezone(tz)
                      for k in ("start", "end"))
    except ValueError:
        return f"{window['start']} – {window['end']}"
    name = start.tzname() or zone
    if start.date() == end.date():
        return f"{start:%Y-%m-%d %H:%M}–{end:%H:%M} {name}"
    return f"{start:%Y-%m-%d %H:%M} – {end:%Y-%m-%d %H:%M} {name}"


def evidence_header(ev: EvidenceDump, zone: str = "UTC") -> str:
    """One evidence's header in words: tool, scope, window (network zone), and a failure."""
    args = ev.get("args") or {}
    tool = str(ev.get("tool", ""))
    what = METRICS.get(str(args.get("metric")), TOOLS["telemetry"]) if tool == "telemetry" \
        else TOOLS.get(tool, tool)
    parts = [what, *_scope(tool, args)]
    when = _when(ev.get("window"), zone)
    if when:
        parts.append(when)
    if ev.get("errors"):
        parts.append("failed")
    return " · ".join(parts)


_LISTED = re.compile(r"^- \[(E\d+)\] [^\n]*$", re.M)


def evidence_list_words(markdown: str, headers: dict[str, str]) -> str:
    """The answer's "### Evidence" lines (`- [E1] alarms {"correlate": true, …}`) with their
    headers in words, for the evidence the thread holds; other lines as they are."""
    if not headers:
        return markdown
    return _LISTED.sub(lambda m: f"- [{m.group(1)}] {headers[m.group(1)]}" if m.group(1) in headers
                       else m.group(0), markdown)
