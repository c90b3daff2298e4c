"""A simulated history of `days` for the lab, for the reliability report's bench, tests and demo:
the lab's own background noise (lab/noise.py) spread over the days, the lab's own faults
(lab/inject.py) at times across them, flap storms built from the lab's transition rows, and what
on-calls did about them: an acknowledgement after a while, a repair change on the faulty device,
the alarms cleared once it ended. The lab has no generator for that last part, so it is here,
drawn from one seeded RNG (the same seed, the same history)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from netopsai.lab.events import link_down_alarms, transitions
from netopsai.lab.inject import inject
from netopsai.lab.manage import lab_info, touch
from netopsai.lab.noise import noise_rows
from netopsai.lab.scenario import Scenario
from netopsai.store import tables as m
from netopsai.store.engine import bulk_insert
from netopsai.store.probes import ProbeResult

FAULT_KINDS = ("link_down", "dci_link_down", "device_reboot", "optic_degraded",
               "crc_errors")
PROBE_EVERY = timedelta(minutes=5)
ONCALL = ["akumar", "jchen", "mrossi", "oadeyemi", "slee", "tnguyen"]


@dataclass(frozen=True)
class Density:
    """How much happens per day."""

    alarms: float = 12
    changes: float = 6
    flaps: float = 4
    faults: float = 1.5
    storms: float = 0.3
    acked: float = 0.6  # share of noise alarms someone acknowledged
    probe_pairs: int = 12  # pairs a timer probes every PROBE_EVERY (`netopsai batch --record`)
    probe_streaks: float = 0.5  # runs of unreachable probes of one pair (5 to 60 minutes)
    probe_degraded: float = 2  # single degraded probes (not bad minutes: the report ignores them)


def simulate(engine: Engine, days: int = 30, seed: int = 11, per_day: Density = Density()) -> int:
    """Add `days` of history before the lab's clock (the lab must exist; its faults are reset
    first, as inject does). Returns the number of alarms the store holds afterwards."""
    rng = random.Random(seed)
    info = lab_info(engine)
    clock = info.clock
    with Session(engine) as s:
        devices = [d.model_dump() for d in s.exec(select(m.Device).where(m.Device.role != "host"))]
        links = [lk.model_dump() for lk in s.exec(select(m.Link).where(m.Link.kind != "host"))]
        hosts = [lk.model_dump() for lk in s.exec(select(m.Link).where(m.Link.kind == "host").limit(200))]
    faults = _faults(rng, devices, links, hosts, days, int(days * per_day.faults))
    lab = {"spec": info.spec, "scale": info.scale, "seed": info.seed}  # this lab: no re-init
    inject(engine, Scenario.model_validate({"id": "reliability-history", "lab": lab,
                                            "question": "", "faults": faults}))
    noise = noise_rows(rng, devices, links, clock - timedelta(days=days), clock,
                       alarms=int(days * per_day.alarms), changes=int(days * per_day.changes),
                       flaps=int(days * per_day.flaps), ticket_base=20000)
    sites = {d["name"]: d["site"] for d in devices}
    for _ in range(int(days * per_day.storms)):
        _storm(rng, rng.choice(links[:40]), sites, clock - timedelta(days=days), noise)
    with Session(engine) as s:
        bulk_insert(s, m.Alarm, noise["alarms"])
        bulk_insert(s, m.Change, noise["changes"])
        bulk_insert(s, m.InterfaceEvent, noise["events"])
        s.flush()
        _repairs(s, rng, clock)
        _acks(s, rng, per_day.acked)
        _probes(s, rng, clock - timedelta(days=days), clock, per_day)
        touch(s)
        s.commit()
        return len(s.exec(select(m.Alarm.id)).all())


def _faults(rng: random.Random, devices: list[dict[str, Any]], links: list[dict[str, Any]],
            hosts: list[dict[str, Any]], days: int, n: int) -> list[dict[str, Any]]:
    """n faults over the days, on a few usual suspects each (so some repeat)."""
    fabric = [lk for lk in links if lk["kind"] == "fabric"][:12]
    dci = [lk for lk in links if lk["kind"] in ("dci", "backbone")][:4]
    leafs = [d["name"] for d in devices if d["role"] in ("leaf", "spine")][:10]
    out = []
    for _ in range(n):
        kind = rng.choice(FAULT_KINDS)
        at = f"-{rng.randint(30, days * 1440 - 60)}m"
        if kind == "device_reboot":
            target = {"device": rng.choice(leafs)}
        else:
            lk = rng.choice(dci if kind == "dci_link_down" else hosts[:8] if kind == "link_down"
                            and rng.random() < 0.4 else fabric)
            key = "link" if kind in ("link_down", "dci_link_down") else "interface"
            target = {key: f"{lk['a_device']}:{lk['a_interface']}"}
        out.append({"kind": kind, "at": at, "target": target})
    return out


def _storm(rng: random.Random, link: dict[str, Any], sites: dict[str, str], since: Any,
           noise: dict[str, list[dict[str, Any]]]) -> None:
    """A port bouncing 3 to 8 times a minute or so apart, and the LINK_FLAP alarms it raises."""
    t = since + timedelta(minutes=rng.randint(60, 29 * 1440))
    first = t
    for _ in range(rng.randint(3, 8)):
        noise["events"] += transitions(link, t, "down", "flap")
        t += timedelta(seconds=rng.randint(5, 40))
        noise["events"] += transitions(link, t, "up", "flap")
        t += timedelta(seconds=rng.randint(20, 90))
    noise["alarms"] += link_down_alarms(link, sites, first, cleared=t, kind="LINK_FLAP")


def _repairs(s: Session, rng: random.Random, clock: Any) -> None:
    """Each fault: its alarms acknowledged, a repair change on its device, then cleared."""
    for i, f in enumerate(s.exec(select(m.LabFault)).all()):
        alarms = s.exec(select(m.Alarm).where(m.Alarm.raised_at == f.start,
                                              col(m.Alarm.cleared_at).is_(None))).all()
        if not alarms:
            continue
        ack_at = f.start + timedelta(minutes=rng.randint(2, 45))
        fix_start = ack_at + timedelta(minutes=rng.randint(5, 180))
        fix_end = fix_start + timedelta(minutes=rng.randint(5, 40))
        if fix_end >= clock:  # still being worked on at the clock
            continue
        device = f.device or alarms[0].device
        s.add(m.AlarmAck(alarm_id=alarms[0].id or 0, action="ack", by=rng.choice(ONCALL),
                         why="looking", at=ack_at))
        s.add(m.Change(ticket=f"CHG-R{i + 1:04d}", device=device, site=alarms[0].site,
                       start=fix_start, end=fix_end, kind="repair", author=rng.choice(ONCALL),
                       summary=f"Repair after {f.kind} on {device}"))
        for a in alarms:
            a.cleared_at, a.state = fix_end + timedelta(minutes=rng.randint(0, 5)), "closed"
            s.add(a)


def _acks(s: Session, rng: random.Random, share: float) -> None:
    """A share of the other alarms acknowledged a few minutes in, while still raised."""
    s.flush()
    acked = set(s.exec(select(m.AlarmAck.alarm_id)).all())
    rows = s.exec(select(m.Alarm.id, m.Alarm.raised_at, m.Alarm.cleared_at)).all()
    for alarm_id, raised, cleared in rows:
        at = raised + timedelta(minutes=rng.randint(1, 30))
        if alarm_id not in acked and rng.random() < share and (cleared is None or at < cleared):
            s.add(m.AlarmAck(alarm_id=alarm_id or 0, action="ack", by=rng.choice(ONCALL), at=at))


def _probes(s: Session, rng: random.Random, since: Any, clock: Any, per_day: Density) -> None:
    """Host pairs across PoDs probed every PROBE_EVERY since `since`, reachable but for a few
    streaks of unreachable probes and some single degraded ones; places as recorded."""
    hosts = s.exec(select(m.HostAddress).where(col(m.HostAddress.pod).is_not(None))
                   .order_by(m.HostAddress.ip)).all()
    by_pod = {h.pod: h for h in hosts}  # one host per PoD: the pairs span PoDs and sites
    ends = rng.sample(sorted(by_pod.values(), key=lambda h: h.ip), min(2 * per_day.probe_pairs,
                                                                      len(by_pod)))
    pairs = list(zip(ends[::2], ends[1::2], strict=False))
    ticks = int((clock - since) / PROBE_EVERY)
    odd: dict[tuple[int, int], str] = {}
    days = ticks * PROBE_EVERY / timedelta(days=1)
    for _ in range(int(days * per_day.probe_streaks)):
        pair, first = rng.randrange(len(pairs)), rng.randrange(ticks)
        for k in range(first, min(ticks, first + rng.randint(1, 12))):
            odd[(pair, k)] = "unreachable"
    for _ in range(int(days * per_day.probe_degraded)):
        odd.setdefault((rng.randrange(len(pairs)), rng.randrange(ticks)), "degraded")
    rows = [{"at": since + (k + 1) * PROBE_EVERY, "src": a.ip, "dst": b.ip,
             "status": odd.get((i, k), "reachable"), "src_device": a.device,
             "dst_device": b.device, "src_site": a.site, "src_pod": a.pod, "dst_site": b.site,
             "dst_pod": b.pod} for i, (a, b) in enumerate(pairs) for k in range(ticks)]
    bulk_insert(s, ProbeResult, rows)
