"""The Reliability tab in a real browser (fixtures in browser_kit) over the small lab with 30
days of simulated history (netopsai.reliability.simulate), in a network whose zone is New York:
the three plots drawn with their legends, the tables filled, the scope switched to zones, the
tab opened by a link on a window and scope, screenshots for a person to look at."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from netopsai.lab.manage import init_lab
from netopsai.reliability.run import reliability_report
from netopsai.reliability.simulate import simulate
from netopsai.store.engine import engine_for
from netopsai.ui.gradio.timepick import local_time
from tests.browser_kit import browser, open_page, server, shot
from tests.screen_kit import SIZES

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # fixtures pytest finds by name (`home` is this module's own)
ZONE = "America/New_York"  # the network's (config.yaml): its times are not UTC's


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("reliability-home")
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    init_lab(engine, "default", "small", 7)
    simulate(engine, 30)
    engine.dispose()
    (home / "config.yaml").write_text(f"ingest:\n  timezone: {ZONE}\n")
    return home


def drawn(plot: Locator) -> None:
    """A Vega plot that drew something: a canvas or SVG with a non-zero size."""
    mark = plot.locator("canvas, svg").first
    expect(mark).to_be_visible(timeout=20_000)
    for _ in range(40):  # a new legend re-draws the plot: its element may be replaced meanwhile
        box = mark.bounding_box()
        if box is not None and box["width"] > 50 and box["height"] > 50:
            return
        plot.page.wait_for_timeout(250)
    raise AssertionError(f"nothing drawn in {plot}")


def legend(plot: Locator, *names: str) -> None:
    """Legend entries: texts of their own (the axis labels are longer, e.g. dc1-pod1)."""
    for name in names:
        entry = plot.get_by_text(name, exact=True).first
        expect(entry).to_be_visible(timeout=20_000)
        for _ in range(40):  # the legend is re-drawn once its colours arrive: ask again then
            box, frame = entry.bounding_box(), plot.bounding_box()
            if box and frame and box["y"] + box["height"] <= frame["y"] + frame["height"]:
                break
            plot.page.wait_for_timeout(250)
        else:
            raise AssertionError(f"legend entry {name!r} is not drawn inside its plot (clipped)")


def test_reliability_tab_plots(browser: Browser, server: str, home: Path) -> None:
    """The simulated month has bad cases on border and DCI routers, in no PoD: the tab opens per
    site (where the worst place is), says why, and per PoD only when asked."""
    engine = engine_for(f"sqlite:///{home / 'netopsai.db'}")
    per_pod = reliability_report(engine, "30d", "pod")
    outside = [c for c in per_pod.cases if c["bad"] and not c["pods"]]
    assert outside  # the premise: a per-PoD view would leave these out
    rep = reliability_report(engine, "30d", "site")
    worst = rep.scopes[0]["scope"]
    with open_page(browser, server, height=1800) as (pg, outside_requests):
        pg.get_by_role("tab", name="Reliability").click()
        summary = pg.locator("#rel-summary")
        expect(summary).to_contain_text(f"{rep.totals['alarms']} alarms in {rep.totals['cases']} cases",
                                        timeout=30_000)
        expect(summary).to_contain_text(f"Shown per site: {len(outside)} bad cases are on devices "
                                        "outside any PoD")
        expect(summary).to_contain_text(f"Worst: {worst}")
        expect(pg.locator("#rel-by input")).to_have_value("site")
        bad, ttr, noise = (pg.locator(f"#{e}") for e in ("rel-bad-minutes", "rel-ttr", "rel-noise"))
        for plot in (bad, ttr, noise):
            drawn(plot)
        legend(bad, "dc1", "dc2")  # the sites
        choose(pg, "pod")  # picked by the on-call: per PoD it is, and it stays so on Refresh
        expect(summary).to_contain_text("by pod")
        pg.locator("#rel-refresh").click()
        expect(summary).to_contain_text("by pod")
        expect(summary).not_to_contain_text("Shown per site")
        expect(summary).to_contain_text(per_pod.scopes[0]["scope"])
        legend(bad, "dc1", "dc2")  # the PoDs' sites
        legend(ttr, "link", "device", "optics")  # the cases' root categories
        expect(ttr).to_contain_text("< 15 min")
        legend(noise, "alarms per case")
        expect(pg.locator("#rel-offenders")).to_contain_text(rep.offenders[0]["name"])
        expect(pg.locator("#rel-ttr-table")).to_contain_text("acknowledged")
        pg.wait_for_timeout(1000)  # let the plots finish their transitions
        shot(pg, "reliability-pods.png")
        with pg.expect_download() as got:
            pg.locator("#rel-csv").click()
        csv_text = Path(got.value.path()).read_text()
        assert csv_text.startswith("# reliability") and "\n# scopes\n" in csv_text
        choose(pg, "zone")
        legend(bad, "us-east", "us-central")
        expect(summary).to_contain_text("by zone")
        drawn(bad)
        pg.wait_for_timeout(1000)
        shot(pg, "reliability-zones.png")
        assert outside_requests == []


# the noise plot's line (Vega draws SVG): the x of its first point and the plot area's width
FIRST_POINT = """e => { const p = e.querySelector('g.mark-line path');
  const area = e.querySelector('g.mark-rect.role-frame path, path.background');
  const m = p && /^M\\s*([-\\d.]+)/.exec(p.getAttribute('d') || '');
  return m ? {x: parseFloat(m[1]), width: area ? area.getBBox().width : 0} : null; }"""
AXIS_TITLES = """e => [...e.querySelectorAll('g.role-axis-title text')].map(t => t.textContent)"""


def choose(pg: Page, option: str) -> None:
    pg.locator("#rel-by input").click()
    pg.get_by_role("option", name=option, exact=True).click()


def test_a_link_opens_the_tab_on_its_window_and_scope(browser: Browser, server: str, home: Path) -> None:
    """`?tab=reliability&window=7d&by=site` (a link in a digest or a runbook): the tab selected,
    its pickers set, the week by site read, its window in the network's zone; the address bar
    then follows the scope picked."""
    rep = reliability_report(engine_for(f"sqlite:///{home / 'netopsai.db'}"), "7d", "site", zone=ZONE)
    span = " .. ".join(local_time(rep.window[k], ZONE, seconds=False) for k in ("start", "end"))
    assert "EST" in span or "EDT" in span
    with open_page(browser, f"{server}?tab=reliability&window=7d&by=site", height=1800) as (pg, outside):
        expect(pg.get_by_role("tab", name="Reliability")).to_have_attribute(
            "aria-selected", "true", timeout=30_000)
        summary = pg.locator("#rel-summary")
        expect(summary).to_contain_text(f"{span} by site: {rep.totals['alarms']} alarms in "
                                        f"{rep.totals['cases']} cases", timeout=30_000)
        expect(pg.locator("#rel-window input")).to_have_value("7d")
        expect(pg.locator("#rel-by input")).to_have_value("site")
        bad, noise = pg.locator("#rel-bad-minutes"), pg.locator("#rel-noise")
        drawn(bad)
        legend(bad, "dc1", "dc2")  # sites now: the legend is the scope itself
        expect(noise).to_contain_text(f"by day ({ZONE})")
        first = rep.offenders[0]["case_ids"].split()[0]  # its case list on the network's clock
        case = next(r for r in rep.cases if r["case"] == first)
        at = datetime.fromisoformat(case["detected"].replace("Z", "+00:00")).astimezone(ZoneInfo(ZONE))
        listed = f"{first} {case['root_kind']} {at:%Y-%m-%d %H:%M}"
        expect(pg.locator("#rel-offenders")).to_contain_text(listed)
        drawn(noise)
        pg.wait_for_timeout(1000)  # let the plots finish their transitions
        shot(pg, "reliability-link-7d-site.png")
        choose(pg, "zone")
        expect(summary).to_contain_text("by zone")
        expect(pg).to_have_url(re.compile(r"\?tab=reliability&window=7d&by=zone$"))
        assert outside == []


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_no_data_days_are_gaps_and_axes_read_in_words(browser: Browser, server: str, home: Path,
                                                      size: tuple[int, int]) -> None:
    """90 days over a 30-day history: the first two months have no case, so the noise line
    has no value there (a gap, not a line along zero); the axes are titled in words. At a
    laptop's and a phone's size, screenshots for a person to look at."""
    rep = reliability_report(engine_for(f"sqlite:///{home / 'netopsai.db'}"), "90d", "site", zone=ZONE)
    width, height = size
    with open_page(browser, f"{server}?tab=reliability&window=90d", width, height) as (pg, outside):
        summary = pg.locator("#rel-summary")
        expect(summary).to_contain_text(f"by site: {rep.totals['alarms']} alarms", timeout=30_000)
        noise, bad = pg.locator("#rel-noise"), pg.locator("#rel-bad-minutes")
        drawn(noise)
        drawn(bad)
        pg.wait_for_timeout(1000)
        expect(summary).to_contain_text("Shown per site")  # opened on the worst place
        # the line's first point: well right of the plot's left edge, where the window starts
        first = noise.evaluate(FIRST_POINT)
        assert first is not None and first["x"] > first["width"] / 2, first
        titles = set(noise.evaluate(AXIS_TITLES)) | set(bad.evaluate(AXIS_TITLES))
        assert {"alarms per case", "bad minutes", "site (data centre)"} <= titles, titles
        assert not titles & {"alarms_per_case", "bad_minutes", "scope", "time"}, titles
        if width < 500:  # a phone: each plot a full row, not two squeezed side by side
            box, other = noise.bounding_box(), pg.locator("#rel-ttr").bounding_box()
            assert box and other and box["width"] > width * 0.8 and box["y"] > other["y"], (box, other)
        noise.scroll_into_view_if_needed()
        shot(pg, f"reliability-gaps-{width}x{height}.png")
        assert outside == []
