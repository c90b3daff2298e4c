"""A port's key in a lab fault's `roce` parameter, without numpy (netopsai.lab.roce computes
the counters; the metrics themselves are netopsai/common/roce.py's one table)."""

from __future__ import annotations


def key(device: str, ifname: str) -> str:
    """A port's key in a LabFault's `roce` param."""
    return f"{device}|{ifname}"
