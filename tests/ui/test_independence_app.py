"""The independence explorer in real Chromium."""

import re
import time

import numpy as np
from playwright.sync_api import expect

from kmeviz.distributions.dependence import DEPENDENCE_PROBLEMS

from .helpers import TIMEOUT, TITLE_MATCH_JS, settled_number, show_tab, widget

WITNESS_TITLE_JS = (
    "() => { for (const d of Bokeh.documents) for (const m of d.all_models) "
    "if (m.constructor.__name__ === 'Title' && m.text.startsWith('Witness')) return m.text; "
    "return null; }"
)

#: the title of a witness plot other than ``before`` (the old figure may stay in the
#: document's models beside the new one)
NEW_WITNESS_JS = (
    "before => { for (const d of Bokeh.documents) for (const m of d.all_models) "
    "if (m.constructor.__name__ === 'Title' && m.text.startsWith('Witness') "
    "&& m.text !== before) return m.text; return null; }"
)


def open_explorer(page, server_url, query=""):
    page.goto(f"{server_url.rstrip('/')}/independence{query}")
    expect(page.locator(".kmeviz-pearson")).to_be_visible(timeout=60_000)


def test_each_generator_draws(page, server_url):
    open_explorer(page, server_url)
    select = widget(page, "dependence").locator("select")
    for name in DEPENDENCE_PROBLEMS:
        select.select_option(name)
        page.wait_for_function(TITLE_MATCH_JS, arg=f"{name}: 300 pairs, Pearson r = ",
                               timeout=TIMEOUT)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_moving_the_frequency_updates_the_witness(page, server_url):
    open_explorer(page, server_url)
    show_tab(page, "Witness of dependence")
    page.wait_for_function(WITNESS_TITLE_JS, timeout=TIMEOUT)
    before = page.evaluate(WITNESS_TITLE_JS)
    handle = widget(page, "strength").locator(".noUi-handle")
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 40, box["y"] + box["height"] / 2, steps=5)  # ℓ 1 -> ~2
    page.mouse.up()
    page.wait_for_function(NEW_WITNESS_JS, arg=before, timeout=TIMEOUT)
    after = page.evaluate(NEW_WITNESS_JS, before)
    value = float(re.search(r"HSIC_b = \|\|w\|\|² = ([-\d.e]+)", after).group(1))
    assert value > 0 and after != before


def test_uncorrelated_but_dependent_shows_r_near_0_and_p_below_alpha(page, server_url):
    open_explorer(page, server_url, "?problem=xor&strength=0.1&n=400")
    r = float(settled_number(page.locator(".kmeviz-pearson")))
    p = float(settled_number(page.locator(".kmeviz-p-value")))
    assert abs(r) < 0.1 and p < 0.05, (r, p)
    expect(page.locator(".kmeviz-summary")).to_contain_text("does not mean independence")


def test_a_heavy_power_curve_does_not_block_another_session(page, server_url, browser):
    # n = 1500: the curve (6 × 40 draws) runs far past the other page's first plot, and
    # its first point (about 9 s here) still arrives within the 20 s budget of a job
    open_explorer(page, server_url, "?n=1500")
    page.get_by_role("button", name=re.compile("Power curve")).click()
    expect(page.get_by_role("button", name=re.compile("Power curve"))).to_be_disabled(
        timeout=TIMEOUT)
    other = browser.new_context().new_page()
    t0 = time.monotonic()
    open_explorer(other, server_url, "?problem=noisy%20circle")
    r = float(settled_number(other.locator(".kmeviz-pearson")))
    assert np.isfinite(r) and time.monotonic() - t0 < 30
    # the first page's curve is still running (it has 6 × 40 draws at n = 1500) or drawn
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    show_tab(page, "Power")
    page.wait_for_function(TITLE_MATCH_JS, arg="Power against frequency ℓ", timeout=120_000)
    other.context.close()
