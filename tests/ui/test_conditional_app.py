"""The conditional-independence explorer in real Chromium (issue 41, point 5)."""

import re
import time

from playwright.sync_api import expect

from kmeviz.distributions.causal import STRUCTURES

from .helpers import TIMEOUT, TITLE_MATCH_JS, show_tab, widget

GRAPHS = {"chain": "X → Z → Y", "fork": "X ← Z → Y", "collider": "X → Z ← Y",
          "unrelated": "X → Y, Z unrelated"}


def open_explorer(page, server_url, query=""):
    page.goto(f"{server_url.rstrip('/')}/conditional{query}")
    expect(page.locator(".kmeviz-conditional")).to_be_visible(timeout=60_000)


def verdicts(page) -> tuple[str, str]:
    """(the marginal decision, the conditional decision) of the summary, once drawn."""
    expect(page.locator(".kmeviz-conditional")).to_have_text(re.compile("H0"),
                                                             timeout=TIMEOUT)
    return (page.locator(".kmeviz-marginal").inner_text(),
            page.locator(".kmeviz-conditional").inner_text())


def test_each_structure_draws_its_marginal_and_residual_plots(page, server_url):
    open_explorer(page, server_url)
    select = widget(page, "structure").locator("select")
    for structure in STRUCTURES:
        select.select_option(structure)
        page.wait_for_function(TITLE_MATCH_JS, arg=f"{GRAPHS[structure]}: X against Y",
                               timeout=TIMEOUT)
    show_tab(page, "Residuals given Z")
    page.wait_for_function(TITLE_MATCH_JS, arg="Residuals given Z, Pearson r = ",
                           timeout=TIMEOUT)
    show_tab(page, "Regression on Z")
    page.wait_for_function(TITLE_MATCH_JS, arg="The regression of X on Z", timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_chain_and_collider_show_opposite_verdicts_at_the_default_n(page, server_url):
    """The chain: dependent, independent given Z; the collider: the reverse."""
    open_explorer(page, server_url)
    assert verdicts(page) == ("reject H0", "keep H0")
    widget(page, "structure").locator("select").select_option("collider")
    expect(page.locator(".kmeviz-marginal")).to_have_text("keep H0", timeout=TIMEOUT)
    assert verdicts(page) == ("keep H0", "reject H0")
    show_tab(page, "Every test")
    expect(page.locator(".kmeviz-table")).to_contain_text("rcot/spectral", timeout=TIMEOUT)


def test_a_hostile_link_keeps_its_defaults(page, server_url):
    open_explorer(page, server_url, "?structure=%3Cb%3Ex%3C/b%3E&n=1e308&epsilon=-1")
    assert verdicts(page) == ("reject H0", "keep H0")
    expect(page.locator("b", has_text="x")).to_have_count(0)


def test_a_heavy_power_curve_does_not_block_another_session(page, server_url, browser):
    open_explorer(page, server_url, "?n=2000&d_z=3")
    page.get_by_role("button", name=re.compile("Power against n")).click()
    expect(page.get_by_role("button", name=re.compile("Power against n"))).to_be_disabled(
        timeout=TIMEOUT)
    other = browser.new_context().new_page()
    t0 = time.monotonic()
    open_explorer(other, server_url, "?structure=fork")
    assert verdicts(other)[1] == "keep H0" and time.monotonic() - t0 < 30
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    show_tab(page, "Power")
    page.wait_for_function(TITLE_MATCH_JS, arg="Power against n", timeout=120_000)
    other.context.close()
