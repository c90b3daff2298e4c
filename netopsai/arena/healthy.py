"""Scenarios whose answer is `none`, or whose real fault hides among decoys: a healthy path,
closed DCI alarms in the window, a harmless change on the path, open alarms and changes off
the path, a DCI fault under an intra-site flow, and a second real fault elsewhere."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from netopsai.arena.cases import HARMLESS, HERRING_KINDS, PORT_KINDS, Built, fault, ticket
from netopsai.arena.places import PAIR_KINDS, Flow, LabView
from netopsai.copilot.arena_door import noise_inputs

DIAG_WINDOW = timedelta(hours=1)  # the window the copilot checks alarms and changes over
NOISE_SPAN = timedelta(hours=6)  # netopsai.lab.inject spreads noise over the last 6 hours


def any_flow(view: LabView, rng: random.Random, kinds: tuple[str, ...] = PAIR_KINDS) -> Flow:
    pk = rng.choice(kinds)
    return view.flow(*view.pair(rng, pk), pk)


def healthy(view: LabView, rng: random.Random) -> Built:
    b = Built(any_flow(view, rng), [], "none")
    b.notes["variant"] = "healthy"
    return b


def change_on_path(view: LabView, rng: random.Random) -> Built:
    """A routine change on a device the flow crosses, well inside the window: not a cause."""
    flow = any_flow(view, rng)
    dev = rng.choice([d for d in flow.devices if view.role[d] != "host"])
    b = Built(flow, [harmless(rng, dev)], "none", must_cite=["traceroute", "changelog"])
    b.notes.update(variant="change-on-path", device=dev)
    return b


def harmless(rng: random.Random, dev: str) -> dict[str, Any]:
    return fault("change", rng.randint(10, 55), {"device": dev}, summary=rng.choice(HARMLESS),
                 ticket=ticket(rng))


def off_path_fault(view: LabView, rng: random.Random, flow: Flow, avoid: str | None = None) -> dict[str, Any]:
    """A real fault (with open alarms) on a link or device no equal-cost path of the flow uses."""
    kind = rng.choice([k for k in HERRING_KINDS if k != avoid])
    mins = rng.randint(5, 55)
    if kind == "device_down":
        return fault(kind, mins, {"device": rng.choice(view.off_path_devices(flow, ("leaf", "spine")))})
    r = rng.choice(view.off_path_links(flow))
    end = rng.choice(("a", "b"))
    where = f"{r[f'{end}_device']}:{r[f'{end}_interface']}"
    return fault(kind, mins, {"interface" if kind in PORT_KINDS else "link": where})


def unrelated_changes(view: LabView, rng: random.Random, flow: Flow, n: int) -> list[dict[str, Any]]:
    pool = view.off_path_devices(flow, ("leaf", "spine", "superspine", "border"))
    return [fault("change", rng.randint(5, 55), {"device": d},
                  summary=rng.choice(["Apply new ACL set", "Replace optic on Ethernet50",
                                      "Upgrade to maintenance release", "Shut Ethernet49 for cabling work"]),
                  ticket=ticket(rng)) for d in rng.sample(pool, min(n, len(pool)))]


def herring(view: LabView, rng: random.Random) -> Built:
    """Open alarms and changes off the path (or a DCI fault under an intra-site flow): `none`."""
    if rng.random() < 0.3:
        flow = any_flow(view, rng, ("same-pod", "other-pod"))
        r = rng.choice([r for r in view.link_rows if r["kind"] == "dci"])
        kind = rng.choice(["dci_link_down", "crc_errors"])
        target = {"link" if kind == "dci_link_down" else "interface": f"{r['a_device']}:{r['a_interface']}"}
        faults = [fault(kind, rng.randint(5, 55), target)]
        variant = "herring-dci-intra-site"
    else:
        flow = any_flow(view, rng)
        faults = [off_path_fault(view, rng, flow)]
        variant = "herring-off-path"
    faults += unrelated_changes(view, rng, flow, rng.randint(1, 3))
    b = Built(flow, faults, "none")
    b.notes.update(variant=variant, herrings=[f["kind"] for f in faults])
    return b


def with_decoys(view: LabView, rng: random.Random, b: Built) -> Built:
    """An on-path fault plus unrelated changes off the path and a harmless change on another
    device of the path."""
    taken = set(b.devices)
    spare = [d for d in b.flow.devices if view.role[d] != "host" and d not in taken]
    if spare:
        b.faults.append(harmless(rng, rng.choice(spare)))
    b.faults += unrelated_changes(view, rng, b.flow, rng.randint(1, 2))
    b.notes["decoys"] = True
    return b


def second_fault(view: LabView, rng: random.Random, b: Built) -> Built:
    """Two faults at once: the on-path one is the answer, the other is off every path."""
    b.faults.append(off_path_fault(view, rng, b.flow, avoid=b.fault_kind))
    b.notes["second_fault"] = b.faults[-1]["kind"]
    return b


def _noise_inputs(view: LabView) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The device and link rows lab inject draws noise from, in the order it reads them."""
    if "noise_inputs" not in view.cache:
        view.cache["noise_inputs"] = noise_inputs(view.engine)
    inputs: tuple[list[dict[str, Any]], list[dict[str, Any]]] = view.cache["noise_inputs"]
    return inputs


def closed_flaps(view: LabView) -> int:
    """Background flaps for the seed's case: enough that some land on a DCI circuit in the
    window for a few noise seeds, however many links the lab has."""
    return max(10, len(_noise_inputs(view)[1]) // 100)


def dci_closed_noise(view: LabView, scenario: dict[str, Any], flaps: int) -> bool:
    """Will lab inject's noise for this scenario (seeded by its id) leave a closed DCI alarm
    inside the diagnosis window? Mirrors netopsai.lab.inject's noise inputs; the arena tests
    check the real injection agrees."""
    from netopsai.lab.noise import noise_rows
    from netopsai.lab.trace import trace

    ips = scenario["question_ips"]
    key = f"path:{ips[0]}:{ips[1]}"
    if key not in view.cache:
        view.cache[key] = set(trace(view.router(), ips[0], ips[1]).path_devices)
    avoid: set[str] = view.cache[key]
    devices, links = _noise_inputs(view)
    noise = scenario["noise"]
    rows = noise_rows(random.Random(f"{scenario['id']}|{scenario['lab']['seed']}"), devices, links,
                      view.clock - NOISE_SPAN, view.clock, alarms=noise["alarms"],
                      changes=noise["changes"], flaps=flaps, avoid=avoid, ticket_base=7000)
    return any(a["category"] == "dci" and a["raised_at"] >= view.clock - DIAG_WINDOW
               for a in rows["alarms"])
