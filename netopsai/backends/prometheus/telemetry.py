"""Telemetry from Prometheus (PromQL query_range over HTTP) for networks already scraped by
snmp_exporter: IF-MIB series named as the exporter names them (ifOperStatus, ifHCInOctets, ...)
with a device label set by the scrape config and ifName/ifDescr labels from its lookups.

Counters are read raw and differenced here, reset-aware like PromQL's increase() but without its
extrapolation, so totals are the agent's own numbers. Rows have the lab backend's shapes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from netopsai.backends.base import IfaceSel
from netopsai.backends.rows import PortCounters, PortStatus
from netopsai.common.errors import NetopsError
from netopsai.common.timewin import Window

if TYPE_CHECKING:
    from netopsai.config.network import NetConfig

MAX_POINTS = 2000  # per series and query (Prometheus refuses more than 11,000)
BUCKET_S = 300  # the lab's "per 5 min" figures
STATES = {1: "up", 2: "down", 3: "testing", 4: "unknown", 5: "dormant", 6: "notPresent", 7: "down"}
REGEX_META = set(".^$*+?()[]{}|\\")
Series = tuple[dict[str, str], list[tuple[float, float]]]


class PrometheusTelemetry:
    def __init__(self, url: str, timeout: float = 10.0, device_label: str = "device",
                 client: Any = None) -> None:
        import httpx

        self.url = url.rstrip("/")
        self.device_label = device_label
        self.client = client or httpx.Client(timeout=timeout)

    # ------------------------------------------------------------------ HTTP

    def query_range(self, query: str, window: Window, step: float) -> list[Series]:
        """One PromQL range query; a NetopsError naming the server when it cannot answer."""
        import httpx

        params: dict[str, str | float] = {"query": query, "start": window.start.timestamp(),
                  "end": window.end.timestamp(), "step": f"{step:g}s"}
        try:
            resp = self.client.get(f"{self.url}/api/v1/query_range", params=params)
        except httpx.HTTPError as exc:
            raise NetopsError(f"Prometheus at {self.url} did not answer: "
                              f"{type(exc).__name__}") from None
        try:
            body = resp.json()
        except ValueError:
            raise NetopsError(f"Prometheus at {self.url} answered HTTP {resp.status_code} "
                              "without JSON") from None
        if resp.status_code != 200 or body.get("status") != "success":
            raise NetopsError(f"Prometheus at {self.url} refused the query: "
                              f"{body.get('error', resp.status_code)}")
        return [(r["metric"], [(float(t), float(v)) for t, v in r["values"]])
                for r in body["data"]["result"]]

    def _selector(self, sel: IfaceSel) -> str:
        """Label matchers for the selection. Prometheus knows devices and interface names;
        role/site/pod live in the inventory, not in the series, so they do not narrow here."""
        parts = []
        if sel.get("devices"):
            names = "|".join(_literal(d) for d in sel["devices"])
            parts.append(f'{self.device_label}=~"{_quote(names)}"')
        if sel.get("interface"):
            parts.append(f'ifName="{_quote(sel["interface"])}"')
        return "{" + ",".join(parts) + "}"

    def _key(self, labels: dict[str, str]) -> tuple[str, str]:
        device = labels.get(self.device_label) or labels.get("instance", "")
        iface = labels.get("ifName") or labels.get("ifDescr") or f"ifIndex{labels.get('ifIndex', '?')}"
        return device, iface

    def _read(self, metric: str, sel: IfaceSel, window: Window) -> dict[tuple[str, str], list]:
        step = max(1.0, math.ceil(window.seconds / MAX_POINTS))
        out: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for labels, values in self.query_range(f"{metric}{self._selector(sel)}", window, step):
            out.setdefault(self._key(labels), []).extend(values)
        return out

    # ------------------------------------------------------------------ Telemetry

    def oper_status(self, sel: IfaceSel, window: Window) -> tuple[list[PortStatus], int]:
        series = self._read("ifOperStatus", sel, window)
        admin = self._read("ifAdminStatus", sel, window)  # absent when the exporter skips it
        rows = [r for key, vals in series.items() if (r := _history(key, vals, window, admin.get(key)))]
        rows.sort(key=lambda r: (-r["down_s"], -r["transitions"], r["device"], r["interface"]))
        return rows, len(series)

    def counters(self, sel: IfaceSel, window: Window, metric: str,
                 top: int = 20) -> tuple[list[PortCounters], int, int]:
        ports = self._read("ifOperStatus", sel, window)
        if metric == "rx_power":  # not in IF-MIB: nothing measured, nothing claimed
            return [], len(ports), 0
        if metric == "utilization":
            rows = self._utilization(sel, window)
            hot = [r for r in rows if r["max_pct"] >= 80]
            rows.sort(key=lambda r: (-r["max_pct"], r["device"], r["interface"]))
        else:
            names = ["ifInErrors"] if metric == "errors" else ["ifInDiscards", "ifOutDiscards"]
            rows = self._totals(names, sel, window)
            hot = [r for r in rows if r["total"] > 0]
            rows.sort(key=lambda r: (-r["total"], r["device"], r["interface"]))
        return rows[:top], len(ports), len(hot)

    def _totals(self, names: list[str], sel: IfaceSel, window: Window) -> list[PortCounters]:
        per: dict[tuple[str, str], dict[int, float]] = {}
        for name in names:
            for key, vals in self._read(name, sel, window).items():
                buckets = per.setdefault(key, {})
                for b, d in _bucketed(vals, window):
                    buckets[b] = buckets.get(b, 0.0) + d
        rows: list[PortCounters] = []
        for (dev, ifn), buckets in per.items():
            series = [buckets[b] for b in sorted(buckets)] or [0.0]
            rows.append({"device": dev, "interface": ifn, "total": round(sum(series), 2),
                         "max_per_5min": round(max(series), 2), "last_5min": round(series[-1], 2)})
        return rows

    def _utilization(self, sel: IfaceSel, window: Window) -> list[PortCounters]:
        speed = {k: v[-1][1] for k, v in self._read("ifHighSpeed", sel, window).items() if v}
        rin, rout = self._read("ifHCInOctets", sel, window), self._read("ifHCOutOctets", sel, window)
        rows: list[PortCounters] = []
        for key in sorted(set(rin) & set(speed)):
            if speed[key] <= 0:
                continue  # an unknown line rate gives no percentage
            pct = _percent(dict(_bucketed(rin[key], window, rates=True)),
                           dict(_bucketed(rout.get(key, []), window, rates=True)), speed[key])
            if pct:
                rows.append({"device": key[0], "interface": key[1], "max_pct": round(max(pct), 2),
                             "avg_pct": round(sum(pct) / len(pct), 2), "last_pct": round(pct[-1], 2)})
        return rows


def _quote(text: str) -> str:
    """Text inside a PromQL double-quoted string."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _literal(text: str) -> str:
    """A name matched literally by an RE2 regex (Python's re.escape also escapes '-', which
    PromQL's string syntax then rejects)."""
    return "".join("\\" + c if c in REGEX_META else c for c in text)


def _bucketed(vals: list[tuple[float, float]], window: Window,
              rates: bool = False) -> Iterable[tuple[int, float]]:
    """Reset-aware increases between consecutive samples, summed per 5-minute bucket (or, with
    `rates`, as bytes per second over the bucket's sampled time)."""
    sums: dict[int, list[float]] = {}
    for (t0, v0), (t1, v1) in zip(vals, vals[1:], strict=False):
        inc = v1 - v0 if v1 >= v0 else v1  # a counter that went down restarted from zero
        # buckets are (start, start+5min]: the sample at the window's end closes the last
        # bucket instead of opening a one-step bucket whose rate would be a whole scrape's
        # increase over one query step (880% on a port at 88%)
        b = max(0, math.ceil((t1 - window.start.timestamp()) / BUCKET_S) - 1)
        acc = sums.setdefault(b, [0.0, 0.0])
        acc[0] += inc
        acc[1] += t1 - t0
    for b in sorted(sums):
        inc, dt = sums[b]
        yield b, (inc / dt if rates and dt else inc)


def _percent(rin: dict[int, float], rout: dict[int, float], speed_mbps: float) -> list[float]:
    return [max(rin.get(b, 0.0), rout.get(b, 0.0)) * 8 / (speed_mbps * 1e6) * 100
            for b in sorted(set(rin) | set(rout))]


def _history(key: tuple[str, str], vals: list[tuple[float, float]], w: Window,
             admin: list[tuple[float, float]] | None = None) -> PortStatus | None:
    """The lab's oper-status row from a sampled status series: the first sample gives the state
    at the start; each change of value is a transition at the sample that shows it. Times are
    UTC (the tool shows them in the question's zone); ifAdminStatus, when scraped, gives the
    admin state at the window's end (a port shut on purpose is not a fault)."""
    if not vals:
        return None
    states = [(t, STATES.get(int(v), "unknown")) for t, v in sorted(vals)]
    start_state = cur = states[0][1]
    since, down, changes = w.start.timestamp(), 0.0, []
    for t, st in states[1:]:
        if st == cur:
            continue
        if cur == "down":
            down += t - since
        cur, since = st, t
        changes.append(f"{datetime.fromtimestamp(t, UTC):%Y-%m-%d %H:%M:%S} {st}")
    if cur == "down":
        down += w.end.timestamp() - since
    if not changes and start_state == "up":
        return None
    row: PortStatus = {"device": key[0], "interface": key[1], "state_at_start": start_state,
                       "transitions": len(changes), "flaps": sum(c.endswith("down") for c in changes),
                       "down_s": round(down), "state_at_end": cur, "events": "; ".join(changes[:12])}
    if admin:
        row["admin_status"] = "up" if int(max(admin)[1]) == 1 else "down"
    return row


def from_config(engine: Any, cfg: NetConfig) -> PrometheusTelemetry:
    """The backend registry's builder (netopsai.backends.registry)."""
    p = cfg.settings.prometheus
    return PrometheusTelemetry(url=p.url, timeout=p.timeout, device_label=p.device_label)
