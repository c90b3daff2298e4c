"""Arena scenario classes of issue 25 (items 4, 6 and 7), from our own generator:

- shared-cause-device: "what's wrong with SPINE?" when the dead box is its neighbour: the
  neighbour's device.down is the answer (the asked device's down port is its effect);
- shared-cause-job: a job question on the AI lab when one of the job's rail leaves is dead:
  device.down at the leaf, not a host NIC;
- category: "any DCI link alarms in the last 2 hours?" and its kin while a border-DCI backbone
  link (filed under `backbone`) or a DCI circuit is down: the lookup must show the link's open
  alarms (scored by score.lookup_label);
- suggested: the web app's suggested questions, each on a lab faulted for it (the flow question
  with a fault on its path, the DCI question over a down backbone link, the port status over a
  down fabric link, the two inventory look-ups over noise).

- past-window, return-path, hurried: classes_window.py (items 1-3).

Every answer is also judged by the headline/evidence consistency check. Our generator, our
lab: these classes show the pipeline does what the issue asks, not that it generalises."""

from __future__ import annotations

import random
from typing import Any

from netopsai.arena.cases import (
    ALARMED,
    LABEL,
    ON_LINK,
    PLACES,
    Built,
    device_fault,
    fault,
    link_fault,
)
from netopsai.arena.classes_window import WINDOW_CLASSES, hurried, past_window, return_path
from netopsai.arena.generate import CLOCK, LabKey
from netopsai.arena.places import LabView

CLASSES = ("shared-cause-device", "shared-cause-job", "category", "suggested", *WINDOW_CLASSES)
# the web app's suggested questions (ui/gradio/chat_tab.py SEED_QUESTIONS; a test keeps them equal)
SUGGESTED = ["10.1.3.20 to 10.2.1.40 not communicating", "list the PoDs of dc1 and their segments",
             "any DCI link alarms in the last 2 hours?",
             "port link status across all switches since 08:00", "who owns 10.1.3.20?"]
DEVICE_QUESTIONS = ("what is wrong with {d}?", "what's wrong with {d}?", "is {d} healthy?",
                    "any problems with {d} today?", "why is {d} dropping traffic?")
CATEGORY_QUESTIONS = ("any DCI link alarms in the last 2 hours?", "any DCI alarms in the last hour?",
                      "show DCI alarms of the last 3 hours", "any inter-DC link alarms today?",
                      "backbone alarms in the last hour?", "any WAN alarms in the last 2h?",
                      "are there open DCI link alarms?")
ASKED_ROLES = ("spine", "superspine", "leaf", "border")
NOW = CLOCK.strftime("%Y-%m-%dT%H:%M:%SZ")


def scenario_of(sid: str, lab: LabKey, faults: list[dict[str, Any]], question: str,
              expect: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {"id": sid, "lab": {"spec": lab.spec, "scale": lab.scale, "seed": lab.seed},
            "now": NOW, "faults": faults,
            "noise": {"alarms": rng.randint(8, 30), "changes": rng.randint(2, 8),
                      "flaps": rng.randint(0, 3)},
            "question": question,
            "expect": {"interface": None, **expect}}


def _neighbours(view: LabView, name: str) -> list[tuple[str, str]]:
    """(neighbour, the asked device's port to it) over fabric and backbone links."""
    out = []
    for r in view.link_rows:
        for me, other in (("a", "b"), ("b", "a")):
            if r[f"{me}_device"] == name and view.role[r[f"{other}_device"]] != "host":
                out.append((r[f"{other}_device"], r[f"{me}_interface"]))
    return out


def shared_cause_device(view: LabView, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    role = rng.choice(ASKED_ROLES)
    asked = rng.choice(sorted(d for d, r in view.role.items() if r == role))
    dead, _ = rng.choice(_neighbours(view, asked))
    faults = [fault("device_down", rng.randint(8, 50), {"device": dead})]
    question = rng.choice(DEVICE_QUESTIONS).format(d=asked)
    return scenario_of(sid, lab, faults, question, {"root_cause": "device.down", "device": dead,
                                                   "must_cite": ["alarms"]}, rng)


def category(view: LabView, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """A border-DCI backbone link down (two thirds) or a DCI circuit down, asked about in the
    on-call's words for DCI alarms."""
    kind = "backbone" if rng.random() < 2 / 3 else "dci"
    r = rng.choice([x for x in view.link_rows if x["kind"] == kind])
    faults = [fault("dci_link_down", rng.randint(8, 50), {"link": f"{r['a_device']}:{r['a_interface']}"})]
    return scenario_of(sid, lab, faults, rng.choice(CATEGORY_QUESTIONS),
                     {"root_cause": "dci.link_down", "device": sorted({r["a_device"], r["b_device"]}),
                      "must_cite": ["alarms"]}, rng)


FLOW_KINDS = ("link_down", "acl_block", "device_down", "dci_link_down", "crc_errors", "blackhole")


def _on_flow(view: LabView, rng: random.Random, src: str, dst: str) -> Built:
    """One fault on the traced path of the suggested flow (the question names its addresses)."""
    a, z = (next(h for h in view.hosts if h.ip == ip) for ip in (src, dst))
    flow = view.flow(a, z, "cross-site")
    kind, mins = rng.choice(FLOW_KINDS), rng.randint(8, 50)
    if kind in ON_LINK:
        lk = rng.choice([x for x in flow.links if x.place in PLACES[kind]])
        b = link_fault(view, rng, kind, flow, lk, mins)
    else:
        dev = rng.choice([d for d in flow.devices if view.role[d] in PLACES[kind]])
        b = Built(flow, [device_fault(rng, kind, dev, flow, mins)], LABEL[kind], [dev],
                  must_cite=["traceroute", "alarms"] if kind in ALARMED else ["traceroute"])
    return b


def suggested(view: LabView, rng: random.Random, sid: str, lab: LabKey, i: int) -> dict[str, Any]:
    """The web app's i-th suggested question on a lab faulted for it."""
    q = SUGGESTED[i % len(SUGGESTED)]
    if q.startswith("10.1.3.20 to"):
        b = _on_flow(view, rng, *q.split(" ")[0:3:2])
        dev: Any = b.devices[0] if len(b.devices) == 1 else b.devices
        return scenario_of(sid, lab, b.faults, q, {"root_cause": b.label, "device": dev,
                                                 "interface": b.interface,
                                                 "must_cite": b.must_cite}, rng)
    if "DCI" in q:
        sc = category(view, rng, sid, lab)
        sc["question"] = q
        return sc
    if q.startswith("port link status"):
        r = rng.choice([x for x in view.link_rows if x["kind"] == "fabric"])
        faults = [fault("link_down", rng.randint(8, 50), {"link": f"{r['a_device']}:{r['a_interface']}"})]
        return scenario_of(sid, lab, faults, q, {"root_cause": "link.down", "device": sorted(
            {r["a_device"], r["b_device"]}), "must_cite": ["telemetry"]}, rng)
    return scenario_of(sid, lab, [], q, {"root_cause": "none", "device": None,
                                       "must_cite": ["metadata"]}, rng)


def shared_cause_job(fab: Any, rng: random.Random, sid: str, lab: LabKey) -> dict[str, Any]:
    """A dead rail leaf under one of a running job's NICs (every host of the job behind it
    loses that rail): device.down at the leaf."""
    from netopsai.arena.generate_ai import NICS, QUESTIONS
    from netopsai.common.hostlist import compress

    job = rng.choice(fab.jobs)
    leaf = fab.leaf_of[(rng.choice(job.hosts), f"mlx5_{rng.randrange(NICS)}")]
    faults = [fault("device_down", rng.randint(12, 40), {"device": leaf})]
    question = rng.choice(QUESTIONS).format(job=job.id, hosts=compress(job.hosts))
    return scenario_of(sid, lab, faults, question, {"root_cause": "device.down", "device": leaf,
                                                   "must_cite": ["metadata", "telemetry"]}, rng)


def generate(n: int, seed: int, lab: LabKey = LabKey(),
             ai: LabKey = LabKey("ai")) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(scenario, manifest entry) for n scenarios of the classes in equal shares (the suggested
    questions in turn), deterministic by seed."""
    from netopsai.arena.generate_ai import Fabric

    rng = random.Random(seed)
    view, fab = LabView(lab.spec, lab.scale, lab.seed, lab.clock), Fabric(ai.scale, ai.seed)
    plan = [CLASSES[i % len(CLASSES)] for i in range(n)]
    rng.shuffle(plan)
    out, asked = [], 0
    for i, cls in enumerate(plan, start=1):
        sid = f"{i:03d}-{cls}"
        if cls == "shared-cause-device":
            sc = shared_cause_device(view, rng, sid, lab)
        elif cls == "shared-cause-job":
            sc = shared_cause_job(fab, rng, sid, ai)
        elif cls == "category":
            sc = category(view, rng, sid, lab)
        elif cls == "past-window":
            sc = past_window(view, fab, rng, sid, lab, ai)
        elif cls == "return-path":
            sc = return_path(view, rng, sid, lab)
        elif cls == "hurried":
            sc = hurried(view, rng, sid, lab)
        else:
            sc, asked = suggested(view, rng, sid, lab, asked), asked + 1
        out.append((sc, {"id": sid, "category": cls, "place": sc["faults"][0]["kind"]
                         if sc["faults"] else "none"}))
    return out
