"""The NetOpsArena scenario generator: `netopsai bench gen --n N --seed S -o DIR`.

Every fault kind at the places it can be (host link, leaf/ToR, spine, super-spine, border,
DCI), on the traced path of a host pair picked from the real lab; healthy flows that must be
answered `none`; red herrings; two faults at once; varied wording. The same seed gives the
same files, byte for byte."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from netopsai.arena import healthy as h
from netopsai.arena.cases import KINDS, PLACES, Built, on_path
from netopsai.arena.phrasing import question
from netopsai.arena.places import LabView
from netopsai.common.errors import NetopsError

CLOCK = datetime(2025, 11, 4, 20, 0, tzinfo=UTC)
# category -> share of a set (per 20 scenarios)
MIX: dict[str, int] = {"fault": 12, "healthy": 1, "healthy-dci-closed": 1, "change-on-path": 1,
                       "herring": 2, "fault-decoys": 2, "two-faults": 1}
MANIFEST = "manifest.json"
MAX_N = 5000


@dataclass(frozen=True)
class LabKey:
    spec: str = "default"
    scale: str = "small"
    seed: int = 7
    clock: datetime = CLOCK


def plan_categories(n: int, rng: random.Random) -> list[str]:
    """n categories in MIX's proportions (largest remainder), shuffled."""
    total = sum(MIX.values())
    exact = {c: n * w / total for c, w in MIX.items()}
    counts = {c: int(x) for c, x in exact.items()}
    for c in sorted(exact, key=lambda c: counts[c] - exact[c])[: n - sum(counts.values())]:
        counts[c] += 1
    out = [c for c, k in counts.items() for _ in range(k)]
    rng.shuffle(out)
    return out


class _KindCycle:
    """Fault kinds in shuffled rounds (every kind once per round), each kind's places in turn."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.queue: list[str] = []
        self.place_at = {k: rng.randrange(len(PLACES[k])) for k in KINDS}

    def next(self) -> tuple[str, str]:
        if not self.queue:
            self.queue = list(KINDS)
            self.rng.shuffle(self.queue)
        kind = self.queue.pop()
        places = PLACES[kind]
        place = places[self.place_at[kind] % len(places)]
        self.place_at[kind] += 1
        return kind, place


def build(view: LabView, rng: random.Random, category: str, kinds: _KindCycle) -> Built:
    simple: dict[str, Callable[[LabView, random.Random], Built]] = {
        "healthy": h.healthy, "healthy-dci-closed": h.healthy, "change-on-path": h.change_on_path,
        "herring": h.herring}
    if category in simple:
        return simple[category](view, rng)
    b = on_path(view, rng, *kinds.next())
    if category == "fault-decoys":
        return h.with_decoys(view, rng, b)
    if category == "two-faults":
        return h.second_fault(view, rng, b)
    return b


def _slug(category: str, b: Built) -> str:
    kind, place = b.notes.get("kind"), b.notes.get("place")
    base = f"{kind}-{place}".replace("_", "-") if kind else str(b.notes.get("variant", category))
    prefix = {"fault": "", "fault-decoys": "decoys-", "two-faults": "two-"}.get(category, "")
    if category == "healthy-dci-closed":
        return "healthy-dci-closed"
    return f"{prefix}{base}" if prefix or kind else base


def scenario(lab: LabKey, sid: str, b: Built, rng: random.Random) -> dict[str, Any]:
    a, z = b.flow.src.ip, b.flow.dst.ip
    device: str | list[str] | None = (b.devices[0] if len(b.devices) == 1 else b.devices) or None
    return {
        "id": sid, "lab": {"spec": lab.spec, "scale": lab.scale, "seed": lab.seed},
        "now": lab.clock.strftime("%Y-%m-%dT%H:%M:%SZ"), "faults": b.faults,
        "noise": {"alarms": rng.randint(8, 40), "changes": rng.randint(2, 12), "flaps": rng.randint(0, 4)},
        "question": question(rng, a, z, b.fault_kind),
        "expect": {"root_cause": b.label, "device": device, "interface": b.interface,
                   "must_cite": b.must_cite},
    }


def _dci_closed(view: LabView, sc: dict[str, Any], b: Built) -> dict[str, Any]:
    """The seed's healthy case: closed DCI alarms in the window, no changes, a fine path. The
    id (which seeds lab inject's noise) gets the first suffix whose noise does that."""
    flaps = h.closed_flaps(view)
    sc["noise"] = {"alarms": sc["noise"]["alarms"], "changes": 0, "flaps": flaps}
    probe = {**sc, "question_ips": [b.flow.src.ip, b.flow.dst.ip]}
    base = sc["id"]
    for j in range(20000):
        probe["id"] = f"{base}-{j}"
        if h.dci_closed_noise(view, probe, flaps):
            sc["id"] = probe["id"]
            return sc
    raise RuntimeError("no noise seed leaves a closed DCI alarm in the window")


def generate(n: int, seed: int, lab: LabKey = LabKey()) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(scenario, manifest entry) for n scenarios, deterministic by seed."""
    if not 1 <= n <= MAX_N:
        raise NetopsError(f"--n must be between 1 and {MAX_N}, not {n}")
    rng = random.Random(seed)
    view = LabView(lab.spec, lab.scale, lab.seed, lab.clock)
    kinds = _KindCycle(rng)
    out = []
    for i, category in enumerate(plan_categories(n, rng), start=1):
        b = build(view, rng, category, kinds)
        sc = scenario(lab, f"{i:03d}-{_slug(category, b)}", b, rng)
        if category == "healthy-dci-closed":
            sc = _dci_closed(view, sc, b)
        out.append((sc, {"id": sc["id"], "category": category, "pair": b.flow.pair_kind,
                         "path": b.flow.devices, **b.notes}))
    return out


def write(out_dir: Path, n: int, seed: int, lab: LabKey = LabKey()) -> list[Path]:
    """Generate and write one YAML file per scenario plus manifest.json."""
    made = generate(n, seed, lab)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for sc, _ in made:
        p = out_dir / f"{sc['id']}.yaml"
        p.write_text(yaml.safe_dump(sc, sort_keys=False, default_flow_style=None, width=100))
        paths.append(p)
    manifest = {"seed": seed, "n": n, "lab": {"spec": lab.spec, "scale": lab.scale, "seed": lab.seed,
                                               "now": lab.clock.strftime("%Y-%m-%dT%H:%M:%SZ")},
                "scenarios": [entry for _, entry in made]}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return paths
