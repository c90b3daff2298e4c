"""Arena scenario classes of issue 25 items 1-3, from our own generator (see classes.py):

- past-window: a fault that came and went, asked about its window — a fabric link down for a
  few minutes hours ago ("what happened to SPINE between 16:50 and 17:15?", "… this morning",
  "… yesterday around 22:05", "… at 17:02"), a link or router on a flow's path that went down
  for minutes or rebooted ("users
  on A had problems reaching B between …"), a job's rail link down 19:35–19:41 asked "at
  19:38"; the fault's label where it was is the answer;
- return-path: an ACL or a null route that only the way back crosses (on either end's ToR,
  for the source's segment), asked in one-way words ("SYNs arrive but nothing comes back");
- hurried: a fault on a flow's path asked as on-calls type in a hurry (typos, ip:port, "w/",
  "pls", "cant", "times out", names in capitals).

Our generator and our lab: these classes show the pipeline does what the issue asks (no
regression), not that it generalises."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from netopsai.arena.cases import fault, on_path
from netopsai.arena.generate import CLOCK, LabKey
from netopsai.arena.places import LabView

WINDOW_CLASSES = ("past-window", "return-path", "hurried")
DEVICE_ROLES = ("spine", "superspine", "leaf")
FLOW_ROLES = ("spine", "superspine", "border")
ONE_WAY = ("SYNs arrive at {b} from {a} but nothing comes back",
           "one-way traffic between {a} and {b}",
           "{b} says they see our requests from {a} but we get no answers",
           "their side sees our echo requests, {a} -> {b}",
           "SYN goes out from {a} to {b}, no SYN-ACK",
           "replies never come back from {b} to {a}",
           "asymmetric? pings from {a} reach {b} but replies never come back")
HURRIED = ("{a}:443 -> {b} times out", "cant reach {b} from {a} pls chk",
           "ssh from {a} to {b} hangs", "{a} w/ {b} lost conectivity",
           "{A} to {B} flaky", "conection from {a} to {b} keeps timing out",
           "{a} cant talk to {b} rn", "whats wrong b/w {a} and {b}?? urgent")
HURRIED_KINDS = ("link_down", "acl_block", "device_down", "crc_errors", "blackhole")


def _hm(t: Any) -> str:
    return f"{t:%H:%M}"


def _scenario(sid: str, lab: LabKey, faults: list[dict[str, Any]], question: str,
              expect: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    from netopsai.arena.classes import scenario_of as base

    return base(sid, lab, faults, question, expect, rng)


def _device_window(view: LabView, rng: random.Random) -> tuple[str, int, str]:
    """(asked device, minutes before the clock the link went down, the question)."""
    role = rng.choice(DEVICE_ROLES)
    asked = rng.choice(sorted(d for d, r in view.role.items() if r == role))
    how = rng.choice(("between", "morning", "yesterday", "at"))
    mins = {"between": rng.randint(90, 400), "morning": rng.randint(500, 820),
            "yesterday": rng.randint(1260, 1390), "at": rng.randint(60, 300)}[how]
    start = CLOCK - timedelta(minutes=mins)
    q = {"between": f"what happened to {asked} between {_hm(start - timedelta(minutes=rng.randint(5, 20)))}"
                    f" and {_hm(start + timedelta(minutes=rng.randint(15, 30)))}?",
         "morning": f"what's wrong with {asked} this morning?",
         "yesterday": f"what happened to {asked} yesterday around {_hm(start + timedelta(minutes=2))}?",
         "at": f"what happened to {asked} at {_hm(start + timedelta(minutes=1))} today?"}[how]
    return asked, mins, q


def past_device(view: LabView, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """One of the asked device's fabric links down for a few minutes, then back."""
    asked, mins, q = _device_window(view, rng)
    r = rng.choice([x for x in view.link_rows if x["kind"] == "fabric"
                    and asked in (x["a_device"], x["b_device"])])
    end = "a" if r["a_device"] == asked else "b"
    faults = [fault("link_down", mins, {"link": f"{asked}:{r[f'{end}_interface']}"},
                    for_min=rng.randint(3, 12))]
    return _scenario(sid, lab, faults, q, {"root_cause": "link.down", "device": asked,
                                           "must_cite": ["alarms"]}, rng)


def past_flow(view: LabView, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """A router on a flow's path rebooted (down 4 minutes), or a link of the path went down
    for a few minutes, hours ago; the flow asked about a window around it."""
    from netopsai.arena.cases import flow_through

    role = rng.choice(FLOW_ROLES)
    bounce = role != "border" and rng.random() < 0.5  # else a reboot
    flow = flow_through(view, rng, role, bounce)
    mins = rng.randint(60, 300)
    if bounce:  # a link of the path down for a few minutes
        lk = rng.choice([x for x in flow.links if x.place == role])
        f = fault("link_down", mins, {"link": f"{lk.a}:{lk.a_if}"}, for_min=rng.randint(3, 12))
        expect = {"root_cause": "link.down", "device": lk.ends(), "must_cite": ["alarms"]}
    else:
        dev = rng.choice([d for d in flow.devices if view.role[d] == role])
        f = fault("device_reboot", mins, {"device": dev})
        expect = {"root_cause": "device.reboot", "device": dev, "must_cite": ["alarms"]}
    start = CLOCK - timedelta(minutes=mins)
    a, b = start - timedelta(minutes=rng.randint(3, 10)), start + timedelta(minutes=rng.randint(8, 20))
    q = rng.choice((f"users on {flow.src.ip} had problems reaching {flow.dst.ip} between {_hm(a)} "
                    f"and {_hm(b)}", f"{flow.src.ip} lost connectivity to {flow.dst.ip} around "
                    f"{_hm(start + timedelta(minutes=2))}, what was it?"))
    return _scenario(sid, lab, [f], q, expect, rng)


def past_job(fab: Any, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """A job's NIC link down for a few minutes inside its run, asked 'at' a minute into it."""
    job = rng.choice(fab.jobs)
    host, nic = rng.choice(job.hosts), f"mlx5_{rng.randrange(8)}"
    mins = rng.randint(20, 40)
    at = CLOCK - timedelta(minutes=mins - 2)
    faults = [fault("rail_link_down", mins, {"link": f"{host}:{nic}"}, for_min=rng.randint(4, 8))]
    q = f"job {job.id} hit an NCCL timeout at {_hm(at)}"
    return _scenario(sid, lab, faults, q, {"root_cause": "link.down",
                                           "device": sorted({host, fab.leaf_of[(host, nic)]}),
                                           "must_cite": ["alarms"]}, rng)


def past_window(view: LabView, fab: Any, rng: random.Random, sid: str, lab: LabKey,
                ai: LabKey) -> dict[str, Any]:
    pick = rng.random()
    if pick < 0.5:
        return past_device(view, rng, sid, lab)
    return past_flow(view, rng, sid, lab) if pick < 0.8 else past_job(fab, rng, sid, ai)


def return_path(view: LabView, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """An ACL denying the source's segment (or a null route for it) on either end's ToR: the
    way there delivers, the way back stops."""
    pk = rng.choice(("other-pod", "cross-site"))
    src, dst = view.pair(rng, pk)
    kind, tor = "acl_block", rng.choice((src.tor, dst.tor))
    if rng.random() >= 0.7:  # a null route only bites where the way back is routed: dst's ToR
        kind, tor = "blackhole", dst.tor
    f = fault(kind, rng.randint(8, 50), {"device": tor}, dst=src.segment)
    label = {"acl_block": "config.acl_block", "blackhole": "routing.blackhole"}[kind]
    q = rng.choice(ONE_WAY).format(a=src.ip, b=dst.ip)
    return _scenario(sid, lab, [f], q, {"root_cause": label, "device": tor,
                                        "must_cite": ["traceroute"]}, rng)


def hurried(view: LabView, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """A fault on a flow's path, asked in a hurry (names in capitals where the wording says so)."""
    from netopsai.arena.cases import PLACES

    kind = rng.choice(HURRIED_KINDS)
    b = on_path(view, rng, kind, rng.choice(PLACES[kind]))
    q = rng.choice(HURRIED).format(a=b.flow.src.ip, b=b.flow.dst.ip, A=b.flow.src.name.upper(),
                                   B=b.flow.dst.name.upper())
    dev: Any = b.devices[0] if len(b.devices) == 1 else b.devices
    return _scenario(sid, lab, b.faults, q, {"root_cause": b.label, "device": dev,
                                             "interface": b.interface, "must_cite": b.must_cite}, rng)
