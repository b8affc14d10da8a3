"""The Stein explorer in real Chromium."""

import pytest
from kmeviz_apps.stein_explorer import SteinExplorer
from playwright.sync_api import expect

from .helpers import TIMEOUT, TITLE_PRESENT_JS, open_app, settled_number, show_tab, widget

NAME = "Stein explorer"


def test_stein_app_loads_and_the_sampler_changes_the_test(page, server_url):
    full, _, _ = SteinExplorer()._tests()  # the default state, computed here
    assert full.reject  # the default sample is a shifted normal: the test must see it
    open_app(page, server_url, NAME, ".kmeviz-ksd-full")
    title = f"Full KSD test: p = {full.p_value:.4f} at α = 0.05: reject H0 (B = 500)"
    show_tab(page, "Full bootstrap")  # each plot but the first is drawn when chosen
    page.wait_for_function(TITLE_PRESENT_JS, arg=title, timeout=TIMEOUT)
    before = settled_number(page.locator(".kmeviz-ksd-full"))
    assert float(before) == pytest.approx(full.statistic, abs=5e-6)  # shown to 5 decimals
    widget(page, "sample drawn from Q").locator("select").select_option("the target itself")
    after = settled_number(page.locator(".kmeviz-ksd-full"), other_than=before)
    assert float(after) < float(before)  # the shifted sample is further from p
    show_tab(page, "Target and sample")
    page.wait_for_function(TITLE_PRESENT_JS, arg="Target: standard normal; sample: the target "
                           "itself", timeout=TIMEOUT)
    assert float(settled_number(page.locator(".kmeviz-p-full"))) > 0.05
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_stein_app_bad_imq_beta_shows_message_and_recovers(page, server_url):
    open_app(page, server_url, NAME, ".kmeviz-ksd-full")
    box = widget(page, "IMQ β").locator("input")
    box.fill("0.5")
    box.press("Enter")
    expect(page.locator(".kmeviz-error").first).to_contain_text("beta", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    box.fill("-0.5")
    box.press("Enter")
    expect(page.locator(".kmeviz-error")).to_have_count(0, timeout=TIMEOUT)
    settled_number(page.locator(".kmeviz-ksd-full"))
