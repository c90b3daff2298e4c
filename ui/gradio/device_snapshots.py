"""The Device tab's snapshots panel: the device's state captured when alarms opened on it
(netopsai.backends.snapshot), one row each, newest first: when, for which alarm, the ports
down then, the running config's change since the snapshot before, and what was not read.
Pure functions, no gradio; times are formatted by the caller (the page's zone)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from netopsai.evidence import cell_text

SNAPSHOT_COLUMNS = ["taken", "alarm", "by", "ports down", "LLDP", "BGP", "config", "not read"]
DIFF_SHOWN = 6  # changed lines in a cell; the CLI's `netopsai snapshots NAME` shows all


def _config(row: dict[str, Any]) -> str:
    lines = str(row.get("config_diff") or "").splitlines()
    status = str(row.get("config") or "not read")
    if not lines:
        return status
    more = f" … {len(lines) - DIFF_SHOWN} more" if len(lines) > DIFF_SHOWN else ""
    return f"{status}: " + "; ".join(lines[:DIFF_SHOWN]) + more


def snapshots_frame(rows: list[dict[str, Any]], when: Callable[[Any], str]) -> pd.DataFrame:
    out = [{"taken": when(r.get("taken_at")),
            "alarm": "—" if r.get("alarm_id") is None else str(r["alarm_id"]),
            "by": cell_text(r.get("source") or "—"),
            "ports down": ", ".join(r.get("interfaces_down") or []) or "none",
            "LLDP": str(r.get("lldp_neighbors", 0)), "BGP": str(r.get("bgp_peers", 0)),
            "config": _config(r),
            "not read": "; ".join(cell_text(e) for e in r.get("errors") or []) or "—"}
           for r in rows]
    return pd.DataFrame(out, columns=SNAPSHOT_COLUMNS)
