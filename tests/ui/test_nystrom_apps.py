"""The Nyström error and effective-dimension explorers in real Chromium."""


from playwright.sync_api import expect

from .helpers import TIMEOUT, TITLE_PRESENT_JS, open_app, settled_number, show_tab, widget


def number_input(page, label):
    return widget(page, label).locator("input")


def test_nystrom_app_loads_and_m_view_updates_the_map(page, server_url):
    open_app(page, server_url, "Nyström error vs m", ".kmeviz-mview")
    page.wait_for_function(TITLE_PRESENT_JS, arg="Embedding error vs number of landmarks",
                           timeout=TIMEOUT)
    show_tab(page, "Nyström embedding")  # drawn when its tab is chosen
    page.wait_for_function(TITLE_PRESENT_JS, arg="Nyström μ̂_m, m = 40", timeout=TIMEOUT)
    before = settled_number(page.locator(".kmeviz-mview"))
    box = number_input(page, "m for the 2-D view")
    box.fill("8")
    box.press("Enter")
    page.wait_for_function(TITLE_PRESENT_JS, arg="Nyström μ̂_m, m = 8", timeout=TIMEOUT)
    after = settled_number(page.locator(".kmeviz-mview"), other_than=before)
    assert float(after) > float(before)  # fewer landmarks, larger error
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_nystrom_app_impossible_range_shows_message(page, server_url):
    open_app(page, server_url, "Nyström error vs m", ".kmeviz-mview")
    box = number_input(page, "smallest m")
    box.fill("90")
    box.press("Enter")
    largest = number_input(page, "largest m")
    largest.fill("20")
    largest.press("Enter")
    expect(page.locator(".kmeviz-error").first).to_contain_text(
        "smallest m (90) exceeds largest m (20)", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_spectrum_app_loads_and_m_moves_lambda(page, server_url):
    open_app(page, server_url, "Effective dimension spectrum", ".kmeviz-neff")
    page.wait_for_function(TITLE_PRESENT_JS, arg="Gram spectrum", timeout=TIMEOUT)
    before = settled_number(page.locator(".kmeviz-neff"))
    box = number_input(page, "M")
    box.fill("2000")
    box.press("Enter")
    after = settled_number(page.locator(".kmeviz-neff"), other_than=before)
    assert float(after) > float(before)  # more landmarks, smaller λ(m), larger N(λ)
    expect(page.locator(".kmeviz-error")).to_have_count(0)


def test_spectrum_app_bad_bandwidth_shows_message(page, server_url):
    open_app(page, server_url, "Effective dimension spectrum", ".kmeviz-neff")
    box = number_input(page, "Bandwidth")
    box.fill("0")  # the widget's lower bound (-2 is refused by the bound itself)
    box.press("Enter")
    expect(page.locator(".kmeviz-error").first).to_contain_text("bandwidth must be > 0",
                                                                timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)


PARTIAL_TITLE_JS = (
    "p => Bokeh.documents.some(d => [...d.all_models].some("
    "m => m.constructor.__name__ === 'Title' && new RegExp(p).test(m.text)))"
)


def test_nystrom_grid_draws_its_first_part_and_fills_in(page, server_url):
    """m_max at its bound with n = 20 000 (a grid of about 2 s): the error plot is drawn
    from its first part ("1 of 12 parts" in its title) before the grid is done, then
    completes, and the summary counts the parts (issue 29; the latency is measured in
    benchmarks/bench_apps.py)."""
    page.goto(f"{server_url}nystrom?n=20000")
    expect(page.locator(".kmeviz-progress")).to_have_text("12 of 12", timeout=60_000)
    box = number_input(page, "largest m")
    box.fill("2000")
    box.press("Enter")
    page.wait_for_function(PARTIAL_TITLE_JS, arg=r"^Embedding error vs number of landmarks "
                           r"\(\d+ of 12 parts\)$", timeout=TIMEOUT, polling="raf")
    expect(page.locator(".kmeviz-progress")).to_have_text("12 of 12", timeout=60_000)
    page.wait_for_function(TITLE_PRESENT_JS, arg="Embedding error vs number of landmarks",
                           timeout=TIMEOUT)
    expect(page.locator(".kmeviz-error")).to_have_count(0)
