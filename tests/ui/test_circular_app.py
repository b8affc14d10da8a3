"""The circular discrepancy explorer in real Chromium."""

import re

from playwright.sync_api import expect

from .helpers import TIMEOUT, TITLE_PRESENT_JS, settled_number, show_tab
from .helpers import open_app as _open


def open_app(page, server_url):
    _open(page, server_url, "Circular discrepancy explorer", ".kmeviz-eta")


def test_index_lists_the_app_and_the_app_loads(page, server_url, bokeh_titles):
    open_app(page, server_url)
    assert page.url.rstrip("/").endswith("/circular")
    page.wait_for_function(TITLE_PRESENT_JS, arg="Samples and projection direction",
                           timeout=TIMEOUT)  # the first tab, drawn after the page loads
    assert "Samples and projection direction" in bokeh_titles(page)
    assert "Ensemble of circular discrepancies vs L" not in bokeh_titles(page)  # not built
    for tab, title in (("Objective over y", "Objective over the diameter angle y"),
                       ("Ensemble over L", "Ensemble of circular discrepancies vs L")):
        show_tab(page, tab)  # each other plot is drawn when its tab is chosen
        page.wait_for_function(TITLE_PRESENT_JS, arg=title, timeout=TIMEOUT)
    eta = settled_number(page.locator(".kmeviz-eta"))
    show_tab(page, "Circle")  # the circle plot's canvas title agrees with the summary table
    page.wait_for_function(TITLE_PRESENT_JS, arg=f"Wrapped on the circle: η(ω) = {float(eta):.4f}",
                           timeout=TIMEOUT)
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_redrawing_omega_changes_the_plots(page, server_url):
    open_app(page, server_url)
    before = settled_number(page.locator(".kmeviz-eta"))
    show_tab(page, "Circle")
    page.wait_for_function(TITLE_PRESENT_JS,  # the plots are drawn after the page loads
                           arg=f"Wrapped on the circle: η(ω) = {float(before):.4f}",
                           timeout=TIMEOUT)
    page.get_by_role("button", name="Redraw ω ~ p(ω)").click()
    after = settled_number(page.locator(".kmeviz-eta"), other_than=before)
    # the new amplitude reaches the rendered Bokeh plot, not just the Python state
    page.wait_for_function(TITLE_PRESENT_JS,
                           arg=f"Wrapped on the circle: η(ω) = {float(after):.4f}",
                           timeout=TIMEOUT)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_changing_L_updates_fastmmd_estimate(page, server_url):
    open_app(page, server_url)
    estimate = page.locator(".kmeviz-fastmmd")
    before = settled_number(estimate)
    slider = page.locator(".bk-input-group").filter(has_text=re.compile(r"^L \(frequencies\)"))
    handle = slider.locator(".noUi-handle")
    handle.focus()
    for _ in range(10):
        handle.press("ArrowRight")
    expect(page.get_by_text(re.compile(r"FastMMD² with L = 10[3-9]\d"))).to_be_visible(
        timeout=TIMEOUT)
    settled_number(estimate, other_than=before)


def test_impossible_bandwidth_shows_message_and_recovers(page, server_url):
    open_app(page, server_url)
    bandwidth = page.locator(".bk-input-group").filter(has_text="Bandwidth").locator("input")
    bandwidth.fill("0")
    bandwidth.press("Enter")
    error = page.locator(".kmeviz-error").first
    expect(error).to_contain_text("bandwidth must be > 0", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    bandwidth.fill("1.5")
    bandwidth.press("Enter")
    expect(page.locator(".kmeviz-error")).to_have_count(0, timeout=TIMEOUT)
    settled_number(page.locator(".kmeviz-exact"))
