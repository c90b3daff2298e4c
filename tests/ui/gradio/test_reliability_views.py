"""The Reliability tab's phone-ready views (issue 26 item 3), pure over a report: the repeat
offenders as a table that a phone shows as cards (names escaped, each case kept whole), the
time-to-close legend as wrapping HTML naming every root category in the plot's colours, and the
time-to-repair table in five columns ("4 of 6" cases). The browser side is test_browser_tour."""

from __future__ import annotations

import dataclasses
import re

from netopsai.reliability.model import Report
from netopsai.ui.gradio import reliability as rv
from tests.reliability.test_reliability_render import fixed_report

CATEGORIES = ["link", "link", "device", "optics", "bgp"]


def report() -> Report:
    """The render tests' fixed report, its cases closed and in root categories (the plot's)."""
    rep = fixed_report()
    cases = [{**c, "category": cat, "closed_min": 10.0 * (i + 1), "alarms": 2, "bad": True,
              "pods": ["dc1-pod1"]} for i, (c, cat) in enumerate(zip(rep.cases, CATEGORIES, strict=True))]
    return dataclasses.replace(rep, cases=cases)


def test_offenders_are_escaped_cells_with_each_case_whole() -> None:
    rep = report()
    out = rv.offenders_html(rv.offenders_frame(rep, "America/New_York"), "America/New_York")
    assert "&lt;@U123&gt; leaf`3" in out and "<@U123>" not in out  # a name is text, not markup
    assert out.count("<tr>") == 1 + len(rep.offenders)  # the header, then one per offender
    cases = re.findall(r'<span class="np-case">([^<]*)</span>', out)
    assert len(cases) == 5 and cases[0].startswith("C1 LINK_DOWN 2026-03-09 12:00 EDT"), cases
    assert 'data-label="cases, first alarm"' in out  # what a phone's card labels the list with
    assert "times in America/New_York" in out
    empty = rv.offenders_html(rv.offenders_frame(dataclasses.replace(rep, offenders=[])))
    assert "none in this window" in empty and "<table" not in empty


def test_the_legend_names_every_category_in_the_plots_colours() -> None:
    view = rv.view(report())
    cmap = rv.colour_map(view.ttr["category"])
    assert sorted(cmap) == ["bgp", "device", "link", "optics"]
    for name, colour in cmap.items():
        assert f'<i style="background:{colour}"></i>{name}</span>' in view.ttr_legend
    assert view.colours()[1] == cmap  # the same colours as the plot's own legend
    assert "&lt;b&gt;" in rv.legend_html({"<b>": "#000000"}, "root category")


def test_the_repair_table_fits_five_columns() -> None:
    table = rv.view(report()).ttr_table
    assert list(table.columns) == ["category", "stage", "cases", "p50", "p90"]
    first = table.iloc[0].to_dict()
    assert first["cases"] == "4 of 6" and first["p50"] == 5.0 and first["p90"] == 12.5
