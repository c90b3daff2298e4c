"""The Device tab's snapshots panel: the device's state captured when alarms opened on it
(netopsai.backends.snapshot), one row each, newest first: when, for which alarm, the ports
down then, the running config's change since the snapshot before, and what was not read.
A click on a row opens that snapshot below the table: its interfaces, LLDP and BGP neighbours
and every changed config line. Times are formatted by the caller's `when` (the page's zone);
every text from the device is escaped (network text never becomes markup)."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any, cast

import gradio as gr
import pandas as pd

from netopsai.backends.base import Backends
from netopsai.backends.rows import SnapshotDetail, SnapshotInfo
from netopsai.copilot.doors import snapshot_detail
from netopsai.copilot.evidence import cell_text
from netopsai.ui.gradio import views

SNAPSHOT_COLUMNS = ["id", "taken", "alarm", "by", "ports down", "LLDP", "BGP", "config",
                    "not read"]
DIFF_SHOWN = 6  # changed lines in a cell; the opened snapshot (and `netopsai snapshots`) show all
PORTS_SHOWN = 64  # an opened snapshot's interfaces, down ones first: a chassis has hundreds
When = Callable[[Any], str]
PRE = "white-space:pre-wrap;font-size:12px;margin:2px 0"


def _config(row: SnapshotInfo) -> str:
    lines = str(row.get("config_diff") or "").splitlines()
    status = str(row.get("config") or "not read")
    if not lines:
        return status
    more = f" … {len(lines) - DIFF_SHOWN} more" if len(lines) > DIFF_SHOWN else ""
    return f"{status}: " + "; ".join(lines[:DIFF_SHOWN]) + more


def snapshots_frame(rows: list[SnapshotInfo], when: When) -> pd.DataFrame:
    out = [{"id": str(r.get("id", "")), "taken": when(r.get("taken_at")),
            "alarm": "—" if r.get("alarm_id") is None else str(r["alarm_id"]),
            "by": cell_text(r.get("source") or "—"),
            "ports down": ", ".join(r.get("interfaces_down") or []) or "none",
            "LLDP": str(r.get("lldp_neighbors", 0)), "BGP": str(r.get("bgp_peers", 0)),
            "config": _config(r),
            "not read": "; ".join(cell_text(e) for e in r.get("errors") or []) or "—"}
           for r in rows]
    return pd.DataFrame(out, columns=SNAPSHOT_COLUMNS)


def _interfaces(data: dict[str, Any]) -> list[dict[str, Any]]:
    ifaces = {k: v for k, v in (data.get("interfaces") or {}).items() if isinstance(v, dict)}
    rows = [{"interface": name, "state": "up" if i.get("is_up") else "down",
             "enabled": "yes" if i.get("is_enabled", True) else "no",
             "description": i.get("description") or ""} for name, i in ifaces.items()]
    return sorted(rows, key=lambda r: (r["state"] == "up", r["interface"]))


def _lldp(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"local port": port, "neighbour": n.get("hostname", ""), "its port": n.get("port", "")}
            for port, found in sorted((data.get("lldp_neighbors") or {}).items())
            if isinstance(found, list) for n in found if isinstance(n, dict)]


def _bgp(data: dict[str, Any]) -> list[dict[str, Any]]:
    peers = ((data.get("bgp_neighbors") or {}).get("global") or {}).get("peers") or {}
    return [{"peer": ip, "remote AS": p.get("remote_as", ""),
             "state": "up" if p.get("is_up") else "down", "description": p.get("description") or ""}
            for ip, p in sorted(peers.items()) if isinstance(p, dict)]


def _part(title: str, rows: list[dict[str, Any]], cols: list[str], shown: int = 1000) -> str:
    if not rows:
        return f"<p><b>{html.escape(title)}</b>: none read</p>"
    more = f" (the first {shown} of {len(rows)})" if len(rows) > shown else ""
    return (f"<p><b>{html.escape(title)}</b> ({len(rows)}){more}</p>"
            + views._table(cols, rows[:shown]))


def detail_html(row: SnapshotDetail, when: When) -> str:
    """One snapshot opened (the copilot's snapshot_detail row): its line, interfaces, LLDP, BGP,
    the config's changed lines in full."""
    data = row.get("data") or {}
    why = f" for alarm {row['alarm_id']}" if row["alarm_id"] is not None else ""
    head = (f"<p><b>snapshot {row['id']}</b> of {html.escape(row['device'])} taken "
            f"{html.escape(when(row['taken_at']))}{why} by {html.escape(row['source'] or '—')}</p>")
    diff = str(row.get("config_diff") or "").splitlines()
    config = (f"<p><b>config</b>: {html.escape(row['config'] or 'not read')}"
              + (f", {len(diff)} changed lines</p><pre style='{PRE}'>"
                 + html.escape("\n".join(diff)) + "</pre>" if diff else "</p>"))
    errors = "".join(f"<li>{html.escape(cell_text(e))}</li>" for e in row["errors"])
    return ("<div class='np-snapshot'>" + head
            + _part("interfaces", _interfaces(data), ["interface", "state", "enabled", "description"],
                    PORTS_SHOWN)
            + _part("LLDP neighbours", _lldp(data), ["local port", "neighbour", "its port"])
            + _part("BGP peers", _bgp(data), ["peer", "remote AS", "state", "description"])
            + config + (f"<p><b>not read</b></p><ul>{errors}</ul>" if errors else "") + "</div>")


HINT = "<p style='color:#6b7280;margin:2px 0'><small>click a snapshot to open it</small></p>"


def snapshot_panel(backends: Backends, when: When, table: gr.Dataframe,
                   picker: gr.Dropdown) -> gr.HTML:
    """The opened snapshot under `table`: a click on a row shows it; a new table (another
    device, a refresh) closes it. Read through the copilot's door by the row's id, within the
    device's listing, so a stale row of another device opens nothing."""
    shown = gr.HTML("", elem_id="device-snapshot")

    def open_one(device: str | None, evt: gr.SelectData) -> str:
        values = evt.row_value if isinstance(evt.row_value, list) else []
        sid = str(values[0]) if values else ""
        snap = snapshot_detail(backends, device or "", sid)
        if snap is None:
            return f"<p>snapshot {html.escape(sid)} of {html.escape(device or '')} is gone</p>"
        return detail_html(cast(SnapshotDetail, snap), when)

    table.select(open_one, [picker], shown)
    table.change(lambda frame: HINT if frame is not None and len(frame) else "", table, shown)
    return shown
