"""traceroute: the path between two IPs, hop by hop, mapped to inventory devices."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from netopsai.backends.base import Backends
from netopsai.backends.rows import Hop
from netopsai.common.timewin import iso, parse_time
from netopsai.copilot.evidence import Evidence
from netopsai.tools.args import IPv4
from netopsai.tools.base import ToolArgs, as_table, tool
from netopsai.tools.facts import TraceFacts

COLUMNS = list(Hop.__annotations__)


class TracerouteArgs(ToolArgs):
    src: IPv4 = Field(description="Source IPv4 address (a host or device), e.g. 10.1.3.20")
    dst: IPv4 = Field(description="Destination IPv4 address, e.g. 10.2.1.40")
    size: int = Field(default=60, ge=28, le=9216, description=(
        "Probe size in bytes with DF set; use a large size such as 9000 to test MTU"))
    at: str | None = Field(default=None, description="Trace as of this past ISO time (default now)")


SHOWN = ["hop", "ip", "device", "interface", "rtt_ms", "loss_pct", "status"]  # what an answer's table shows


@tool("traceroute", TracerouteArgs, SHOWN)
def traceroute(args: TracerouteArgs, backends: Backends) -> Evidence:
    """Trace the path from src to dst: each hop's IP, device, interfaces, RTT and loss, whether
    the destination was reached, where and why it stopped (!N no route, !H host unreachable,
    !X filtered by ACL, !F MTU, * no reply), and how many ECMP paths exist."""
    at: datetime | None = parse_time(args.at, backends.inventory.clock()) if args.at else None
    r = backends.paths.traceroute(args.src, args.dst, args.size, at)
    hops = r["hops"]
    if r["reached"]:
        lossy = [h for h in hops if h["loss_pct"]]
        via = r["path_devices"][:-1]
        summary = (f"Traceroute {args.src} -> {args.dst} reached the destination in {len(hops)} "
                   f"hop{'s' if len(hops) != 1 else ''}{' via ' + ', '.join(via) if via else ''}; "
                   f"final RTT {hops[-1]['rtt_ms']} ms")
        summary += (f"; loss first seen at hop {lossy[0]['hop']} ({lossy[0]['device']}, "
                    f"{lossy[-1]['loss_pct']}% end to end)." if lossy else "; no loss.")
    else:
        summary = (f"Traceroute {args.src} -> {args.dst} did NOT reach the destination: it stopped "
                   f"at {r['stopped_at']} ({r['reason']}) after "
                   f"{len(r['path_devices'])} answering "
                   f"hop{'s' if len(r['path_devices']) != 1 else ''}.")
    if r["ecmp_paths"]:  # a trace stopped before any equal-cost choice has no paths to count
        summary += f" {r['good_paths']} of {r['ecmp_paths']} ECMP paths deliver."
    f = r.get("failing")
    if f and r["reached"]:
        summary += (f" The others fail at {f['device']}"
                    f"{' ' + f['interface'] if f['interface'] else ''}: {f['reason']}.")
    ts = iso(r["at"])
    return Evidence(tool="traceroute", summary=summary, columns=COLUMNS, rows=as_table(hops),
                    window={"start": ts, "end": ts},
                    facts=dict(TraceFacts(reached=r["reached"], stopped_at=r["stopped_at"],
                                          reason=r["reason"], hops=len(hops),
                                          ecmp_paths=r["ecmp_paths"], good_paths=r["good_paths"],
                                          path_devices=r["path_devices"],
                                          ecmp_devices=r.get("ecmp_devices", []),
                                          failing=r.get("failing"))))
