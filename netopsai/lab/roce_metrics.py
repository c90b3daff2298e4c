"""The RoCE counter metrics' names, without numpy (the telemetry tool and backends import them
at start; netopsai.lab.roce computes them)."""

from __future__ import annotations

NIC_PREFIX = "mlx5_"
# switch ports count PFC frames and ECN marks; NICs count those, their CNPs and transport errors
ROCE_FIELDS = ("pfc_tx", "pfc_rx", "ecn_marks", "cnp_tx", "cnp_rx", "retransmits",
               "out_of_sequence")
# metric -> (its fields, the first being the ranked `total`; a port is flagged at this many per
# 5 minutes in its worst interval)
ROCE_METRICS: dict[str, tuple[tuple[str, ...], int]] = {
    "pfc": (("pfc_tx", "pfc_rx"), 10_000),
    "ecn": (("ecn_marks", "cnp_tx", "cnp_rx"), 1_000_000),
    "retransmits": (("retransmits", "out_of_sequence"), 100),
}


def key(device: str, ifname: str) -> str:
    """A port's key in a LabFault's `roce` param."""
    return f"{device}|{ifname}"
