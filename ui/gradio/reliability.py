"""The Reliability tab's views, pure over a Report (netopsai.reliability): the frames its plots
draw (bad minutes per scope, the time-to-close distribution, alarms per case by day), its tables
and its text. reliability_tab.py lays them out; nothing here reads the store. Times read in the
network's zone, as in the other tabs: the summary's window, and the days of the noise plot."""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import pandas as pd

from netopsai.common.timewin import as_utc
from netopsai.reliability.model import Report
from netopsai.ui.gradio.timepick import local_time, zone_info

WINDOWS = ["7d", "14d", "30d", "90d"]
BUCKETS = [(15, "< 15 min"), (60, "15–60 min"), (240, "1–4 h"), (1440, "4–24 h"),
           (float("inf"), "> 1 day")]
SCOPES_PLOTTED = 40  # the worst; the table and the exports have every one
OFFENDER_COLUMNS = ["kind", "name", "cases", "case_list"]
TTR_COLUMNS = ["category", "stage", "cases", "of", "p50_min", "p90_min"]
BUCKET_ORDER = [label for _, label in BUCKETS]
PALETTE = ["#2563eb", "#ea580c", "#16a34a", "#7c3aed", "#dc2626", "#0891b2", "#a16207", "#be185d",
           "#475569", "#65a30d"]


# the plots' axis titles in words (gradio titles an axis with its column name otherwise)
SCOPE_TITLE = {"pod": "PoD", "site": "site (data centre)", "zone": "zone (region)"}
TITLES = {"bad_minutes": "bad minutes", "ttr_x": "time to close (detected → closed)",
          "ttr_y": "closed cases", "noise_y": "alarms per case"}


def outside_pods(rep: Report) -> int:
    """Bad cases on devices outside any PoD (borders, DCI, super-spines): a per-PoD view does
    not show them (model.definitions)."""
    return sum(1 for r in rep.cases if r.get("bad") and not r.get("pods"))


def default_scope(per_pod: Report) -> str:
    """The view the tab opens on when nobody picked one: per PoD while every bad case is in a
    PoD, else per site, where every device has a place, so the worst place is on screen."""
    return "site" if outside_pods(per_pod) else "pod"


@dataclass
class ReliabilityView:
    summary: str
    scopes: pd.DataFrame  # scope, bad_minutes, where (the site or zone: the legend)
    ttr: pd.DataFrame  # bucket, cases, category
    noise: pd.DataFrame  # time, alarms_per_case, series
    offenders: pd.DataFrame
    ttr_table: pd.DataFrame
    definitions: str

    def colours(self) -> list[dict[str, str]]:
        """The three plots' color maps (what makes gradio draw their legends; shell.recolour)."""
        return [colour_map(self.scopes["where"]), colour_map(self.ttr["category"]),
                colour_map(self.noise["series"])]


def colour_map(values: pd.Series) -> dict[str, str]:
    names = sorted({str(v) for v in values})
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


def _where(rep: Report) -> dict[str, str]:
    """The legend of the bad-minutes plot: a PoD's site (its name's prefix before the first
    dash, as the lab and imports name PoDs), else the scope itself."""
    return {r["scope"]: (r["scope"].split("-", 1)[0] if rep.by == "pod" and "-" in r["scope"]
                         else r["scope"]) for r in rep.scopes}


def scopes_frame(rep: Report) -> pd.DataFrame:
    where = _where(rep)
    rows = [{"scope": r["scope"], "bad_minutes": r["bad_minutes"], "where": where[r["scope"]]}
            for r in rep.scopes[:SCOPES_PLOTTED]]
    return pd.DataFrame(rows, columns=["scope", "bad_minutes", "where"])


def bucket(minutes: float) -> str:
    return next(label for top, label in BUCKETS if minutes < top)


def ttr_frame(rep: Report) -> pd.DataFrame:
    """Closed cases by how long they took to close, per root category (stacked counts)."""
    counts: dict[tuple[str, str], int] = {}
    for r in rep.cases:
        if r["closed_min"] is not None:
            key = (bucket(r["closed_min"]), r["category"])
            counts[key] = counts.get(key, 0) + 1
    order = {label: i for i, (_, label) in enumerate(BUCKETS)}
    rows = [{"bucket": b, "cases": n, "category": c}
            for (b, c), n in sorted(counts.items(), key=lambda kv: (order[kv[0][0]], kv[0][1]))]
    return pd.DataFrame(rows, columns=["bucket", "cases", "category"])


def _at(value: str, zone: str) -> datetime:
    """A report's ISO UTC time on the network's clock."""
    return as_utc(datetime.fromisoformat(value.replace("Z", "+00:00"))).astimezone(zone_info(zone))


def _day(value: str, zone: str) -> date:
    return _at(value, zone).date()


def noise_frame(rep: Report, zone: str = "UTC") -> pd.DataFrame:
    """Alarms per case by day of the network's zone. The report's own noise rows count UTC days
    (for the exports); here its cases are grouped by the network's day of their first alarm (a
    case raised before the window counts on the window's first day), so the plot's days are the
    days the on-call lived. `time` is that day's midnight as naive wall time (views.for_browser).
    A day with no case is NaN (no data), not 0."""
    first, last = _day(rep.window["start"], zone), _day(rep.window["end"], zone)
    days = {first + timedelta(days=i): [0, 0] for i in range((last - first).days + 1)}
    for r in rep.cases:
        counts = days.setdefault(max(_day(r["detected"], zone), first), [0, 0])
        counts[0] += int(r["alarms"])
        counts[1] += 1
    # a day without a case has no ratio: None (NaN, null in the browser), which the line plot
    # leaves as a gap; a 0 would draw a quiet day as a perfectly quiet pager
    rows = [{"time": pd.Timestamp(d), "alarms_per_case": round(a / c, 2) if c else None,
             "series": "alarms per case"} for d, (a, c) in sorted(days.items())]
    frame = pd.DataFrame(rows, columns=["time", "alarms_per_case", "series"])
    frame["alarms_per_case"] = frame["alarms_per_case"].astype(float)  # a column all None stays numeric
    return frame


def offenders_frame(rep: Report, zone: str = "UTC") -> pd.DataFrame:
    """The repeat offenders, each case listed as "C5 LINK_DOWN 2026-03-09 18:00 EDT (22:00Z)": the
    time of its first alarm on the network's clock, its zone named (UTC: "… 22:00Z"); the report's
    own case_list is UTC, for exports."""
    cases = {r["case"]: r for r in rep.cases}

    def listed(ids: str) -> str:
        return "; ".join(f"{c} {cases[c]['root_kind']} "
                         f"{local_time(cases[c]['detected'], zone, seconds=False)}"
                         if c in cases else c for c in ids.split())
    rows = [{**r, "case_list": listed(str(r.get("case_ids", "")))} for r in rep.offenders]
    return pd.DataFrame(rows, columns=OFFENDER_COLUMNS)


def summary(rep: Report, zone: str = "UTC") -> str:
    t, w = rep.totals, rep.window
    worst = next((r for r in rep.scopes if r["bad_minutes"]), None)
    span = " .. ".join(local_time(w[k], zone, seconds=False) for k in ("start", "end"))
    text = (f"**{span}** by {rep.by}: {t['alarms']} alarms in {t['cases']} "
            f"cases ({t['compression']:g} alarms per case), {t['bad_cases']} bad, "
            f"{t['open_cases']} open.")
    if worst:
        text += (f" Worst: **{html.escape(worst['scope'])}** with {worst['bad_minutes']} bad "
                 f"minutes ({worst['bad_percent']:g}% of the window).")
    return text


def view(rep: Report, zone: str = "UTC") -> ReliabilityView:
    """The tab's content, its times in the network's `zone`."""
    return ReliabilityView(
        summary=summary(rep, zone), scopes=scopes_frame(rep), ttr=ttr_frame(rep),
        noise=noise_frame(rep, zone),
        offenders=offenders_frame(rep, zone),
        ttr_table=pd.DataFrame(rep.ttr, columns=TTR_COLUMNS),
        definitions="\n".join(f"- {html.escape(d)}" for d in rep.definitions))
