"""telemetry: port status history, flaps, errors, discards, utilisation and rx power over a window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from netopsai.backends.base import Backends, IfaceSel
from netopsai.backends.rows import PortStatus, figure
from netopsai.errors import NetopsError, unknown
from netopsai.evidence import Evidence
from netopsai.ifnames import match
from netopsai.timewin import Window
from netopsai.tools.base import WindowArgs, as_table, tool
from netopsai.words import count

Metric = Literal["oper_status", "flaps", "errors", "discards", "utilization", "rx_power", "pfc", "ecn",
                 "retransmits"]


class TelemetryArgs(WindowArgs):
    metric: Metric = Field(description=(
        "oper_status: link up/down history (state at start, every transition, time down); "
        "flaps: up/down transition counts; errors: input/CRC errors; discards; utilization "
        "(percent of line rate); rx_power: optical receive power in dBm. RoCE (GPU fabrics): "
        "pfc: PFC pause frames sent and received; ecn: ECN-marked packets and the NICs' CNPs "
        "sent/received; retransmits: a NIC's RoCE retransmits and out-of-sequence packets."))
    devices: list[str] | None = Field(default=None, description="Device names; omit for all")
    role: str | None = Field(default=None, description="Only devices of this role, e.g. spine")
    site: str | None = Field(default=None, description="Only this data centre, e.g. dc1")
    pod: str | None = Field(default=None, description="Only this PoD, e.g. dc1-pod1")
    interface: str | None = Field(default=None, description="One interface name, e.g. Ethernet49")
    top: int = Field(default=20, ge=1, le=1000, description="How many rows (worst first)")


def _scope(a: TelemetryArgs) -> str:
    parts = [", ".join(a.devices) if a.devices else (f"{a.role}s" if a.role else "all switches")]
    parts += [x for x in (a.pod or a.site, a.interface) if x]
    return " ".join(parts)


def _unread(ev: Evidence, rows: Sequence[Mapping[str, Any]]) -> Evidence:
    """A live backend that could not read some devices returns them beside its rows: the
    evidence is then partial and names them (and why), never their credentials."""
    failures: dict[str, str] = getattr(rows, "failures", None) or {}
    if failures:
        ev.partial = True
        ev.errors += list(failures.values())
        ev.summary += f" Not read: {', '.join(sorted(failures))}."
        ev.facts["unread_devices"] = sorted(failures)
    return ev


def _status(a: TelemetryArgs, b: Backends, w: Window) -> Evidence:
    rows, total = read = b.telemetry.oper_status(_sel(a), w)
    if a.metric == "flaps":
        rows = sorted((r for r in rows if r["flaps"]), key=lambda r: -r["flaps"])
    down_now = [f"{r['device']} {r['interface']}" for r in rows if r["state_at_end"] == "down"]
    changed = [r for r in rows if r["transitions"]]
    if a.metric == "flaps":
        summary = (f"{len(rows)} of {count(total, 'port')} on {_scope(a)} flapped in the window"
                   + (": " + ", ".join(f"{r['device']} {r['interface']} ({r['flaps']}x)"
                                       for r in rows[:8]) if rows else "") + ".")
    else:
        summary = (f"{count(total, 'port')} on {_scope(a)}: {total - len(rows)} up throughout the window, "
                   f"{len(changed)} changed state, {len(down_now)} down at its end"
                   + (": " + ", ".join(down_now[:8]) if down_now else "") + ".")
    return _unread(Evidence(tool="telemetry", summary=summary, rows=as_table(rows[:a.top]),
                            columns=list(PortStatus.__annotations__),
                            partial=len(rows) > a.top,
                            facts={"ports": total, "up_throughout": total - len(rows),
                                   "changed": len(changed), "down_now": len(down_now),
                                   "flapping": sum(1 for r in rows if r["flaps"] >= 2)}), read[0])


ROCE = {"pfc": "had 10,000 or more PFC pause frames in 5 minutes",
        "ecn": "had 1,000,000 or more ECN marks in 5 minutes",
        "retransmits": "had 100 or more RoCE retransmits in 5 minutes"}


def _counters(a: TelemetryArgs, b: Backends, w: Window) -> Evidence:
    if a.metric in ROCE and not getattr(b.telemetry, "ROCE", False):
        raise NetopsError(f"metric {a.metric}: this telemetry backend has no RoCE counters "
                          "(the lab's GPU fabric has them)")
    rows, total, flagged = b.telemetry.counters(_sel(a), w, a.metric, a.top)
    worst = rows[0] if rows else None
    label = {"errors": "had input errors", "discards": "had discards",
             "utilization": "peaked at or above 80% utilisation",
             "rx_power": "had rx power at or below -10 dBm", **ROCE}[a.metric]
    summary = f"{flagged} of {count(total, 'port')} on {_scope(a)} {label} in the window."
    if worst:
        key = next(k for k in worst if k not in ("device", "interface"))
        summary += f" Worst: {worst['device']} {worst['interface']} ({key} {figure(worst, key)})."
    return _unread(Evidence(tool="telemetry", summary=summary, rows=as_table(rows),
                            columns=list(rows[0]) if rows else [],
                            facts={"ports": total, "flagged": flagged, "metric": a.metric}), rows)


def _no_port(a: TelemetryArgs, b: Backends) -> NetopsError:
    """An interface name that matches no port must not read as 'all up'."""
    if not a.devices:
        return NetopsError(f"no port named {a.interface!r} on "
                           f"{_scope(a.model_copy(update={'interface': None}))}")
    names = {r["name"] for d in a.devices for r in b.inventory.interfaces(d)} - {a.interface}
    return unknown(f"port on {', '.join(a.devices)}", a.interface or "", sorted(names))


def _sel(a: TelemetryArgs) -> IfaceSel:
    sel: IfaceSel = {}
    for key in ("devices", "role", "site", "pod", "interface"):
        if getattr(a, key):
            sel[key] = getattr(a, key)
    return sel


@tool("telemetry", TelemetryArgs)
def telemetry(args: TelemetryArgs, backends: Backends) -> Evidence:
    """Interface telemetry over a time window: oper-status history of one port up to every
    switch port (state at the start, each transition, time down), flap counts, and
    errors/CRC/discards/utilisation/rx-power with max/avg/total and the worst ports first."""
    backends.inventory.check_names(args.devices, args.site, args.pod, args.role)
    if args.interface and args.devices:  # "Hu0/0/0/8" asked, "HundredGigE0/0/0/8" stored
        names = [r["name"] for d in args.devices for r in backends.inventory.interfaces(d)]
        args = args.model_copy(update={"interface": match(names, args.interface) or args.interface})
    w = args.resolve(backends)
    ev = _status(args, backends, w) if args.metric in ("oper_status", "flaps") else \
        _counters(args, backends, w)
    if args.interface and not ev.facts.get("ports"):
        raise _no_port(args, backends)
    ev.window = w.as_json()
    return ev
