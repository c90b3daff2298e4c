"""PFC storms in a job diagnosis (diagnosis/job.py): a port of the job's sending pauses it was
not sent (a stuck receiver), and, when none of the job's ports is the storm but they receive
spread pauses, the pauses followed back to where they start (pfc_trace.walk): a storm outside
the job, or congestion spreading into it from elsewhere, said with where it was traced to.

The Since of a storm is the PFC watchdog alarm on the port facing the storming one (a host NIC's
storm is seen by its rail leaf's watchdog; the host raises nothing), else the first 5-minute
sample in which the port passed the storm threshold."""

from __future__ import annotations

from netopsai.backends.rows import AlarmRecord, PortCounters
from netopsai.common.localtime import stamp
from netopsai.copilot.evidence import rows_of
from netopsai.diagnosis.base import Finding
from netopsai.diagnosis.job_registry import job_rule
from netopsai.diagnosis.job_rules import Hit, Reads
from netopsai.diagnosis.pfc_trace import Hop, Trail, far_end, first_over, walk, watchdog_facing

WATCHDOG_STEP = "Keep the PFC watchdog on (action drop) on every rail leaf."


def _tx(r: PortCounters) -> float:
    return float(r.get("pfc_tx") or 0)


def _rx(r: PortCounters) -> float:
    return float(r.get("pfc_rx") or 0)


@job_rule("pfc_storm", 30)
def pfc_storm(x: Reads) -> list[Hit]:
    """One of the job's ports sends far more pauses than it receives, at storm rate."""
    rows = x.counters("pfc")
    if not rows:
        return []
    s = max(rows, key=_tx)
    if _tx(s) <= _rx(s) or s["max_per_5min"] < x.settings.storm_per_5min:
        return []
    dev, port = s["device"], s["interface"]
    text = (f"{dev} {port} sends PFC pause frames without pause ({s['pfc_tx']:.0f} in the "
            f"window, up to {s['max_per_5min']:.0f} per 5 minutes): its peer stops sending and "
            "the pauses spread over the rail")
    since = storm_since(x, dev, port, s, x.cite("pfc"))
    return [Hit("link.pfc_storm", dev, port, text, x.cite("pfc"), _steps(x, dev, port), 0.9,
                since_said=since)]


def _steps(x: Reads, dev: str, port: str) -> list[str]:
    if dev in x.status or dev in x.hosts or port.startswith("mlx5_"):
        first = (f"Reset NIC {port} on {dev} (a stuck receive pipeline), or drain {dev}"
                 + (" and requeue {job} without it." if dev in x.hosts else "."))
    else:
        first = (f"Shut {dev} {port} or let its PFC watchdog drop the queue, then find what "
                 "behind it stopped draining.")
    return [first, WATCHDOG_STEP]


def storm_since(x: Reads, dev: str, port: str, row: PortCounters | None,
                row_cites: list[str]) -> Finding | None:
    """When the storm from (dev, port) began: the watchdog facing it, else its first sample at
    storm rate (`row`: the figures it was found by; for a port without counters, the port
    receiving its pauses)."""
    facing, nb = far_end(x.call, dev, port) if x.call else (None, [])
    alarms = [(i, a) for i in x.cite("alarms") for a in x.alarms()]
    read = set(x.hosts) | set(x.leaves)
    if x.call and not {dev, *(facing[:1] if facing else ())} <= read:  # beyond the job's reads
        ev = x.call("alarms", {"devices": sorted({dev, *(facing[:1] if facing else ())}),
                               "state": "any", "window": x.window})
        alarms += [(ev.id, a) for a in ([] if ev.errors else rows_of(ev, AlarmRecord))]
    wd = watchdog_facing(alarms, dev, port, facing)
    if wd is not None:
        eid, a = wd
        on = f"{a['device']} {a.get('interface')}"
        facing_said = f", facing {dev} {port}" if a["device"] != dev else ""
        return Finding(f"{stamp(a['raised_at'], x.zone)}, when the PFC watchdog on {on}{facing_said} fired",
                       [eid, *nb])
    if row is None or x.call is None:
        return None
    where = (row["device"], row["interface"])
    pfc = x.ev.get("pfc")
    found = first_over(x.call, *where, pfc.window if pfc is not None else None,
                       x.settings.storm_per_5min, row, row_cites, x.zone)
    return Finding(found[0], found[1]) if found else None


def spread_pauses(x: Reads) -> list[Hit]:
    """The job's port receiving the most pauses (enough to matter), followed back to where they
    start. Run when no rule names a fault on the job's own ports."""
    if x.call is None:
        return []
    rows = [r for r in x.counters("pfc")
            if _rx(r) > _tx(r) and r["max_per_5min"] >= x.settings.spread_per_5min
            and x.concerns_job(r["device"], r["interface"])]
    if not rows:
        return []
    start = max(rows, key=lambda r: (r["max_per_5min"], _rx(r)))
    trail = walk(x.call, start, x.window)
    cites = [*x.cite("pfc"), *trail.cites]
    affects = ([start["device"]] if start["device"] in x.hosts else x.behind(start["device"]))
    o = trail.origin
    if o is None:
        last = trail.hops[-1] if trail.hops else None
        dev = last.device if last else start["device"]
        port = last.interface if last else start["interface"]
        where = (f"followed back {_hops(trail)} to {dev} {port} ({trail.path()}), where "
                 if trail.hops else "")
        return [Hit("link.congestion", dev, port, (
            f"congestion spreading into the job from outside it: {_from(start)}; {where}"
            f"{trail.why}"), cites, [
            f"Read the PFC counters beyond {dev} {port} to find the port that starts the "
            "pauses (a stuck NIC or a congested egress).", WATCHDOG_STEP], 0.5,
            affects=affects)]
    storm = max(o.sent, o.received) >= x.settings.storm_per_5min
    text = _origin_text(x, start, trail, o, storm)
    if not storm:
        return [Hit("link.congestion", o.device, o.interface, text, cites, [
            f"Find what {o.device} {o.interface} cannot deliver (a slow receiver or a "
            "congested egress) and relieve it; the job's ports only relay its pauses.",
            WATCHDOG_STEP], 0.6, affects=affects)]
    row = o.sender if o.sender is not None else o.receiver
    since = storm_since(x, o.device, o.interface, row, o.cites)
    return [Hit("link.pfc_storm", o.device, o.interface, text, cites,
                _steps(x, o.device, o.interface), 0.8, since_said=since, affects=affects)]


def _from(start: PortCounters) -> str:
    return (f"{start['device']} {start['interface']} receives up to "
            f"{start['max_per_5min']:,.0f} PFC pause frames per 5 minutes and sends few")


def _hops(trail: Trail) -> str:
    n = len(trail.hops)
    return f"{n} hop{'s' if n != 1 else ''}"


def _origin_text(x: Reads, start: PortCounters, trail: Trail, o: Hop, storm: bool) -> str:
    outside = not (o.device in x.hosts or (o.device in x.leaves
                                           and x.concerns_job(o.device, o.interface)))
    where = " (outside the job's hosts and ports)" if outside else ""
    if o.sender is None:
        sends = (f"{o.device} {o.interface}{where} has no pause counters in the window, but the "
                 f"port it faces receives up to {o.received:,.0f} per 5 minutes from it")
    else:
        sends = (f"{o.device} {o.interface}{where} sends up to {o.sent:,.0f} PFC pause frames "
                 "per 5 minutes, more than any port of it receives: the pauses start there")
    what = ("a PFC storm" if storm else "congestion, not a storm (under "
            f"{x.settings.storm_per_5min:,.0f} per 5 minutes)")
    spread = " spreading into the job" if outside else ""
    return (f"{what}{spread}: {_from(start)}; followed back {_hops(trail)} against the traffic "
            f"({trail.path()}), the pauses growing at each hop toward the origin: {sends}")
