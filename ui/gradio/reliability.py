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
# the time-to-repair table on screen: "7 of 13" cases in one column and p50/p90 (its label says
# minutes), five columns that fit a phone's width; the exports keep the report's own columns
TTR_SHOWN = ["category", "stage", "cases", "p50", "p90"]
BUCKET_ORDER = [label for _, label in BUCKETS]
PALETTE = ["#2563eb", "#ea580c", "#16a34a", "#7c3aed", "#dc2626", "#0891b2", "#a16207", "#be185d",
           "#475569", "#65a30d"]

# the tab's own rules (app.launch_options adds them to app.CSS): the offenders a table on a laptop
# and a labelled card per offender on a phone; the time-to-close plot's legend drawn by gradio on a
# laptop and as wrapping HTML (legend_html) on a phone, where gradio's one-line legend is cut
CSS = """
.np-cards-title { font-size: var(--block-label-text-size); color: var(--block-label-text-color);
  margin: 8px 0 6px; }
.np-cards-box { max-height: 420px; overflow-y: auto; border: 1px solid var(--border-color-primary);
  border-radius: 8px; }
.np-cards { border-collapse: collapse; width: 100%; font-size: 13px; line-height: 1.35; }
.np-cards th { position: sticky; top: 0; background: var(--table-odd-background-fill, #f9fafb);
  text-align: left; font-weight: 600; }
.np-cards th, .np-cards td { padding: 5px 8px; border-bottom: 1px solid var(--border-color-primary);
  vertical-align: top; word-break: normal; overflow-wrap: normal; }
.np-cards .np-c-kind, .np-cards .np-c-cases { white-space: nowrap; width: 1%; }
.np-cards .np-c-name { white-space: nowrap; font-weight: 600; width: 1%; }
.np-cards .np-case { white-space: nowrap; }
#rel-offenders table, #rel-offenders tr, #rel-offenders td { border-left: 0; border-right: 0; border-top: 0; }
#rel-ttr-legend { display: none; }
.np-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; align-items: center;
  padding: 0 12px 8px; }
.np-legend-title { flex-basis: 100%; color: var(--body-text-color-subdued); }
.np-key { white-space: nowrap; } .np-key i { display: inline-block; width: 10px; height: 10px;
  margin-right: 4px; vertical-align: -1px; }
@media (max-width: 640px) {
  .np-cards thead { display: none; }
  .np-cards, .np-cards tbody, .np-cards tr, .np-cards td { display: block; width: auto; }
  .np-cards tr { padding: 6px 4px; border-bottom: 1px solid var(--border-color-primary); }
  .np-cards td { border: 0; padding: 1px 6px; white-space: normal; }
  #rel-offenders .np-cards td { width: auto; }  /* not the laptop's shrink-to-content 1% */
  .np-cards td.np-c-kind, .np-cards td.np-c-cases { display: inline-block; }
  .np-cards td.np-c-name { font-size: 14px; }
  .np-cards td.np-c-case_list::before, .np-cards td.np-c-kind::before,
  .np-cards td.np-c-cases::before { content: attr(data-label) ": "; color: var(--body-text-color-subdued); }
  #rel-ttr-legend { display: block; }
  #rel-ttr g.role-legend { display: none; }
}
"""

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
    offenders_html: str = ""  # the offenders as the tab shows them (offenders_html)
    ttr_legend: str = ""  # the time-to-close plot's legend for a phone (legend_html)

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


def ttr_table(rep: Report) -> pd.DataFrame:
    rows = [{"category": r["category"], "stage": r["stage"], "cases": f"{r['cases']} of {r['of']}",
             "p50": r["p50_min"], "p90": r["p90_min"]} for r in rep.ttr]
    return pd.DataFrame(rows, columns=TTR_SHOWN)


def offenders_html(frame: pd.DataFrame, zone: str = "UTC") -> str:
    """The repeat offenders as an HTML table that a phone shows as one card per offender
    (app.CSS `.np-cards`: each cell a line, labelled), so the case list reads in the screen's
    width instead of a sideways scroll past four columns sized for a laptop."""
    title = (f'<div class="np-cards-title">repeat offenders (two or more cases; times in '
             f'{html.escape(zone)})</div>')
    if frame.empty:
        return f'{title}<p class="np-cards-none">none in this window</p>'
    heads = {"kind": "kind", "name": "name", "cases": "cases", "case_list": "cases, first alarm"}

    def cell(col: str, value: object) -> str:
        text = html.escape(str(value))
        if col == "case_list":  # a line breaks between cases, never inside one ("C5 LINK_DOWN 2026-…")
            text = "; ".join(f'<span class="np-case">{c}</span>' for c in text.split("; "))
        return f'<td class="np-c-{col}" data-label="{heads[col]}">{text}</td>'
    rows = "".join("<tr>" + "".join(cell(c, r[c]) for c in OFFENDER_COLUMNS) + "</tr>"
                   for r in frame.to_dict("records"))
    head = "".join(f'<th class="np-c-{c}">{heads[c]}</th>' for c in OFFENDER_COLUMNS)
    return (f'{title}<div class="np-cards-box"><table class="np-cards"><thead><tr>{head}</tr>'
            f'</thead><tbody>{rows}</tbody></table></div>')


def legend_html(cmap: dict[str, str], title: str) -> str:
    """A plot's legend as wrapping HTML: gradio draws a bottom legend on one line, which a
    phone's width cuts (the root categories past "link"); app.CSS shows this one there instead."""
    items = "".join(f'<span class="np-key"><i style="background:{html.escape(c)}"></i>'
                    f'{html.escape(n)}</span>' for n, c in cmap.items())
    return f'<div class="np-legend"><span class="np-legend-title">{html.escape(title)}</span>{items}</div>'


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
    offenders, ttr = offenders_frame(rep, zone), ttr_frame(rep)
    return ReliabilityView(
        summary=summary(rep, zone), scopes=scopes_frame(rep), ttr=ttr,
        noise=noise_frame(rep, zone), offenders=offenders,
        ttr_table=ttr_table(rep),
        definitions="\n".join(f"- {html.escape(d)}" for d in rep.definitions),
        offenders_html=offenders_html(offenders, zone),
        ttr_legend=legend_html(colour_map(ttr["category"]), "root category"))
