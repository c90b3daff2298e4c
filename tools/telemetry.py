"""telemetry: port status history, flaps, errors, discards, utilisation and rx power over a window."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, cast

from pydantic import Field

from netopsai.backends.base import Backends, IfaceSel
from netopsai.backends.rows import figure
from netopsai.common.errors import NetopsError, unknown
from netopsai.common.ifnames import match
from netopsai.common.roce import ROCE_METRICS
from netopsai.common.timewin import Window
from netopsai.common.words import count
from netopsai.copilot.evidence import Evidence, facts_of
from netopsai.tools.base import WindowArgs, as_table, tool
from netopsai.tools.facts import CounterFacts, TelemetryFacts
from netopsai.tools.port_answers import states
from netopsai.tools.port_answers.roles import label, port_key, role_ports
from netopsai.tools.port_answers.states import annotate
from netopsai.tools.port_answers.zoned import zone

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
    port_role: Literal["uplink", "downlink", "host"] | None = Field(default=None, description=(
        "Only these ports, from the inventory's links: uplink (peer one tier up, e.g. a leaf's "
        "ports to spines), downlink (peer a tier down), host (peer is a host/server)"))
    peer_role: str | None = Field(default=None, description=(
        "Only ports whose link peer has this role, e.g. spine for 'towards the spines'"))
    zone: str | None = Field(default=None, description=(
        "Time zone to show times in (the question's, e.g. PST or America/Los_Angeles); "
        "default: the network's"))


def _scope(a: TelemetryArgs) -> str:
    parts = [", ".join(a.devices) if a.devices else (f"{a.role}s" if a.role else "all switches")]
    parts += [x for x in (a.pod or a.site, a.interface) if x]
    if a.port_role or a.peer_role:
        parts.append(f"({label(a.port_role, a.peer_role)})")
    return " ".join(parts)


def _unread(ev: Evidence, rows: Sequence[Mapping[str, Any]]) -> Evidence:
    """A live backend that could not read some devices returns them beside its rows: the
    evidence is then partial and names them (and why), never their credentials."""
    failures: dict[str, str] = getattr(rows, "failures", None) or {}
    if failures:
        ev.partial = True
        ev.errors += list(failures.values())
        ev.summary += f" Not read: {', '.join(sorted(failures))}."
        facts_of(ev, TelemetryFacts)["unread_devices"] = sorted(failures)
    return ev


STATUS_COLUMNS = ["device", "interface", "change", "changes", "admin_status", "state_at_start",
                  "state_at_end", "down_s", "transitions", "flaps", "events"]


def _status(a: TelemetryArgs, b: Backends, w: Window) -> Evidence:
    """Port states, what changed first (port_answers/states.py); flaps, the most first."""
    read = b.telemetry.oper_status(_sel(a), w)
    rows, total = _narrowed(a, b, [dict(r) for r in read[0]], read[1])
    tz = zone(a.zone or b.zone)
    rows = annotate(rows, tz)
    summary, facts = states.summary(rows, total, _scope(a), tz)
    if a.metric == "flaps":
        rows = sorted((r for r in rows if r["flaps"]), key=lambda r: -r["flaps"])
        summary = (f"{len(rows)} of {count(total, 'port')} on {_scope(a)} flapped in the window"
                   + (": " + ", ".join(f"{r['device']} {r['interface']} ({r['flaps']}x)"
                                       for r in rows[:8]) if rows else "") + ".")
    return _unread(Evidence(tool="telemetry", summary=summary, rows=rows[:a.top],
                            columns=STATUS_COLUMNS, partial=len(rows) > a.top, facts=dict(facts)), read[0])


def _narrowed(a: TelemetryArgs, b: Backends, rows: list[dict[str, Any]],
              total: int) -> tuple[list[dict[str, Any]], int]:
    """Rows and port count within the role words' ports (uplinks, host ports ...)."""
    if not (a.port_role or a.peer_role):
        return rows, total
    devices = a.devices or [d["name"] for d in b.inventory.devices(a.site, a.pod, a.role, None)]
    ports = role_ports(b.inventory, devices, a.port_role, a.peer_role)
    if a.interface:
        ports = {p for p in ports if p == port_key(p[0], a.interface)}
    if not ports:  # no links known is not "all quiet"
        raise NetopsError(f"no {label(a.port_role, a.peer_role)} on {_scope(a)} in the "
                          "inventory's links: which ports they are is not known")
    return [r for r in rows if port_key(r["device"], r["interface"]) in ports], len(ports)


ROCE = {name: m.flagged for name, m in ROCE_METRICS.items()}  # what flags a port, in words


def _counters(a: TelemetryArgs, b: Backends, w: Window) -> Evidence:
    if a.metric in ROCE and not getattr(b.telemetry, "ROCE", False):
        raise NetopsError(f"metric {a.metric}: this telemetry backend has no RoCE counters "
                          "(the lab's GPU fabric has them)")
    narrow = bool(a.port_role or a.peer_role)
    read, total, flagged = b.telemetry.counters(_sel(a), w, a.metric, 100_000 if narrow else a.top)
    rows = list(read)
    if narrow:  # all of the scope's rows, then only the role's ports, counted again
        kept, total = _narrowed(a, b, [dict(r) for r in rows], total)
        flagged = sum(1 for r in kept if HOT.get(a.metric, _any)(r))
        rows = cast(list[Any], kept[:a.top])
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
                            facts=dict(CounterFacts(ports=total, flagged=flagged, metric=a.metric))),
                   read)


def _num(r: Mapping[str, Any], key: str) -> float:
    v = r.get(key)
    return float(v) if isinstance(v, int | float) else 0.0


# what a counter row must show to count as flagged (the backends' own thresholds)
HOT: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    "utilization": lambda r: _num(r, "max_pct") >= 80,
    "rx_power": lambda r: _num(r, "min_dbm") <= -10,
    "errors": lambda r: _num(r, "total") > 0,
    "discards": lambda r: _num(r, "total") > 0,
}


def _any(r: Mapping[str, Any]) -> bool:
    key = next((k for k in r if k not in ("device", "interface")), "")
    return _num(r, key) > 0


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
    switch port, what changed first (went down, came back, flapped), then ports down all
    window (administratively down, or admin up and never up) counted apart; flap counts; and
    errors/CRC/discards/utilisation/rx-power with max/avg/total and the worst ports first.
    port_role/peer_role narrow to uplinks, downlinks, host ports or ports towards a role."""
    backends.inventory.check_names(args.devices, args.site, args.pod, args.role)
    if args.interface and args.devices:  # "Hu0/0/0/8" asked, "HundredGigE0/0/0/8" stored
        names = [r["name"] for d in args.devices for r in backends.inventory.interfaces(d)]
        args = args.model_copy(update={"interface": match(names, args.interface) or args.interface})
    w = args.resolve(backends)
    ev = _status(args, backends, w) if args.metric in ("oper_status", "flaps") else \
        _counters(args, backends, w)
    if args.interface and not facts_of(ev, TelemetryFacts).get("ports"):
        raise _no_port(args, backends)
    ev.window = w.as_json()
    return ev
