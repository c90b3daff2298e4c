"""The first connectivity workflow: read the traceroute's stop code, then the open alarms on
every device of the flow's equal-cost paths, then changes, and name the cause they support.

Stop codes are direct evidence (an ACL answers !X, a missing route !N, a dead host link !H);
alarms explain what the trace cannot see (a lossy member of an ECMP group it did not take).
Closed alarms are background unless they are a reboot's; they are listed for reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from netopsai.evidence import Evidence

# open alarm kind -> label, most specific first
ALARM_LABELS: list[tuple[str, str | None, str]] = [
    ("DEVICE_UNREACHABLE", None, "device.down"),
    ("LINK_DOWN", "dci", "dci.link_down"),
    ("LINK_FLAP", None, "link.flapping"),
    ("OPTICS_RX_LOW", None, "link.errors"),
    ("INTERFACE_ERRORS", None, "link.errors"),
    ("HIGH_UTILIZATION", None, "link.congestion"),
    ("LINK_DOWN", None, "link.down"),
    ("BGP_DOWN", None, "routing.bgp_down"),
]


@dataclass
class Finding:
    text: str
    cites: list[str]


@dataclass
class Diagnosis:
    label: str
    device: str | None = None
    interface: str | None = None
    confidence: float = 0.0
    because: list[Finding] = field(default_factory=list)
    clean: list[Finding] = field(default_factory=list)
    reference: list[dict[str, Any]] = field(default_factory=list)  # closed alarms

    def root_cause(self) -> dict[str, Any]:
        return {"label": self.label, "device": self.device, "interface": self.interface,
                "confidence": self.confidence}


@dataclass
class Facts:
    """The turn's evidence, sorted by kind."""

    traces: list[Evidence]
    alarms: list[tuple[str, dict[str, Any]]]  # (evidence id, row)
    changes: list[tuple[str, dict[str, Any]]]
    alarm_ids: list[str]
    change_ids: list[str]

    @classmethod
    def of(cls, evidence: list[Evidence]) -> Facts:
        ok = [e for e in evidence if not e.errors]
        al = [e for e in ok if e.tool == "alarms"]
        ch = [e for e in ok if e.tool == "changelog"]
        return cls([e for e in ok if e.tool == "traceroute"],
                   [(e.id, r) for e in al for r in e.rows],
                   [(e.id, r) for e in ch for r in e.rows], [e.id for e in al], [e.id for e in ch])

    def open_on(self, devices: set[str]) -> list[tuple[str, dict[str, Any]]]:
        """Open alarms on these devices, on DCI links, or on a device that is the dead peer
        of a link alarm on these devices."""
        peers = {r.get("peer") for _, r in self.alarms
                 if r["state"] == "open" and r["device"] in devices and r.get("peer")}
        seen: set[int] = set()
        out = []
        for eid, r in self.alarms:
            relevant = r["device"] in devices or r["category"] == "dci" or (
                r["kind"] == "DEVICE_UNREACHABLE" and r["device"] in peers)
            if r["state"] == "open" and relevant and r["id"] not in seen:
                seen.add(r["id"])
                out.append((eid, r))
        return out

    def changes_on(self, device: str | None) -> list[tuple[str, dict[str, Any]]]:
        return [(eid, r) for eid, r in self.changes if r["device"] == device]


def diagnose(evidence: list[Evidence]) -> Diagnosis:
    f = Facts.of(evidence)
    if not f.traces:
        return Diagnosis("inconclusive", because=[Finding(
            "no traceroute could be run between the two addresses", [e.id for e in evidence])])
    main = f.traces[0]
    devices = set(main.facts.get("ecmp_devices") or main.facts.get("path_devices") or [])
    d = _from_stop(main, f, devices) if not main.facts.get("reached") else _from_failing(main)
    d = d or _from_big_probe(f) or _from_alarms(main, f, devices) or _from_loss(main, f)
    if d is None:
        d = Diagnosis("none", confidence=0.8, because=[Finding(
            f"the path is healthy: traceroute reached the destination with no loss, "
            f"{main.facts.get('good_paths')} of {main.facts.get('ecmp_paths')} ECMP paths deliver "
            f"and no alarm is open on any device of those paths", [main.id, *f.alarm_ids])])
    _add_context(d, main, f, devices)
    return d


def _stop_hop(trace: Evidence) -> dict[str, Any]:
    return trace.rows[-1] if trace.rows else {}


def _from_stop(trace: Evidence, f: Facts, devices: set[str]) -> Diagnosis | None:
    at, reason = trace.facts.get("stopped_at"), str(trace.facts.get("reason", ""))
    status = str(_stop_hop(trace).get("status", ""))
    cite = [trace.id]
    if status == "!X":
        return Diagnosis("config.acl_block", at, None, 0.9, [Finding(
            f"traceroute stops at {at} with !X (administratively prohibited): an ACL there "
            f"drops the traffic", cite)])
    if status.startswith("!F"):
        m = re.search(r"on (\S+) (\S+) -> (\S+) (\S+)", reason)
        return Diagnosis("config.mtu_mismatch", at, m.group(2) if m else None, 0.9, [Finding(
            f"probes stop at {at} with {status}: {reason}", cite)])
    if status == "*" and "does not answer" in reason:
        host = re.search(r"host (\S+) does not answer", reason)
        return Diagnosis("host.down", host.group(1) if host else at, None, 0.85, [Finding(
            f"the path reaches the ToR {at} but the destination host does not answer", cite)])
    if status == "*":
        return Diagnosis("routing.blackhole", at, None, 0.8, [Finding(
            f"traceroute gets no reply beyond {at}, which answers itself: traffic is dropped "
            f"there (a null route) while no link or device alarm explains it", cite)])
    return _from_alarms(trace, f, devices | {at or ""}, unreachable=True) or Diagnosis(
        "inconclusive", at, None, 0.3, [Finding(f"traceroute stops at {at} ({status}: {reason}) "
                                                f"and no open alarm explains it", cite)])


def _from_failing(trace: Evidence) -> Diagnosis | None:
    """The traced path works but other equal-cost paths of the flow do not."""
    fail = trace.facts.get("failing")
    if not fail:
        return None
    reason = str(fail["reason"])
    label = ("config.mtu_mismatch" if reason.startswith("MTU") else
             "config.acl_block" if "ACL" in reason else "routing.blackhole")
    return Diagnosis(label, fail["device"], fail.get("interface"), 0.8, [Finding(
        f"only {trace.facts.get('good_paths')} of {trace.facts.get('ecmp_paths')} equal-cost "
        f"paths deliver; the others fail at {fail['device']}"
        f"{' ' + fail['interface'] if fail.get('interface') else ''}: {reason}", [trace.id])])


def _from_big_probe(f: Facts) -> Diagnosis | None:
    """Large probes with DF set: small packets pass, big ones die on a smaller-MTU link."""
    for t in f.traces[1:]:
        if not t.facts.get("reached") and str(_stop_hop(t).get("status", "")).startswith("!F"):
            return _from_stop(t, f, set())
        if t.facts.get("reached") and t.facts.get("failing"):
            return _from_failing(t)
    return None


def _from_alarms(trace: Evidence, f: Facts, devices: set[str],
                 unreachable: bool = False) -> Diagnosis | None:
    open_ = f.open_on(devices)
    for kind, category, label in ALARM_LABELS:
        hits = [(eid, r) for eid, r in open_ if r["kind"] == kind
                and (category is None or r["category"] == category)]
        if not hits:
            continue
        eid, r = hits[0]
        verb = "cannot reach the destination" if unreachable else "carries degraded paths"
        return Diagnosis(label, r["device"], r.get("interface"), 0.8, [Finding(
            f"open {r['kind']} alarm on {r['device']}"
            f"{' ' + r['interface'] if r.get('interface') else ''}: {r['message']}; the flow "
            f"{verb} ({trace.facts.get('good_paths')} of {trace.facts.get('ecmp_paths')} ECMP "
            f"paths deliver)", [eid, trace.id])])
    reboots = [(eid, r) for eid, r in f.alarms if r["kind"] == "DEVICE_REBOOT" and r["device"] in devices]
    if reboots:
        eid, r = reboots[0]
        return Diagnosis("device.reboot", r["device"], None, 0.75, [Finding(
            f"{r['device']} rebooted at {r['raised_at']} ({r['message']}); its links went down "
            f"and came back", [eid])])
    return None


def _from_loss(trace: Evidence, f: Facts) -> Diagnosis | None:
    prev = None
    for hop in trace.rows:
        if hop.get("loss_pct"):
            return Diagnosis("inconclusive", hop.get("device"), None, 0.4, [Finding(
                f"loss starts at hop {hop['hop']} ({hop.get('device')}, after {prev}) with no "
                f"alarm to say why", [trace.id])])
        prev = hop.get("device")
    return None


def _add_context(d: Diagnosis, trace: Evidence, f: Facts, devices: set[str]) -> None:
    ids = f.change_ids or []
    on_culprit = f.changes_on(d.device)
    if on_culprit:
        eid, r = on_culprit[0]
        d.because.append(Finding(f"change {r['ticket']} on {r['device']} at {r['start']} "
                                 f"(\"{r['summary']}\", {r['status']}) precedes it", [eid]))
    elif ids:
        tickets = ", ".join(f"{r['ticket']} on {r['device']}" for _, r in f.changes[:4]) or "none"
        d.clean.append(Finding(f"change records on the flow's devices in the window: {tickets}"
                               + ("; none on the device at fault" if d.device else ""), ids))
    if trace.facts.get("reached"):
        d.clean.append(Finding(f"traceroute reaches the destination in {trace.facts.get('hops')} "
                               f"hops", [trace.id]))
    if f.alarm_ids and not f.open_on(devices):
        d.clean.append(Finding(f"no open alarm on the {len(devices)} devices of the flow's paths "
                               f"or on DCI links", f.alarm_ids))
    d.reference = [r for _, r in f.alarms if r["state"] == "closed"][:10]
