"""The Alarms tab: open alarms, recent ones and their cases (alarms grouped by topology, each with
a suggested root cause and blast radius) through the alarms tool (so the web app shows what the
copilot would cite), filtered by site, category and window."""

from __future__ import annotations

from typing import Any, get_args

import pandas as pd

from netopsai.backends.base import Backends
from netopsai.tools.alarms import COLUMNS, Category
from netopsai.tools.registry import run_tool

ALL = "all"
WINDOWS = ["1h", "2h", "6h", "24h", "7d"]
CATEGORIES = [ALL, *get_args(Category)]
SHOWN = [c for c in COLUMNS if c != "id"]
CASE_COLUMNS = ["case", "suggested root cause", "alarms", "state", "first raised", "blast radius",
                "why"]


def sites(backends: Backends) -> list[str]:
    return [ALL, *(s["site"] for s in backends.inventory.sites())]


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    newest = sorted(rows, key=lambda r: r.get("raised_at") or "", reverse=True)
    return pd.DataFrame([{c: r.get(c) for c in SHOWN} for r in newest], columns=SHOWN)


def alarms_view(backends: Backends, site: str = ALL, category: str = ALL,
                window: str = "24h") -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """(open alarms, alarms active in the window, a one-paragraph summary). A bad filter comes
    back as the tool's error message, never an exception."""
    open_now, recent, _, summary = alarms_and_cases(backends, site, category, window)
    return open_now, recent, summary


def alarms_and_cases(backends: Backends, site: str = ALL, category: str = ALL, window: str = "24h",
                     ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str]:
    """alarms_view plus the window's alarms grouped into cases (netopsai.tools.alarm_cases.correlate):
    the suggested root cause of each, its size and its blast radius."""
    args: dict[str, Any] = {"window": window or "24h"}
    if site and site != ALL:
        args["site"] = site
    if category and category != ALL:
        args["category"] = category
    open_ev = run_tool("alarms", {**args, "state": "open"}, backends)
    recent = run_tool("alarms", {**args, "state": "any", "correlate": True}, backends)
    errors = open_ev.errors or recent.errors
    if errors:
        empty = _frame([])
        return empty, empty, cases_frame([]), f"**error:** {errors[0]}"
    w = recent.window or {}
    summary = (f"**{open_ev.facts['alarms']} open** · {recent.summary}  \n"
               f"<small>window {w.get('start')} .. {w.get('end')} (lab clock)</small>")
    return _frame(open_ev.rows), _frame(recent.rows), cases_frame(recent.facts["cases"]), summary


def cases_frame(cases: list[dict[str, Any]]) -> pd.DataFrame:
    """One row a case, open ones and the largest first (the tool's order)."""
    rows = [{"case": c["case"], "suggested root cause": f"{c['root_kind']} on {c['root_device']}"
             + (f" {c['root_interface']}" if c["root_interface"] else ""),
             "alarms": c["alarms"], "state": c["state"], "first raised": c["first_raised"],
             "blast radius": c["impact"]["summary"], "why": c["reason"]} for c in cases]
    return pd.DataFrame(rows, columns=CASE_COLUMNS)
