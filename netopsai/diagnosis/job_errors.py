"""Errors on a job's links (issue 15 §2, "NIC and link health ... errors"): a NIC or rail-leaf
port receiving corrupted frames — a dirty or failing optic, a bent cable — drops them, and RoCE
recovers each loss by retransmission, stalling the queue pair (go-back-N on most NICs) until
NCCL times out. The port counts the errors (CRC) where the bad signal arrives; low rx power on
the same port says the optic or fibre is the cause."""

from __future__ import annotations

from netopsai.backends.rows import PortCounters
from netopsai.common.localtime import stamp
from netopsai.diagnosis.base import Finding
from netopsai.diagnosis.checks import ERRORS_PER_5MIN
from netopsai.diagnosis.job_registry import job_rule
from netopsai.diagnosis.job_rules import Hit, Reads, peer_of

RX_LOW_DBM = -10.0  # the telemetry tool flags rx power at or below this (its own threshold)
KINDS = ("INTERFACE_ERRORS", "OPTICS_RX_LOW")


@job_rule("link_errors", 60)
def link_errors(x: Reads) -> list[Hit]:
    rows = [r for r in x.counters("errors") if r["max_per_5min"] >= ERRORS_PER_5MIN
            and x.concerns_job(r["device"], r["interface"])]
    if not rows:
        return []
    r = max(rows, key=lambda r: r["max_per_5min"])
    dev, port, peer = r["device"], r["interface"], peer_of(x, r)
    text = (f"{dev} {port} received {r['total']:.0f} input errors in the window "
            f"({r['crc_total']:.0f} CRC), up to {r['max_per_5min']:.0f} per 5 minutes: each "
            "corrupted frame is dropped and RoCE retransmits it, stalling the flow")
    cites = x.cite("errors")
    rx = _rx(x, dev, port)
    if rx is not None and rx["min_dbm"] <= RX_LOW_DBM:
        text += f"; its rx power fell to {rx['min_dbm']:.1f} dBm (the optic or fibre)"
        cites += x.cite("rx_power")
    elif rx is not None:
        text += (f"; its rx power stayed at {rx['min_dbm']:.1f} dBm or more (the signal arrives "
                 "strong: a dirty connector or a bad cable rather than a weak optic)")
        cites += x.cite("rx_power")
    alarm = next((a for a in x.alarms() if a["device"] == dev
                  and a.get("interface") == port and a.get("kind") in KINDS), None)
    more = [Finding(f"{dev} {port} raised {alarm['kind']} at {stamp(alarm['raised_at'], x.zone)}",
                    x.cite("alarms"))] if alarm else []
    host = dev if dev in x.hosts else (peer if peer in x.hosts else None)
    advice = [f"Clean or replace the optic and cable of {dev} {port}"
              + (f" (to {peer} and its optic)" if peer else "") + "; check the far end's tx power.",
              f"Meanwhile drain {host} and requeue {{job}} from its last checkpoint." if host else
              f"Meanwhile shut {dev} {port} so ECMP moves the rail's flows to its siblings."]
    since = Finding(f"{stamp(alarm['raised_at'], x.zone)}, when {dev} {port} raised {alarm['kind']}",
                    x.cite("alarms")) if alarm else None
    return [Hit("link.errors", dev, port, text, cites, advice, 0.8, more=more, since_said=since,
                affects=[host] if host else [])]


def _rx(x: Reads, dev: str, port: str) -> PortCounters | None:
    """The port's rx power row (None: no optic reading), read for that port only."""
    if x.call is not None and "rx_power" not in x.ev:
        x.ev["rx_power"] = x.call("telemetry", {"metric": "rx_power", "devices": [dev],
                                                "interface": port, "window": x.window})
    return next((o for o in x.counters("rx_power") if (o["device"], o["interface"]) == (dev, port)
                 and o["min_dbm"] is not None), None)
