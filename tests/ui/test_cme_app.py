"""The conditional mean embedding explorer in real Chromium."""

from playwright.sync_api import expect

from .helpers import TIMEOUT, TITLE_PRESENT_JS, open_app, settled_number, widget


def test_cme_app_loads_and_h_changes_the_estimate(page, server_url):
    open_app(page, server_url, "Conditional mean embedding explorer", ".kmeviz-mse")
    page.wait_for_function(TITLE_PRESENT_JS, arg="Data and conditional expectation",
                           timeout=TIMEOUT)
    before = settled_number(page.locator(".kmeviz-mse"))
    widget(page, "function h").locator("select").select_option("y²")
    settled_number(page.locator(".kmeviz-mse"), other_than=before)
    expect(page.get_by_text("h = y²")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_cme_app_bad_bandwidth_shows_message(page, server_url):
    open_app(page, server_url, "Conditional mean embedding explorer", ".kmeviz-mse")
    box = widget(page, "Bandwidth x").locator("input")
    box.fill("0")
    box.press("Enter")
    expect(page.locator(".kmeviz-error").first).to_contain_text("bandwidth must be > 0",
                                                                timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)
