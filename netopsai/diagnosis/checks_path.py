"""Verification checks read from the traceroutes: ACL filters, MTU, null routes, dead hosts.
A stop code is direct evidence; the inventory says whether the host at the end is up."""

from __future__ import annotations

import re
from typing import cast

from netopsai.backends.rows import DeviceDetail, Failing, IpOwner
from netopsai.copilot.evidence import Evidence
from netopsai.diagnosis.base import Verdict, confirmed, rejected, unknown
from netopsai.diagnosis.context import STOP, Context, trace_of
from netopsai.diagnosis.registry import check

MTU_HOP = re.compile(r"on (\S+) (\S+) -> (\S+) (\S+)")


def _stopped(ctx: Context, prefix: str) -> list[Evidence]:
    return [t for t in ctx.traces if not trace_of(t).get("reached")
            and str(ctx.stop_hop(t).get("status", "")).startswith(prefix)]


def _failing(ctx: Context, word: str) -> list[tuple[Evidence, Failing]]:
    """The traces whose failing equal-cost paths stop for `word`, with where (the traceroute
    tool's `failing` fact: backends' Failing)."""
    return [(t, f) for t in ctx.traces
            if (f := trace_of(t).get("failing")) and word in str(f.get("reason", ""))]


def _trace_ids(ctx: Context) -> list[str]:
    return [t.id for t in ctx.traces]


@check("acl_block")
def acl_block(ctx: Context) -> Verdict:
    for t in _stopped(ctx, "!X"):
        at = trace_of(t)["stopped_at"]
        return confirmed(f"traceroute stops at {at} with !X (administratively prohibited): an ACL "
                         f"there drops the traffic", [t.id], at, None, 0.9, position=STOP)
    for t, f in _failing(ctx, "ACL"):
        tf = trace_of(t)
        return confirmed(f"only {tf.get('good_paths')} of {tf.get('ecmp_paths')} "
                         f"equal-cost paths deliver; the others are filtered at {f['device']} "
                         f"({f['reason']})", [t.id], f["device"], f.get("interface"), 0.85,
                         position=STOP)
    return rejected("no probe was filtered: no traceroute stops with !X and every equal-cost "
                    "path passes the ACLs", _trace_ids(ctx))


@check("mtu_mismatch")
def mtu_mismatch(ctx: Context) -> Verdict:
    for t in _stopped(ctx, "!F"):
        tf = trace_of(t)
        m = MTU_HOP.search(str(tf.get("reason", "")))
        return confirmed(f"probes of {t.args.get('size')} bytes stop at {tf['stopped_at']} "
                         f"with {ctx.stop_hop(t).get('status')}: {tf.get('reason')}", [t.id],
                         tf["stopped_at"], m.group(2) if m else None, 0.9,
                         m.group(3) if m else None, STOP)
    for t, f in _failing(ctx, "MTU"):
        return confirmed(f"large probes fail on some equal-cost paths at {f['device']} "
                         f"{f.get('interface') or ''}: {f['reason']}", [t.id], f["device"],
                         f.get("interface"), 0.85, position=STOP)
    big = [t for t in ctx.traces if int(t.args.get("size", 60)) > 1500
           and trace_of(t).get("reached")]
    if big:
        return rejected(f"probes of {big[0].args.get('size')} bytes reach the destination on "
                        f"every equal-cost path", [big[0].id])
    return unknown("no large probe could be sent (the path fails before MTU matters)",
                   _trace_ids(ctx))


def _dst_host(ctx: Context, tor: str | None) -> tuple[DeviceDetail | None, list[str]]:
    """The destination host behind `tor` and its inventory row (status)."""
    for eid, owner in ctx.owners.values():
        if owner.get("tor") == tor and (host := owner.get("device")) and owner.get("role") == "host":
            row, mid = ctx.device(host)
            return row, [eid, mid]
    return None, []


def _source_host(ctx: Context) -> Verdict | None:
    """The probe never left the source host: the host is dead (the inventory's status), or
    its own link is (link_down's case)."""
    m = ctx.main
    if m is None or (mf := trace_of(m)).get("reached") or mf.get("path_devices"):
        return None
    eid, owner = ctx.owners.get(m.args.get("src"), ("", cast(IpOwner, {})))  # {}: no owner read
    if owner.get("role") != "host" or mf.get("stopped_at") != owner.get("device"):
        return None
    row, mid = ctx.device(owner["device"])
    if row is None:
        return None
    if row.get("status") != "up":
        return confirmed(f"the probe cannot leave the source host {row['name']} (no reply from "
                         f"its ToR {owner.get('tor')}); the inventory shows it {row.get('status')}",
                         [m.id, eid, mid], row["name"], None, 0.85, position=STOP)
    return rejected(f"the source host {row['name']} is up per the inventory; the probe is cut "
                    f"between it and {owner.get('tor')}", [m.id, eid, mid])


@check("host_down")
def host_down(ctx: Context) -> Verdict:
    source = _source_host(ctx)
    if source is not None and source.confirmed:
        return source
    for t in _stopped(ctx, "*"):
        at = trace_of(t)["stopped_at"]
        row, cites = _dst_host(ctx, at)
        if row is None:
            continue
        if row.get("status") != "up":
            return confirmed(f"the path reaches {at}, the destination's ToR, "
                             f"but {row['name']} does not answer; the inventory shows it "
                             f"{row.get('status')}", [t.id, *cites], row["name"], None, 0.85,
                             position=STOP)
        return rejected(f"{row['name']} is up per the inventory; the silence at "
                        f"{at} is the network's", [t.id, *cites])
    if source is not None:
        return source
    return rejected("no traceroute ends in silence at the destination's ToR", _trace_ids(ctx))


@check("blackhole")
def blackhole(ctx: Context) -> Verdict:
    for t in _stopped(ctx, "*"):
        at = trace_of(t)["stopped_at"]
        row, cites = _dst_host(ctx, at)
        if row is not None and row.get("status") != "up":
            return rejected(f"the silence after {at} is the destination host's: {row['name']} is "
                            f"{row.get('status')}", [t.id, *cites])
        dead = ctx.alarms_of({"LINK_DOWN", "DEVICE_UNREACHABLE"})
        if any(r["device"] == at for _, r, _ in dead):
            return unknown(f"{at} has open link or device alarms that may explain the drop",
                           [t.id, dead[0][0]])
        return confirmed(f"traceroute gets no reply beyond {at}, which answers itself: traffic "
                         f"to the destination is dropped there (a null route), and no link or "
                         f"device alarm explains it", [t.id, *cites], at, None, 0.8, position=STOP)
    for t, f in _failing(ctx, "null route"):
        tf = trace_of(t)
        return confirmed(f"only {tf.get('good_paths')} of {tf.get('ecmp_paths')} "
                         f"equal-cost paths deliver; the others are dropped at {f['device']} by "
                         f"a null route", [t.id], f["device"], None, 0.8, position=STOP)
    return rejected("no traceroute is swallowed silently on the way", _trace_ids(ctx))
