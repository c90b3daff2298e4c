"""The RoCE counter metrics of a lossless GPU fabric, in one table below everything that reads
them: the lab computes them (lab/roce.py), the lab backend answers them, the telemetry tool
says what flags a port, the planner knows their words and the diagnosis their thresholds.
Nothing heavy here: the telemetry tool and the planner import it at start."""

from __future__ import annotations

from typing import NamedTuple

NIC_PREFIX = "mlx5_"  # an RDMA NIC's port name
# switch ports count PFC frames and ECN marks; NICs count those, their CNPs and transport errors
ROCE_FIELDS = ("pfc_tx", "pfc_rx", "ecn_marks", "cnp_tx", "cnp_rx", "retransmits",
               "out_of_sequence")


class RoceMetric(NamedTuple):
    fields: tuple[str, ...]  # the counters it sums, the first being the ranked `total`
    flag_per_5min: int  # a port is flagged at this many per 5 minutes in its worst interval
    noun: str  # what it counts, as an answer says it
    words: str  # how questions name it (a regular expression the planner reads)

    @property
    def flagged(self) -> str:
        """What a flagged port did, as the telemetry tool's summary says it."""
        return f"had {self.flag_per_5min:,} or more {self.noun} in 5 minutes"


# in the planner's order: before the other metrics, "congestion notification" is ECN, not
# utilisation
ROCE_METRICS: dict[str, RoceMetric] = {
    "pfc": RoceMetric(("pfc_tx", "pfc_rx"), 10_000, "PFC pause frames",
                      r"\bpfc\b|\bpause[\s-]?(?:frames?|storms?)\b|\bpriority flow control\b"),
    "ecn": RoceMetric(("ecn_marks", "cnp_tx", "cnp_rx"), 1_000_000, "ECN marks",
                      r"\becn\b|\bcnps?\b|\bcongestion notifications?\b|\bcongestion marks?\b"),
    "retransmits": RoceMetric(("retransmits", "out_of_sequence"), 100, "RoCE retransmits",
                              r"\bretransmi\w*|\bout[\s-]of[\s-]sequence\b"),
}
