"""The job diagnosis' rules (diagnosis/job.py): what each fault of a GPU fabric looks like in
the reads over a job's hosts and rail leaves, each finding cited to the evidence it came from.
PFC storms, and pauses spreading into the job from elsewhere, are job_storm.py's. Thresholds
come from config.yaml `roce:` (config/roce.py), one definition for these and checks_roce.py."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from netopsai.backends.rows import AlarmRecord, DeviceInfo, HostInfo, PortCounters, StatusRow
from netopsai.common.localtime import stamp
from netopsai.config.roce import RoceSettings, roce_settings
from netopsai.copilot.evidence import Evidence, facts_of, rows_of
from netopsai.diagnosis.base import Finding
from netopsai.diagnosis.job_registry import job_rule
from netopsai.tools.facts import RailFacts


@dataclass
class Reads:
    """The evidence about a job's hosts and leaves, by what it is."""

    hosts: list[str]
    leaves: list[str]
    attach: list[HostInfo]  # the pod's NIC addresses: host, its leaf and leaf port
    status: dict[str, DeviceInfo]  # job host -> its inventory row
    devices: Evidence
    ev: dict[str, Evidence] = field(default_factory=dict)
    window: Any = None  # what the reads cover (the job's window)
    call: Callable[[str, dict[str, Any]], Evidence] | None = None  # more reads (None: none)
    settings: RoceSettings = field(default_factory=roce_settings)
    zone: str = "UTC"  # the network's: the times its findings say are in it

    def all(self) -> list[Evidence]:
        return [self.devices, *self.ev.values()]

    def rows(self, key: str) -> list[dict[str, Any]]:
        e = self.ev.get(key)
        return [] if e is None or e.errors else e.rows

    # a read's rows as its tool's row type, so mypy checks the keys a rule names (rows() stays
    # for the rule modules not moved yet)
    def alarms(self) -> list[AlarmRecord]:
        return rows_of(self._ev("alarms"), AlarmRecord)

    def ports(self) -> list[StatusRow]:
        return rows_of(self._ev("status"), StatusRow)

    def counters(self, key: Literal["pfc", "ecn", "retransmits", "errors", "rx_power",
                                    "utilization"]) -> list[PortCounters]:
        return rows_of(self._ev(key), PortCounters)

    def _ev(self, key: str) -> Evidence:
        """The read, or an empty one when it was not made or failed (no rows: rows()' [])."""
        e = self.ev.get(key)
        return Evidence(tool=key) if e is None or e.errors else e

    def cite(self, *keys: str) -> list[str]:
        evs = [self.devices if k == "devices" else self.ev.get(k) for k in keys]
        return [e.id for e in evs if e is not None and e.id and not e.errors]

    def host_ports(self) -> set[tuple[str | None, str | None]]:
        """Leaf ports facing a host of the pod (the others are the leaf's uplinks)."""
        return {(r["tor"], r["tor_interface"]) for r in self.attach if r.get("tor")}

    def concerns_job(self, device: str, port: str) -> bool:
        """A port the job's traffic uses: its hosts' NICs, and their leaves' uplinks and ports
        to them; not a leaf's port to a host outside the job (that host's trouble, not the job's)."""
        if device in self.hosts:
            return True
        host = next((r["name"] for r in self.attach
                     if (r.get("tor"), r.get("tor_interface")) == (device, port)), None)
        return host is None or host in self.hosts

    def behind(self, leaf: str) -> list[str]:
        return sorted({r["name"] for r in self.attach if r.get("tor") == leaf
                       and r["name"] in self.hosts})

    def alarm(self, device: str, interface: str | None = None) -> AlarmRecord | None:
        return next((a for a in self.alarms() if a["device"] == device
                     and (interface is None or a.get("interface") == interface)), None)

    def affected(self, hit: Hit) -> list[str]:
        if hit.affects:
            return hit.affects
        if hit.device in self.hosts:
            return [hit.device]
        return self.behind(hit.device or "") or list(self.hosts)


@dataclass
class Hit:
    label: str
    device: str | None
    interface: str | None
    text: str
    cites: list[str]
    advice: list[str]
    confidence: float = 0.85
    since: str | None = None
    more: list[Finding] = field(default_factory=list)
    since_said: Finding | None = None  # a Since with its own words and evidence (job_storm.py)
    affects: list[str] = field(default_factory=list)  # the job's hosts it hurts, when not its own

    def steps(self, job: str | None) -> list[str]:
        name = f"job {job}" if job else "the job"
        return [s.format(job=name) for s in self.advice]


def _first(r: StatusRow) -> str | None:
    ev = str(r.get("events") or "")
    return ev.split(" down", 1)[0] if " down" in ev else None


@job_rule("leaf_down", 10)
def leaf_down(x: Reads) -> list[Hit]:
    """A rail leaf of the job that is dead: its own open unreachable alarm, or every job NIC
    facing it down on two or more hosts. One leaf under every such NIC is the shared cause, the
    NICs' link-downs are its effects (issue 25 item 4)."""
    out = []
    for leaf in x.leaves:
        gone = next((a for a in x.alarms() if a["device"] == leaf and a["state"] == "open"
                     and a["kind"] == "DEVICE_UNREACHABLE"), None)
        down = [r for r in x.ports() if r["device"] in x.hosts and r["state_at_end"] == "down"]
        dead = {h for h in x.hosts if sum(r["device"] == h for r in down) >= 2}  # host.down's
        facing = [r for r in down if peer_of(x, r) == leaf and r["device"] not in dead]
        behind = x.behind(leaf)
        hosts = sorted({r["device"] for r in facing})
        if gone is None and not (len(hosts) >= 2 and hosts == behind):
            continue
        said = [f"an open unreachable alarm since {stamp(gone['raised_at'], x.zone)}"] if gone else []
        if hosts:
            nics = ", ".join(f"{r['device']} {r['interface']}" for r in facing[:4])
            said.append(f"the job's NICs facing it are down on {len(hosts)} of the {len(behind)} "
                        f"hosts behind it ({nics})")
        out.append(Hit("device.down", leaf, None, f"{leaf}, a rail leaf of the job, is down: "
                       + "; ".join(said), x.cite("alarms", "status"), [
                           f"Bring {leaf} back (console, power) or move the rail's traffic off it: "
                           "the job's NICs on that rail have no other leaf.",
                           "Requeue {job} from its last checkpoint once the rail is whole again."],
                       0.9, str(gone["raised_at"]) if gone else _first(facing[0]),
                       affects=behind))
    return out


def explained_by(top: Hit, h: Hit, x: Reads) -> bool:
    """Whether a dead leaf (top) accounts for another finding: a fault on the leaf itself, or on
    a job NIC whose link ends on it."""
    if top.label != "device.down" or h is top:
        return False
    row = {"device": h.device, "interface": h.interface}
    return h.device == top.device or (bool(h.interface) and peer_of(x, row) == top.device) \
        or (h.cites == x.cite("rails") and str(top.device) in h.text)


@job_rule("host_down", 20)
def host_down(x: Reads) -> list[Hit]:
    out = []
    for h in x.hosts:
        ports = [r for r in x.ports() if r["device"] == h and r["state_at_end"] == "down"]
        row = x.status.get(h)
        if (row and row.get("status") == "down") or (ports and len(ports) >= 2):
            out.append(Hit("host.down", h, None, (
                f"{h} is {row.get('status') if row else 'silent'} and {len(ports)} of its NICs "
                f"are down at the end of the window"), x.cite("devices", "status", "alarms"), [
                f"Drain {h} in the scheduler (scontrol update nodename={h} state=drain) and "
                "requeue {job} on healthy hosts from its last checkpoint.",
                f"Check {h}'s BMC/console (power, kernel panic) before returning it."],
                0.9, _first(ports[0]) if ports else None))
    return out


@job_rule("flapping", 40)
def flapping(x: Reads) -> list[Hit]:
    rows = [r for r in x.ports() if r["flaps"] >= 2
            and x.concerns_job(r["device"], r["interface"])]
    rows.sort(key=lambda r: (r["device"] not in x.hosts, -r["flaps"]))
    if not rows:
        return []
    r = rows[0]
    rt = next((t for t in x.counters("retransmits") if (t["device"], t["interface"]) ==
               (r["device"], r["interface"]) and t["total"]), None)
    more = [Finding(f"{r['device']} {r['interface']} had {rt['total']:.0f} RoCE retransmits and "
                    f"{rt['out_of_sequence']:.0f} out-of-sequence packets (lost in flight at each "
                    "drop)", x.cite("retransmits"))] if rt else []
    alarm = next((a for a in x.alarms() if a["kind"] == "LINK_FLAP"
                  and a["device"] in (r["device"], peer_of(x, r))), None)
    if alarm:
        more.append(Finding(f"{alarm['device']} {alarm.get('interface')} raised LINK_FLAP at "
                            f"{stamp(alarm['raised_at'], x.zone)}", x.cite("alarms")))
    dev, port = r["device"], r["interface"]
    return [Hit("link.flapping", dev, port, f"{dev} {port} flapped {r['flaps']} times in the "
                f"window (down {r['down_s']} s in all)", x.cite("status"), [
                f"Drain {dev} and requeue {{job}} from its last checkpoint; reset NIC {port} "
                f"on {dev}." if dev in x.hosts else f"Shut {dev} {port} if the rail has "
                "spare paths.",
                "Reseat or replace the cable/transceiver of that link before returning it."],
                0.85, _first(r), more)]


def peer_of(x: Reads, row: Mapping[str, Any]) -> str | None:
    """The rail leaf across a host NIC's link (NIC k is on the leaf of rail k), or the host
    across a leaf port's."""
    nic = re.fullmatch(r"mlx5_(\d+)", str(row["interface"]))
    for a in x.attach:
        if nic and a["name"] == row["device"] and f"rail{nic.group(1)}-" in str(a.get("tor")):
            return a.get("tor")
        if (a.get("tor"), a.get("tor_interface")) == (row["device"], row["interface"]):
            return str(a["name"])
    return None


@job_rule("link_down", 50)
def link_down(x: Reads) -> list[Hit]:
    rows = [r for r in x.ports() if r["state_at_end"] == "down" and r["flaps"] < 2
            and x.concerns_job(r["device"], r["interface"])]
    rows.sort(key=lambda r: r["device"] not in x.hosts)
    if not rows:
        return []
    r = rows[0]
    dev, port = r["device"], r["interface"]
    return [Hit("link.down", dev, port, f"{dev} {port} is down since {_first(r)}",
                x.cite("status"), [
                    f"Drain {dev} and requeue {{job}}; replace the NIC link {port}." if dev in
                    x.hosts else f"Replace the link on {dev} {port}: the rail runs on fewer "
                    "uplinks meanwhile.", "Check the optic's rx power and the port's errors."],
                0.85, _first(r))]


@job_rule("rail_unreachable", 80, own=False)
def rail_unreachable(x: Reads) -> list[Hit]:
    """Pairs failing on a rail (job_rails.py): a host failing on several rails is down, one
    host's NIC on one rail is down, pairs failing all over a rail point at its leaf."""
    ev = x.ev.get("rails")
    if ev is None or ev.errors or not (f := facts_of(ev, RailFacts)).get("failing"):
        return []
    per, blamed = f["rails"], f.get("culprits") or {}
    on: dict[str | None, list[str]] = {}  # a NIC's culprit always names its host
    for k, c in blamed.items():
        if c["kind"] == "nic":
            on.setdefault(c["device"], []).append(k)
    out = [Hit("host.down", h, None, f"{h}'s NICs fail on rails {', '.join(ks)}: every pair "
               f"of the job's hosts with {h} on those rails is unreachable", x.cite("rails"), [
               f"Drain {h} in the scheduler and requeue {{job}} on healthy hosts.",
               f"Check {h}'s BMC/console (power, kernel panic) before returning it."], 0.75)
           for h, ks in on.items() if len(ks) >= 2]
    for k, c in blamed.items():
        if c["kind"] == "nic" and len(on[c["device"]]) >= 2:
            continue
        r = per[k]
        dev, port = c["device"], c["interface"]
        where = f"{dev} {port}" if port else (dev or f"rail {k}'s leaves")
        out.append(Hit("link.down" if port else "device.down", dev, port, (
            f"on rail {k}, {r['failing']} of the {r['checked']} pairs of the job's hosts traced "
            f"fail, pointing at {where}"), x.cite("rails"), [
            f"Check {where}: its link state, optics and the rail leaf's port.",
            "Drain the host behind it and requeue {job} if it does not come back."], 0.7))
    return out
