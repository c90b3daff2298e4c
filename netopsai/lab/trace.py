"""A simulated traceroute over the forwarding model: what `traceroute -n` would print, hop by
hop, with the stop codes real routers give (!N no route, !H host unreachable, !X filtered,
!F fragmentation needed, * silence)."""

from __future__ import annotations

import zlib

from netopsai.lab.fabric import owner_of, parse_ip
from netopsai.lab.forwarding import LATENCY_MS, MAX_HOPS, Hop, Router, Trace, flow_pick


class TraceError(ValueError):
    """An address the lab does not know."""


def _resolve_dst(router: Router, dst: str) -> tuple[str, str | None, int]:
    """(routing anchor device, final host or None, host link id)."""
    topo = router.topo
    if dst in topo.hosts:
        host, tor, link = topo.hosts[dst]
        return tor, host, link
    owner = owner_of(topo, dst)
    if owner:
        return owner[0], None, 0
    seg = topo.segment_tor(parse_ip(dst))
    if seg:
        return seg[1], "", 0  # an unassigned address in a known segment: ARP fails at the ToR
    raise TraceError(f"{dst} is in no segment of the inventory")


def _jitter(*parts: str) -> float:
    return (zlib.crc32("|".join(parts).encode()) % 90) / 1000.0


def trace(router: Router, src: str, dst: str, size: int = 60) -> Trace:
    with router.lock:  # tools run concurrently; the router's memos are not thread-safe
        return _trace(router, src, dst, size)


def _trace(router: Router, src: str, dst: str, size: int = 60) -> Trace:
    topo, st = router.topo, router.state
    sip, dip = parse_ip(src), parse_ip(dst)
    owner = owner_of(topo, src)
    if owner is None:
        raise TraceError(f"no device in the inventory holds source address {src}")
    anchor, final, host_link = _resolve_dst(router, dst)
    t = Trace(src=src, dst=dst)
    cur, rtt, survive, n = owner[0], 0.0, 1.0, 0
    if src in topo.hosts:
        first = _leave_host(t, router, size)
        if first is None:
            return t
        cur, rtt, n = topo.hosts[src][1], first, 1
    memo = router.paths_memo(anchor, size, sip, dip)
    t.ecmp_paths, t.good_paths = router.count_paths(cur, anchor, sip, dip, size, memo)
    t.ecmp_devices = router.ecmp_devices(cur, anchor)
    t.failure = router.find_failure(cur, anchor, sip, dip, size, memo)
    last_ip = t.hops[-1].ip if t.hops else src
    while n < MAX_HOPS:
        drop = router.drops(cur, sip, dip)
        if drop == "!X":
            t.hops.append(Hop(n + 1, last_ip, cur, None, status="!X"))
            t.stopped_at, t.reason = cur, f"administratively prohibited at {cur} (ACL deny)"
            break
        if drop == "*":
            t.hops += [Hop(n + i, None, None, None, status="*") for i in (1, 2, 3)]
            t.stopped_at, t.reason = cur, f"no reply beyond {cur} (traffic dropped there)"
            break
        if cur == anchor:
            _deliver(t, router, cur, final, host_link, n, last_ip, rtt, survive, size)
            break
        nhs = router.next_hops(cur, anchor)
        if not nhs:
            t.hops.append(Hop(n + 1, last_ip, cur, None, status="!N"))
            t.stopped_at, t.reason = cur, f"no route to {dst} at {cur}"
            break
        e = flow_pick(nhs, src, dst, cur)
        if t.hops and t.hops[-1].device == cur:
            t.hops[-1].out_interface = e.local_if
        mtu = router.mtu(cur, e)
        if size > mtu:
            t.hops.append(Hop(n + 1, last_ip, cur, None, status=f"!F-{mtu}"))
            t.stopped_at = cur
            t.reason = (f"probe of {size} bytes exceeds MTU {mtu} on {cur} {e.local_if} -> "
                        f"{e.peer} {e.peer_if}")
            break
        survive *= 1 - st.link_loss.get(e.link_id, 0.0) / 100
        rtt += 2 * LATENCY_MS.get(e.kind, 0.05) + st.link_delay.get(e.link_id, 0.0)
        rtt += _jitter(src, dst, e.peer)
        n += 1
        last_ip = topo.iface_ip.get((e.peer, e.peer_if))
        t.hops.append(Hop(n, last_ip, e.peer, e.peer_if, rtt_ms=round(rtt, 3),
                          loss_pct=round((1 - survive) * 100, 1)))
        cur = e.peer
    else:
        t.stopped_at, t.reason = cur, f"gave up after {MAX_HOPS} hops"
    # the device that answers a stop code (!H, !X ...) is already the hop before it
    t.path_devices = [h.device for h in t.hops if h.device and h.status in ("ok", "reached")]
    return t


def plainly_delivered(router: Router, src: str, dst: str, size: int = 60) -> tuple[int, int, int] | None:
    """(hops, paths that deliver, ECMP paths) of the trace from host `src` to host `dst` when
    it plainly delivers: reached, no equal-cost path failing, no loss on a link of its path;
    None for any other trace, whose full account is trace()'s. The same walk as _trace without
    what a healthy pair's batch row never reads (hop records, RTTs, the ECMP device set): a
    batch's 10,000 pairs are nearly all healthy (tests/lab/test_trace_plain.py compares the
    two on every kind of fault)."""
    with router.lock:
        topo, st = router.topo, router.state
        if src not in topo.hosts or dst not in topo.hosts:
            return None
        host, cur, link = topo.hosts[src]
        anchor, final, host_link = topo.hosts[dst][1], topo.hosts[dst][0], topo.hosts[dst][2]
        if link in st.down_links or host in st.hosts_down or final in st.hosts_down:
            return None
        if host_link in st.down_links:
            return None
        edge = next(e for e in topo.edges(host) if e.link_id == link)
        if size > router.mtu(host, edge):
            return None
        sip, dip = parse_ip(src), parse_ip(dst)
        memo = router.paths_memo(anchor, size, sip, dip)
        total, good = router.count_paths(cur, anchor, sip, dip, size, memo)
        if good < total and router.find_failure(cur, anchor, sip, dip, size, memo) is not None:
            return None
        loss = st.link_loss
        for n in range(1, MAX_HOPS):
            if router.drops(cur, sip, dip) is not None:
                return None
            if cur == anchor:
                last = next((e for e in topo.edges(cur) if e.link_id == host_link), None)
                if last is not None and size > router.mtu(cur, last):
                    return None
                return n + 1, good, total
            nhs = router.next_hops(cur, anchor)
            if not nhs:
                return None
            e = flow_pick(nhs, src, dst, cur)
            if size > router.mtu(cur, e) or loss.get(e.link_id):
                return None
            cur = e.peer
        return None


def _leave_host(t: Trace, router: Router, size: int) -> float | None:
    """The source host's hop to its ToR: the RTT so far, or None when the probe cannot leave."""
    topo, st = router.topo, router.state
    host, tor, link = topo.hosts[t.src]
    if link in st.down_links or host in st.hosts_down:
        t.hops = [Hop(1, None, None, None, status="!N")]
        t.stopped_at, t.reason = host, f"source {host} has no working link to {tor}"
        return None
    edge = next(e for e in topo.edges(host) if e.link_id == link)
    mtu = router.mtu(host, edge)
    if size > mtu:
        t.hops = [Hop(1, None, None, None, status=f"!F-{mtu}")]
        t.stopped_at = host
        t.reason = (f"probe of {size} bytes exceeds MTU {mtu} on {host} {edge.local_if} -> "
                    f"{tor} {edge.peer_if}")
        return None
    rtt = 2 * LATENCY_MS["host"] + _jitter(t.src, t.dst, tor)
    t.hops.append(Hop(1, topo.gateway.get(tor), tor, edge.peer_if, rtt_ms=round(rtt, 3)))
    return rtt


def _deliver(t: Trace, router: Router, tor: str, final: str | None, host_link: int, n: int,
             last_ip: str | None, rtt: float, survive: float, size: int) -> None:
    st = router.state
    if final is None:  # the destination is an address of this device
        t.reached = True
        if t.hops:
            t.hops[-1].status = "reached"
        return
    good, t.good_paths = t.good_paths, 0  # every path ends on this host link: none delivers
    if final == "":
        t.hops.append(Hop(n + 1, last_ip, tor, None, status="!H"))
        t.stopped_at, t.reason = tor, f"{t.dst} is not assigned to any host (ARP fails at {tor})"
        return
    if host_link in st.down_links:
        t.hops.append(Hop(n + 1, last_ip, tor, None, status="!H"))
        t.stopped_at, t.reason = tor, f"host {final} unreachable from {tor}: its link is down"
        return
    edge = next((e for e in router.topo.edges(tor) if e.link_id == host_link), None)
    mtu = router.mtu(tor, edge) if edge else size
    if edge and size > mtu:
        t.hops.append(Hop(n + 1, last_ip, tor, None, status=f"!F-{mtu}"))
        t.stopped_at = tor
        t.reason = (f"probe of {size} bytes exceeds MTU {mtu} on {tor} {edge.local_if} -> "
                    f"{final} {edge.peer_if}")
        return
    if final in st.hosts_down:
        t.hops += [Hop(n + i, None, None, None, status="*") for i in (1, 2, 3)]
        t.stopped_at, t.reason = tor, f"path reaches {tor}; host {final} does not answer"
        return
    t.good_paths = good
    rtt += 2 * LATENCY_MS["host"] + _jitter(t.src, t.dst, final)
    t.hops.append(Hop(n + 1, t.dst, final, router.topo.host_if.get(t.dst, "eth0"), rtt_ms=round(rtt, 3),
                      loss_pct=round((1 - survive) * 100, 1), status="reached"))
    t.reached = True
