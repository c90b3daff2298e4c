"""A flow's hops as the lab's trace rows, and where and why it stopped, in the lab's words
(netopsai.lab.trace), so the copilot's diagnosis reads a real trace like a simulated one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netopsai.backends.rows import Failing, Hop
from netopsai.backends.traceroute.map import InventoryMap
from netopsai.backends.traceroute.run import Flow
from netopsai.common.errors import NetopsError

Row = dict[str, Any]
# what traceroute says when the source itself cannot send: no route, a null route, link down
NO_SEND = ("Network is unreachable", "Invalid argument", "No route to host",
           "Cannot assign requested address")


@dataclass
class Outcome:
    reached: bool
    stopped_at: str | None = None
    reason: str = ""
    status: str = ""  # the last hop's status: reached, !X, !N, !H, *, ...
    devices: list[str] = field(default_factory=list)  # devices that answered, in order

    def failing(self) -> Failing | None:
        """This flow as a failing ECMP member, in the lab's words; None when an alarm, not the
        trace, has to say why (no route: a link or device is down)."""
        why = {"!X": "ACL deny (!X)", "*": "dropped by a null route"}.get(self.status)
        if self.reached or not why or not self.stopped_at:
            return None
        return {"device": self.stopped_at, "interface": None, "reason": why}


def flow_rows(flow: Flow, src: str, dst: str, inv: InventoryMap) -> list[Hop]:
    if flow.error:
        return [{"hop": 1, "ip": None, "device": None, "interface": None, "out_interface": None,
                 "rtt_ms": None, "loss_pct": 0.0, "status": "!N"}]
    rows: list[Hop] = []
    for h in flow.hops:
        device, iface = inv.owner(h.ip) if h.ip else (None, None)
        status = h.code or ("*" if not h.ip else "reached" if h.ip == dst else "ok")
        rows.append({"hop": h.hop, "ip": h.ip, "device": device, "interface": iface,
                     "out_interface": None, "rtt_ms": h.rtt_ms,
                     "loss_pct": h.loss_pct if h.ip else 0.0, "status": status})
    answered = [r for r in rows if r["device"]]
    for here, nxt in zip(answered, answered[1:], strict=False):
        if here["device"] != nxt["device"]:
            here["out_interface"] = inv.out_interface(str(here["device"]), str(nxt["device"]))
    return rows


def next_seen(outcomes: list[Outcome]) -> dict[str, set[str]]:
    """device -> the devices that followed it on flows that got through."""
    seen: dict[str, set[str]] = {}
    for o in outcomes:
        if o.reached:
            for a, b in zip(o.devices, o.devices[1:], strict=False):
                seen.setdefault(a, set()).add(b)
    return seen


def outcome(flow: Flow, rows: list[Hop], src: str, dst: str, inv: InventoryMap,
            seen: dict[str, set[str]] | None = None) -> Outcome:
    devices = [r["device"] for r in rows if r["device"] and r["status"] in ("ok", "reached")]
    if flow.error:
        if not any(w in flow.error for w in NO_SEND):
            raise NetopsError(f"traceroute from {src} to {dst} failed: {flow.error}")
        host = inv.owner(src)[0] or src
        return Outcome(False, host, f"source {host} has no working link to "
                       f"{inv.tor_of(src) or 'its gateway'} ({flow.error})", "!N", [])
    last = rows[-1] if rows else {"status": "*", "device": None}
    status = str(last["status"])
    if status == "reached":
        return Outcome(True, None, "", status, devices)
    if status == "*":
        return _silent(rows, src, dst, inv, devices, seen or {})
    at = last["device"] or str(last.get("ip"))
    return Outcome(False, at, _code_reason(status, at, dst, inv), status, devices)


def _code_reason(code: str, at: str, dst: str, inv: InventoryMap) -> str:
    if code == "!X":
        return f"administratively prohibited at {at} (ACL deny)"
    if code == "!N":
        return f"no route to {dst} at {at}"
    if code == "!H":
        host, tor = inv.owner(dst)[0], inv.tor_of(dst)
        if tor == at:
            return (f"host {host} unreachable from {at} (ARP fails there)" if host else
                    f"{dst} is not assigned to any host (ARP fails at {at})")
        return f"{dst} unreachable at {at} (!H, host unreachable)"
    if code.startswith("!F"):
        return f"probe exceeds the path MTU at {at} ({code}, fragmentation needed)"
    return f"{at} answered {code} (unreachable)"


def _silent(rows: list[Hop], src: str, dst: str, inv: InventoryMap, devices: list[str],
            seen: dict[str, set[str]]) -> Outcome:
    """Silence after the last answer. A filter drops after its own router answered; a null
    route drops before the TTL check, so the silent router is the one after the last answer:
    the inventory's next device towards the destination, less those that passed traffic."""
    last = devices[-1] if devices else inv.owner(src)[0]
    if last is None:
        return Outcome(False, None, f"no reply from any hop towards {dst}", "*", devices)
    target = inv.owner(dst)[0] or inv.tor_of(dst)
    nxt = inv.next_towards(last, target, set(devices) | seen.get(last, set())) if target else []
    host = inv.owner(dst)[0]
    if nxt == [host] and host is not None:
        return Outcome(False, last, f"path reaches {last}; host {host} does not answer", "*", devices)
    if len(nxt) == 1:
        return Outcome(False, nxt[0], f"no reply beyond {last} (traffic dropped at {nxt[0]}, "
                       f"the next device towards {dst})", "*", devices)
    return Outcome(False, last, f"no reply beyond {last} (traffic dropped there)", "*", devices)
