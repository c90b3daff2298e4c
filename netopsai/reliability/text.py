"""The report in the terminal (`netopsai report reliability`): its tables with rich, then the
definitions that say what they count. Times are on the network's clock, its zone named (the
report's rows, and so JSON and CSV, stay ISO UTC)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from netopsai.common.localtime import at, span
from netopsai.reliability import render
from netopsai.reliability.model import Report

SCOPES_SHOWN = 25


def _cell(v: Any) -> str:
    return "–" if v is None else escape(str(v))


def _table(title: str, rows: list[dict[str, Any]], columns: list[str]) -> Table:
    t = Table(*columns, title=title, title_justify="left")
    for r in rows:
        t.add_row(*(_cell(r.get(c)) for c in columns))
    return t


def _offenders(rep: Report) -> list[dict[str, Any]]:
    """Each case of an offender as 'C5 LINK_DOWN 2026-03-09 18:00 EDT (22:00 UTC)': its first
    alarm on the network's clock (the report's case_list is UTC, for the exports)."""
    cases = {r["case"]: r for r in rep.cases}

    def listed(ids: str) -> str:
        return "; ".join(f"{c} {cases[c]['root_kind']} {at(cases[c]['detected'], rep.zone, beside=True)}"
                         if c in cases else c for c in ids.split())
    return [{**r, "case_list": listed(str(r.get("case_ids", "")))} for r in rep.offenders]


def print_report(rep: Report, console: Console | None = None) -> None:
    c = console or render.console()
    t, w = rep.totals, rep.window
    c.print(f"reliability {span(w['start'], w['end'], rep.zone)} by {rep.by}: {t['alarms']} alarms in "
            f"{t['cases']} cases ({t['compression']:g} alarms per case), {t['bad_cases']} bad, "
            f"{t['open_cases']} open; {t['window_minutes']} minutes in the window", markup=False)
    c.print(_table(f"bad minutes per {rep.by}", rep.scopes[:SCOPES_SHOWN],
                   ["scope", "bad_minutes", "bad_percent", "case_minutes", "flap_minutes",
                    "loss_minutes", "probe_minutes", "bad_cases"]))
    if len(rep.scopes) > SCOPES_SHOWN:
        c.print(f"({len(rep.scopes) - SCOPES_SHOWN} more scopes: --format csv lists all)")
    c.print(_table("repeat offenders (two or more cases)", _offenders(rep),
                   ["kind", "name", "cases", "case_list"]) if rep.offenders
            else "repeat offenders: none")
    c.print(_table("time to repair, minutes from detection", rep.ttr,
                   ["category", "stage", "cases", "of", "p50_min", "p90_min"]))
    busy = sorted(rep.noise, key=lambda r: -r["alarms_per_case"])[:5]
    c.print(_table("noise: the days with the most alarms per case", busy,
                   ["day", "alarms", "cases", "alarms_per_case"]))
    c.print("definitions:", markup=False)
    for d in rep.definitions:
        c.print(f"- {d}", markup=False)
