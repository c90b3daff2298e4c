"""RoCE counters of the lab's GPU fabric, synthesised on read like the other counters
(netopsai.lab.counters): per 5 minutes, for every port of a GPU PoD (host NICs and the rail
leaves' and spines' ports); ports outside GPU PoDs carry no lossless traffic and read zero.

What a healthy RoCEv2 fabric under DCQCN shows: ECN marks in proportion to load at switch
egress, the NICs' CNPs following the marks they see (a notification point sends CNPs, a
reaction point handles them), a few PFC pause frames now and then, and almost no retransmits or
out-of-sequence packets. Faults overlay their symptoms through the LabFault row's `roce` param:
{"DEVICE|IFNAME": {field: per-5-minute value}} from the fault's start (no schema of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from netopsai.common.roce import NIC_PREFIX, ROCE_METRICS
from netopsai.common.timewin import as_utc
from netopsai.lab.counters import hash01, iface_keys
from netopsai.lab.roce_metrics import key


def baseline(seed: int, ifaces: Sequence[tuple[str, str]], roce: Sequence[bool],
             times: Sequence[datetime], fields: Sequence[str]) -> dict[str, np.ndarray]:
    """Per-field arrays of shape (interfaces, times); zero where `roce` is False."""
    keys = iface_keys(seed ^ 0x0ECE, ifaces)
    shape = (len(keys), len(times))
    epoch = np.array([as_utc(t).timestamp() for t in times], dtype=np.float64)
    slot = (epoch // 300).astype(np.uint64) % np.uint64(1 << 20)
    mix = (keys.astype(np.uint64)[:, None] * np.uint64(2246822519) + slot[None, :]) % np.uint64(1 << 32)
    noise = hash01(mix)
    on = np.asarray(roce, dtype=bool)[:, None]
    nic = np.array([n.startswith(NIC_PREFIX) for _, n in ifaces], dtype=bool)[:, None]
    hours = (epoch % 86400) / 3600.0
    load = (0.3 + 0.7 * hash01(keys))[:, None] * (0.65 + 0.35 * np.sin(2 * np.pi * (hours - 8.0) / 24.0))
    marks = (load * 40_000 * (0.8 + 0.4 * noise)).astype(np.int64)
    pauses = np.where(noise > 0.97, (noise * 1e4).astype(np.int64) % 400, 0)
    rare = np.where(noise > 0.995, 1 + (noise * 1e5).astype(np.int64) % 3, 0)
    out = {"ecn_marks": marks, "pfc_tx": pauses, "pfc_rx": pauses // 2,
           "cnp_tx": np.where(nic, marks // 4, 0), "cnp_rx": np.where(nic, marks // 5, 0),
           "retransmits": np.where(nic, rare, 0), "out_of_sequence": np.where(nic, rare // 2, 0)}
    return {f: np.where(on, out[f], 0).astype(np.int64).reshape(shape) for f in fields}


def overlay(f: dict[str, np.ndarray], ifaces: Sequence[tuple[str, str]], times: Sequence[datetime],
            faults: Sequence[tuple[datetime, datetime | None, dict[str, Any]]]) -> None:
    """The faults' RoCE symptoms over the baseline: (start, end, {key: {field: value}})."""
    row = {key(d, n): i for i, (d, n) in enumerate(ifaces)}
    for start, end, ports in faults:
        cols = [j for j, t in enumerate(times) if t > start and (end is None or t <= end)]
        if not cols:
            continue
        for k, values in ports.items():
            i = row.get(k)
            if i is None:
                continue
            for field, value in values.items():
                if field in f:
                    f[field][i, cols] = int(value)


def aggregate(metric: str, f: dict[str, np.ndarray], ifaces: Sequence[tuple[str, str]],
              top: int) -> tuple[list[dict[str, Any]], int]:
    """The worst ports first: `total` of the metric's first field, the others' sums, the worst
    and the last 5 minutes of the first field; and how many ports reach the metric's threshold."""
    fields, hot = ROCE_METRICS[metric].fields, ROCE_METRICS[metric].flag_per_5min
    first = f[fields[0]] + (f["pfc_rx"] if metric == "pfc" else 0)
    if first.shape[1] == 0:
        return [], 0
    extra = fields if metric == "pfc" else fields[1:]  # pfc: total = sent + received
    agg = {"total": first.sum(1), **{name: f[name].sum(1) for name in extra},
           "max_per_5min": first.max(1), "last_5min": first[:, -1]}
    order = np.argsort(-agg["total"], kind="stable")[:top]
    rows = [{"device": ifaces[i][0], "interface": ifaces[i][1],
             **{k: float(a[i]) for k, a in agg.items()}} for i in order]
    return rows, int((agg["max_per_5min"] >= hot).sum())
