"""Scenario builders: one fault on a flow's path, healthy flows (with the noise a correct
diagnosis must see through), red herrings and two faults at once. Each returns the scenario's
faults, its expectation and the flow the question is about; generate.py adds ids and noise."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from netopsai.arena.places import CROSSES, Flow, LabView, PathLink

LABEL = {
    "link_down": "link.down", "link_flap": "link.flapping", "crc_errors": "link.errors",
    "optic_degraded": "link.errors", "congestion": "link.congestion",
    "mtu_mismatch": "config.mtu_mismatch", "dci_link_down": "dci.link_down",
    "device_down": "device.down", "device_reboot": "device.reboot", "host_down": "host.down",
    "acl_block": "config.acl_block", "blackhole": "routing.blackhole", "bgp_down": "routing.bgp_down",
}
KINDS = tuple(LABEL)
# the GPU fabric's kinds (issue 15 §1, netopsai.lab.fault_kinds_ai) and their labels: scored as
# any scenario's, not generated on the default lab (LABEL and KINDS above stay the generator's)
AI_LABEL = {
    "nic_flap": "link.flapping", "pfc_storm": "link.pfc_storm", "ecmp_collision": "link.ecmp_collision",
    "rail_link_down": "link.down", "gpu_host_down": "host.down",
}
NET = ("leaf", "spine", "superspine", "border", "dci")
ALL_PLACES = ("host", *NET)
LINK_KINDS = ("link_down", "link_flap", "crc_errors", "optic_degraded", "congestion", "mtu_mismatch")
PLACES: dict[str, tuple[str, ...]] = {
    # a DCI circuit or a backbone link (named after its border end) going down is
    # dci_link_down's case (same symptoms, its own label: shared/specs/scenario.md)
    **{k: ALL_PLACES for k in LINK_KINDS}, "link_down": ALL_PLACES[:-2],
    "dci_link_down": ("dci", "border"), "bgp_down": NET,
    "device_down": NET, "device_reboot": NET, "acl_block": NET, "blackhole": NET,
    "host_down": ("host",),
}
ON_LINK = {*LINK_KINDS, "dci_link_down", "bgp_down"}
PORT_KINDS = {"crc_errors", "optic_degraded", "congestion", "mtu_mismatch"}  # one end's port
ALARMED = {"link_down", "link_flap", "crc_errors", "optic_degraded", "congestion", "dci_link_down",
           "device_down", "device_reboot", "bgp_down"}
CAUSE = {
    "acl_block": ["Apply new ACL set", "Harden ingress filter NETOPS-FILTER"],
    "blackhole": ["Add static route for decommissioned segment", "Null-route prefix during migration"],
    "mtu_mismatch": ["Set interface MTU to the standard value on {ifname}"],
    "link_down": ["Shut {ifname} for cabling work"],
    "optic_degraded": ["Replace optic on {ifname}"],
    "bgp_down": ["Update BGP peer policy", "Adjust BGP timers to 3/9"],
    "device_reboot": ["Upgrade to maintenance release"],
    "congestion": ["Move tenant traffic onto {ifname}"],
}
HARMLESS = ["Update NTP servers", "Enable sFlow sampling 1:8192", "Rotate SNMP community and AAA keys",
            "Update syslog servers", "Add descriptions to unused ports"]
HERRING_KINDS = ("link_down", "link_flap", "crc_errors", "optic_degraded", "congestion",
                 "device_down", "bgp_down")


@dataclass
class Built:
    flow: Flow
    faults: list[dict[str, Any]]
    label: str
    devices: list[str] = field(default_factory=list)
    interface: str | None = None
    must_cite: list[str] = field(default_factory=lambda: ["traceroute", "alarms"])
    fault_kind: str | None = None  # the on-path fault the user suffers, for the wording
    notes: dict[str, Any] = field(default_factory=dict)


def fault(kind: str, minutes: int, target: dict[str, str], **params: Any) -> dict[str, Any]:
    f: dict[str, Any] = {"kind": kind, "at": f"-{minutes}m", "target": target}
    if params:
        f["params"] = params
    return f


def ticket(rng: random.Random) -> str:
    return f"CHG-{rng.randint(2000, 6999)}"


def flow_through(view: LabView, rng: random.Random, place: str, on_link: bool) -> Flow:
    """A host pair whose traced path crosses `place` (a device of that role, or a link named
    after it)."""
    kinds = CROSSES[place][1 if on_link else 0]
    for _ in range(50):
        pk = rng.choice(kinds)
        flow = view.flow(*view.pair(rng, pk), pk)
        if flow.reached and (_links_at(flow, place) if on_link else _devices_at(view, flow, place)):
            return flow
    raise RuntimeError(f"no flow of the lab crosses a {place}")


def _links_at(flow: Flow, place: str) -> list[PathLink]:
    return [lk for lk in flow.links if lk.place == place]


def _devices_at(view: LabView, flow: Flow, place: str) -> list[str]:
    return [d for d in flow.devices if view.role[d] == place]


def on_path(view: LabView, rng: random.Random, kind: str, place: str) -> Built:
    """One fault of `kind` at `place` on the traced path of a fresh flow."""
    flow = flow_through(view, rng, place, kind in ON_LINK)
    mins = rng.randint(8, 50)
    if kind in ON_LINK:
        b = link_fault(view, rng, kind, flow, rng.choice(_links_at(flow, place)), mins)
    elif kind == "host_down":  # either end: a dead source host cannot send the probe at all
        host = rng.choice([flow.src, flow.dst]).name
        b = Built(flow, [fault(kind, mins, {"device": host})], LABEL[kind], [host],
                  must_cite=["traceroute"])
    else:
        dev = rng.choice(_devices_at(view, flow, place))
        b = Built(flow, [device_fault(rng, kind, dev, flow, mins)], LABEL[kind], [dev],
                  must_cite=["traceroute", "alarms"] if kind in ALARMED else ["traceroute"])
    b.fault_kind = kind
    b.notes.update(kind=kind, place=place)
    if rng.random() < (0.5 if kind in ("acl_block", "blackhole") else 0.25):
        _add_cause(rng, b, kind, mins)
    return b


def device_fault(rng: random.Random, kind: str, dev: str, flow: Flow, mins: int) -> dict[str, Any]:
    if kind == "acl_block":
        dst = flow.dst.segment if rng.random() < 0.7 else f"{flow.dst.ip}/32"
        extra = {"src": flow.src.segment} if rng.random() < 0.3 else {}
        return fault(kind, mins, {"device": dev}, dst=dst, **extra)
    if kind == "blackhole":
        return fault(kind, mins, {"device": dev}, dst=flow.dst.segment)
    return fault(kind, mins, {"device": dev})


def link_fault(view: LabView, rng: random.Random, kind: str, flow: Flow, lk: PathLink,
                mins: int) -> Built:
    ends = [(lk.a, lk.a_if), (lk.b, lk.b_if)]
    if kind in PORT_KINDS and lk.place == "host":
        ends = ends[1:]  # a port fault the network sees is on the ToR's port, not the server's
    end, ifname = rng.choice(ends)
    where = f"{end}:{ifname}"
    if kind == "dci_link_down":
        return _dci_fault(view, rng, flow, lk, mins)
    choices: dict[str, dict[str, Any]] = {
        "link_flap": {"count": rng.randint(4, 12)}, "crc_errors": {"rate": rng.randint(300, 2000)},
        "optic_degraded": {"rx_power_dbm": round(rng.uniform(-16.5, -13.0), 1)},
        "congestion": {"util": round(rng.uniform(0.93, 0.99), 2)},
        "mtu_mismatch": {"mtu": rng.choice([1500, 4470, 8000])}}
    params = choices.get(kind, {})
    if kind == "link_down" and lk.place != "host" and rng.random() < 0.4:
        params = {"reason": rng.choice(["admin", "optic"])}  # a shut port, a pulled optic
    target = {"interface" if kind in PORT_KINDS else "link": where}
    must = ["traceroute", "alarms"] if kind in ALARMED else ["traceroute"]
    b = Built(flow, [fault(kind, mins, target, **params)], LABEL[kind], lk.ends(), ifname, must)
    b.notes["target"] = where
    return b


def _dci_fault(view: LabView, rng: random.Random, flow: Flow, lk: PathLink, mins: int) -> Built:
    """One circuit (or backbone link) of the path, every one between its two devices, or every
    one of the lab."""
    scope = rng.choice(["circuit", "pair", "all"])
    rows = [r for r in view.link_rows if r["kind"] == lk.kind and (
        scope == "all" or {r["a_device"], r["b_device"]} == {lk.a, lk.b})]
    if scope == "circuit":
        rows = [r for r in rows if (r["a_device"], r["a_interface"]) in ((lk.a, lk.a_if), (lk.b, lk.b_if))
                or (r["b_device"], r["b_interface"]) in ((lk.a, lk.a_if), (lk.b, lk.b_if))]
    on = {(lk.a, lk.a_if), (lk.b, lk.b_if)}
    rows.sort(key=lambda r: (r["a_device"], r["a_interface"]) not in on
              and (r["b_device"], r["b_interface"]) not in on)  # the path's circuit first
    faults = [fault("dci_link_down", mins, {"link": f"{r['a_device']}:{r['a_interface']}"}) for r in rows]
    ends = sorted({d for r in rows for d in (r["a_device"], r["b_device"])})
    b = Built(flow, faults, LABEL["dci_link_down"], ends)
    b.notes["dci_scope"] = scope
    return b


def _add_cause(rng: random.Random, b: Built, kind: str, mins: int) -> None:
    """The change that caused the fault, on the faulty device, a little before it."""
    first = b.faults[0]["target"]
    dev = first.get("device") or (first.get("link") or first.get("interface") or "").split(":")[0]
    if dev in (b.flow.src.name, b.flow.dst.name):  # hosts have no change records in this lab
        return
    summary = rng.choice(CAUSE.get(kind, ["Configuration change"])).format(ifname=b.interface or "")
    b.faults.append(fault("change", mins + 2, {"device": dev}, summary=summary, ticket=ticket(rng)))
    b.must_cite = [*b.must_cite, "changelog"]
    b.notes["cause_change"] = True
