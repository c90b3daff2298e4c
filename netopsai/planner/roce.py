"""RoCE wording (issue 15): the telemetry metrics of a lossless GPU fabric — PFC pause frames,
ECN marks and CNPs, RoCE retransmits — and "the rails"/"the GPU fabric" as the PoDs that hold
GPU hosts. keywords.py reads the metric words with its own; calls.py routes them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from netopsai.common.roce import ROCE_METRICS

if TYPE_CHECKING:
    from netopsai.planner.entities import Entities, Vocabulary

ROCE_INTENTS = {name: f"telemetry.{name}" for name in ROCE_METRICS}
# the metrics' words (common/roce.py), before the other metrics: "congestion notification" is
# ECN, not utilisation
ROCE_WORDS = [(name, m.words) for name, m in ROCE_METRICS.items()]
RAIL = re.compile(r"\brails?\b|\bgpu[\s-]?(?:fabric|pods?|network|cluster)\b|\broce\b|"
                  r"\bback[\s-]?end (?:fabric|network)\b", re.I)
GPU_ROLES = ("gpu_host",)


def gpu_pods(vocab: Vocabulary) -> list[str]:
    """The PoDs that hold GPU hosts: where the rails are."""
    return sorted({str(m["pod"]) for m in vocab.meta.values()
                   if m.get("role") in GPU_ROLES and m.get("pod")})


def rail_scope(rest: str, ent: Entities, vocab: Vocabulary) -> None:
    """A RoCE metric asked of "the rails" (no device, PoD or site named): the GPU PoDs."""
    if ent.metric not in ROCE_INTENTS or ent.devices or ent.pods or ent.sites:
        return
    if RAIL.search(rest):
        ent.pods = gpu_pods(vocab)
