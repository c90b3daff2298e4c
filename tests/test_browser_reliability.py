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
    rep = reliability_report(engine_for(f"sqlite:///{home / 'netopsai.db'}"), "30d", "pod")
    worst = rep.scopes[0]["scope"]
    with open_page(browser, server, height=1800) as (pg, outside):
        pg.get_by_role("tab", name="Reliability").click()
        summary = pg.locator("#rel-summary")
        expect(summary).to_contain_text(f"{rep.totals['alarms']} alarms in {rep.totals['cases']} cases",
                                        timeout=30_000)
        expect(summary).to_contain_text(worst)
        bad, ttr, noise = (pg.locator(f"#{e}") for e in ("rel-bad-minutes", "rel-ttr", "rel-noise"))
        for plot in (bad, ttr, noise):
            drawn(plot)
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
        assert outside == []


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
