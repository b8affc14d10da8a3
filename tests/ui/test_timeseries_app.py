"""The time-series explorer in real Chromium (issue 55, point 6)."""

import re
import time

from kmeviz_apps.timeseries_explorer import PROBLEMS
from playwright.sync_api import expect

from .helpers import TIMEOUT, TITLE_MATCH_JS, show_tab, widget
from .test_data_trust import assert_closing_stops_it


def open_explorer(page, server_url, query=""):
    page.goto(f"{server_url.rstrip('/')}/timeseries{query}")
    expect(page.locator(".kmeviz-check")).to_be_visible(timeout=60_000)


def test_every_generator_draws_its_series(page, server_url):
    open_explorer(page, server_url)
    show_tab(page, "Series in time")
    select = widget(page, "generator").locator("select")
    for problem in PROBLEMS:
        select.select_option(problem)
        page.wait_for_function(TITLE_MATCH_JS, arg=f"{problem}: ", timeout=TIMEOUT)
    show_tab(page, "Autocorrelation")
    page.wait_for_function(TITLE_MATCH_JS, arg="Autocorrelation", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_the_iid_null_is_too_narrow_and_the_time_series_null_is_not(page, server_url):
    """Two independent AR(1) series with φ = 0.9 (the defaults): the permutation test
    rejects, the dependent wild bootstrap keeps, and both nulls share one axis."""
    open_explorer(page, server_url)
    expect(page.locator(".kmeviz-check")).to_have_text("The check fires")
    expect(page.locator(".kmeviz-iid-decision")).to_have_text("reject", timeout=TIMEOUT)
    expect(page.locator(".kmeviz-series-decision")).to_have_text("keep", timeout=TIMEOUT)
    # the first tab: both nulls on one axis
    page.wait_for_function(TITLE_MATCH_JS, arg="HSIC (black) — i.i.d. p = ",
                           timeout=TIMEOUT)
    # at φ = 0 the rows are exchangeable: the check is quiet
    slider = widget(page, "AR(1) φ")
    slider.locator(".noUi-handle").focus()
    page.keyboard.press("Home")
    expect(page.locator(".kmeviz-check")).to_have_text("The check does not fire",
                                                       timeout=TIMEOUT)


def test_a_heavy_rejection_curve_does_not_block_another_session(page, server_url, browser):
    open_explorer(page, server_url, "?n=2000")
    button = page.get_by_role("button", name=re.compile("Rejection rates"))
    button.click()
    expect(button).to_be_disabled(timeout=TIMEOUT)
    other = browser.new_context().new_page()
    t0 = time.monotonic()
    open_explorer(other, server_url, "?problem=MCMC+chain+against+its+target")
    assert time.monotonic() - t0 < 30
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    other.context.close()


def test_the_rejection_curve_stops_when_its_page_closes(browser):
    def curve(url):
        page = browser.new_page()
        open_explorer(page, url, "?n=2000")
        page.get_by_role("button", name=re.compile("Rejection rates")).click()
        return page

    assert_closing_stops_it(curve)


def test_a_hostile_link_keeps_its_defaults(page, server_url):
    open_explorer(page, server_url, "?problem=%3Cb%3Ex%3C/b%3E&n=1e308&phi=7")
    expect(page.locator(".kmeviz-check")).to_have_text("The check fires", timeout=TIMEOUT)
    expect(page.locator("b", has_text="x")).to_have_count(0)
