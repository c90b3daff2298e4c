"""Healthy baseline counters for the lab, synthesised on read: diurnal load plus seeded noise,
the same values for the same interface and time however the question slices them. Stored
counter samples (fault symptoms, or real polls) override the baseline where they exist."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from netopsai.common.timewin import as_utc
from netopsai.store.tables import COUNTER_FIELDS

STEP = timedelta(minutes=5)
FIELDS = COUNTER_FIELDS


def grid(start: datetime, end: datetime) -> list[datetime]:
    """5-minute sample times in (start, end], on the clock's 5-minute marks."""
    start, end = as_utc(start), as_utc(end)
    first = start - timedelta(minutes=start.minute % 5, seconds=start.second,
                              microseconds=start.microsecond) + STEP
    n = int((end - first) / STEP) + 1 if end >= first else 0
    return [first + i * STEP for i in range(n)]


def hash01(keys: np.ndarray) -> np.ndarray:
    """A cheap vectorised hash of uint32 keys to [0, 1)."""
    x = keys.astype(np.uint64)
    x = (x ^ (x >> np.uint64(16))) * np.uint64(0x45D9F3B) & np.uint64(0xFFFFFFFF)
    x = (x ^ (x >> np.uint64(16))) * np.uint64(0x45D9F3B) & np.uint64(0xFFFFFFFF)
    x = x ^ (x >> np.uint64(16))
    return (x & np.uint64(0xFFFFFF)).astype(np.float64) / float(1 << 24)


def iface_keys(seed: int, ifaces: Sequence[tuple[str, str]]) -> np.ndarray:
    return np.array([zlib.crc32(f"{seed}|{d}|{i}".encode()) for d, i in ifaces], dtype=np.uint32)


# the baseline fields each counter metric reads: a question computes only these
METRIC_FIELDS = {"utilization": ("in_octets", "out_octets"), "rx_power": ("rx_power_dbm",),
                 "errors": ("in_errors", "crc_errors"), "discards": ("in_discards", "out_discards")}


def baseline(seed: int, ifaces: Sequence[tuple[str, str]], speeds_mbps: Sequence[int],
             times: Sequence[datetime], fields: Sequence[str] = FIELDS) -> dict[str, np.ndarray]:
    """Per-field arrays of shape (interfaces, times), for the fields asked (the same values
    whichever fields are asked together)."""
    keys = iface_keys(seed, ifaces)
    shape = (len(keys), len(times))
    out: dict[str, np.ndarray] = {}
    if "in_discards" in fields or "out_discards" in fields:
        out["in_discards"], out["out_discards"] = np.zeros(shape, np.int64), np.zeros(shape, np.int64)
    if not set(fields) - {"in_discards", "out_discards"}:
        return {f: out[f] for f in fields}
    epoch = np.array([as_utc(t).timestamp() for t in times], dtype=np.float64)
    slot = (epoch // 300).astype(np.uint64) % np.uint64(1 << 20)
    mix = (keys.astype(np.uint64)[:, None] * np.uint64(2654435761) + slot[None, :]) % np.uint64(1 << 32)
    noise = hash01(mix)
    if "in_octets" in fields or "out_octets" in fields:
        hours = (epoch % 86400) / 3600.0
        diurnal = 0.65 + 0.35 * np.sin(2 * np.pi * (hours - 8.0) / 24.0)  # peak mid-afternoon UTC
        u0 = 0.08 + 0.37 * hash01(keys)  # each port's typical load, 8..45 %
        util = np.clip(u0[:, None] * diurnal[None, :] * (0.9 + 0.2 * noise), 0.0, 1.0)
        bps = np.asarray(speeds_mbps, dtype=np.float64)[:, None] * 1e6
        octets = util * bps * 300 / 8
        skew = 0.85 + 0.3 * hash01(keys ^ np.uint32(0x5BD1E995))[:, None]
        out["in_octets"], out["out_octets"] = octets.astype(np.int64), (octets * skew).astype(np.int64)
    if "in_errors" in fields or "crc_errors" in fields:
        trickle = (noise > 0.995).astype(np.int64) * (1 + (noise * 1000).astype(np.int64) % 3)
        out["in_errors"], out["crc_errors"] = trickle, trickle.copy()
    if "rx_power_dbm" in fields:
        rx = -1.2 - 2.0 * hash01(keys ^ np.uint32(0x27D4EB2F))[:, None] + 0.1 * (noise - 0.5)
        out["rx_power_dbm"] = np.round(rx, 2)
    return {f: out[f] for f in fields}


def utilization_pct(in_octets: np.ndarray, out_octets: np.ndarray,
                    speeds_mbps: Sequence[int]) -> np.ndarray:
    bps = np.maximum(np.asarray(speeds_mbps, dtype=np.float64)[:, None] * 1e6, 1.0)
    return np.maximum(in_octets, out_octets) * 8 / 300 / bps * 100
