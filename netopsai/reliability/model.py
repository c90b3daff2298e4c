"""The reliability report: its tables (plain rows, so JSON, CSV, the CLI, the web app and Slack
show the same figures) and the definitions that say what each figure counts."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from netopsai.config.network import ReliabilitySettings

SCOPES = ("pod", "site", "zone")
STAGES = ("acknowledged", "mitigated", "closed")
TABLES = ("scopes", "offenders", "cases", "ttr", "noise")


@dataclass
class Report:
    window: dict[str, str]
    by: str
    definitions: list[str]
    scopes: list[dict[str, Any]] = field(default_factory=list)  # bad minutes per scope
    offenders: list[dict[str, Any]] = field(default_factory=list)  # kind, name, cases, case_ids
    cases: list[dict[str, Any]] = field(default_factory=list)  # one row per case, with its stages
    ttr: list[dict[str, Any]] = field(default_factory=list)  # category, stage, cases, p50, p90
    noise: list[dict[str, Any]] = field(default_factory=list)  # day, alarms, cases, alarms_per_case
    totals: dict[str, Any] = field(default_factory=dict)
    zone: str = "UTC"  # the network's zone: text shows times in it (the rows stay ISO UTC)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def table(self, name: str) -> list[dict[str, Any]]:
        if name not in TABLES:
            raise KeyError(name)
        rows: list[dict[str, Any]] = getattr(self, name)
        return rows


def definitions(cfg: ReliabilitySettings, by: str, tol_min: int) -> list[str]:
    """What the figures count, in words, from the configuration that counted them."""
    sev = ", ".join(cfg.severities) or "none"
    imp = ", ".join(cfg.impacts) or "none"
    where = {"pod": "a PoD (cases on devices outside any PoD — borders, DCI, super-spines — "
                    "count for their site and zone only)",
             "site": "a site (data centre)", "zone": "a zone (the site's region)"}[by]
    return [
        f"Scope: {where}.",
        f"Case: the alarms tool's grouping of alarms by topology (both ends of a link, a device "
        f"outage with its neighbours' alarms, bursts), alarms within {tol_min} minutes.",
        f"Bad minute: a minute of the window in which, for that scope, a case was open with an "
        f"alarm of severity {sev} or of impact {imp} (from its first alarm raised to its last "
        f"cleared, or the window's end), or a port of one of its devices lost packets "
        f"({_loss(cfg)}), or changed state at least "
        f"{cfg.flap_transitions} times within {cfg.flap_window_minutes} minutes (flapping: the "
        f"port transitions the SNMP poller and the lab record), or the ingest's flap dampening "
        f"raised LINK_FLAP on it (syslog and traps), or a periodic batch probe (`netopsai batch "
        f"--record`) found a pair with an end in it unreachable. A minute bad for several of "
        f"these reasons counts once.",
        f"Probe minutes (periodic batch probes, recorded by `netopsai batch --record` from a "
        f"timer): an unreachable probe makes bad the minutes from its run until the "
        f"pair's next probe, at most {cfg.probe_interval_minutes} minutes (probe_interval_minutes); "
        f"an end is in a scope by the device, PoD and site its address had when the probe was "
        f"recorded. Degraded probes (delivered, with a fault found on some paths) and probes "
        f"that could not be checked (error) are not counted: the pair still got through, or "
        f"nothing was learnt of it.",
        "Repeat offender: a device (a case's suggested root device), a link or an optic (a port "
        "with an optics alarm) that two or more cases of the window concern.",
        "Time to repair, from detection (the case's first alarm raised): acknowledged = the "
        "first acknowledgement or silence of one of its alarms; mitigated = the end (or start, "
        "while in progress) of the first change on one of its devices that started between "
        "detection and close; closed = its last alarm cleared. p50/p90 are nearest-rank "
        "percentiles over the cases that reached the stage, by the root alarm's category.",
        "Noise: alarms per case by day of the case's first alarm (the correlation's compression).",
    ]


def _loss(cfg: ReliabilitySettings) -> str:
    if cfg.loss_per_5min is None:
        return "not counted: loss_per_5min is off"
    return (f"{cfg.loss_per_5min:,} or more input errors and discards in a 5-minute counter "
            "sample, from the samples the poller stores: those 5 minutes")


def percentile(values: list[float], p: float) -> float | None:
    """Nearest rank: the smallest value at or above p of the sorted values."""
    if not values:
        return None
    xs = sorted(values)
    rank = max(1, -(-int(round(p * 100)) * len(xs) // 100))  # ceil(p * n) in integers
    return xs[rank - 1]
