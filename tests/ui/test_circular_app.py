"""The circular discrepancy explorer in real Chromium."""

import re

from playwright.sync_api import expect

TIMEOUT = 30_000


def open_app(page, server_url):
    page.goto(server_url)
    link = page.get_by_role("link", name="Circular discrepancy explorer")
    expect(link).to_be_visible(timeout=TIMEOUT)
    link.click()
    expect(page.locator(".kmeviz-eta")).to_be_visible(timeout=TIMEOUT)


def test_index_lists_the_app_and_the_app_loads(page, server_url, bokeh_titles):
    open_app(page, server_url)
    assert page.url.rstrip("/").endswith("/circular")
    titles = bokeh_titles(page)
    for title in (
        "Samples and projection direction",
        "Objective over the diameter angle y",
        "Ensemble of circular discrepancies vs L",
    ):
        assert title in titles
    eta = page.locator(".kmeviz-eta").inner_text()
    assert f"η(ω) = {float(eta):.4f}" in " ".join(titles)  # canvas title agrees with table
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_redrawing_omega_changes_the_plots(page, server_url, bokeh_titles):
    open_app(page, server_url)
    before = page.locator(".kmeviz-eta").inner_text()
    page.get_by_role("button", name="Redraw ω ~ p(ω)").click()
    new_number = re.compile(rf"^(?!{re.escape(before)}$)\d+\.\d{{5}}$")
    expect(page.locator(".kmeviz-eta")).to_have_text(new_number, timeout=TIMEOUT)
    after = page.locator(".kmeviz-eta").inner_text()
    # the new amplitude reaches the rendered Bokeh plot, not just the Python state
    page.wait_for_function(
        "t => Bokeh.documents.some(d => [...d.all_models].some("
        "m => m.constructor.__name__ === 'Title' && m.text === t))",
        arg=f"Wrapped on the circle: η(ω) = {float(after):.4f}",
        timeout=TIMEOUT,
    )
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_changing_L_updates_fastmmd_estimate(page, server_url):
    open_app(page, server_url)
    estimate = page.locator(".kmeviz-fastmmd")
    before = estimate.inner_text()
    slider = page.locator(".bk-input-group").filter(has_text=re.compile(r"^L \(frequencies\)"))
    handle = slider.locator(".noUi-handle")
    handle.focus()
    for _ in range(10):
        handle.press("ArrowRight")
    expect(page.get_by_text(re.compile(r"FastMMD² with L = 10[3-9]\d"))).to_be_visible(
        timeout=TIMEOUT
    )
    new_number = re.compile(rf"^(?!{re.escape(before)}$)-?\d+\.\d{{6}}$")
    expect(estimate).to_have_text(new_number, timeout=TIMEOUT)


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
    expect(page.locator(".kmeviz-exact")).to_be_visible()
