"""The Conditional-independence explorer's "Causal graph (PC)" tab in real Chromium
(issue 58, point 5): it draws PC's graph against the truth, a heavy run does not block
another session, and closing the page stops the run."""

from __future__ import annotations

import re
import time

from playwright.sync_api import expect

from .helpers import TITLE_MATCH_JS, show_tab
from .test_conditional_app import open_explorer, verdicts
from .test_data_trust import VIEW_CANCELLED, assert_closing_stops_it

#: ten variables, dense, n = 2000: PC runs hundreds of KCI tests on 2000 rows (minutes)
HEAVY = "?graph_nodes=10&graph_density=0.6&n=2000"


def open_graph(page, server_url: str, query: str) -> None:
    open_explorer(page, server_url, query)
    show_tab(page, "Causal graph (PC)")


#: the graph's title once drawn: "PC with KCI: N tests, SHD S"
GRAPH_TITLE_JS = (
    "() => Bokeh.documents.flatMap(d => [...d.all_models]).filter(m => "
    "m.constructor.__name__ === 'Title' && String(m.text).startsWith('PC with KCI: '))"
    ".map(m => String(m.text))")


def test_the_graph_tab_draws_pc_against_the_true_graph(page, server_url):
    open_graph(page, server_url, "?graph_nodes=5&n=300")
    page.wait_for_function(TITLE_MATCH_JS, arg="PC with KCI: ", timeout=60_000)
    title = page.evaluate(GRAPH_TITLE_JS)[0]
    assert re.fullmatch(r"PC with KCI: \d+ tests, SHD \d+", title), title
    expect(page.get_by_text("The test that removed each edge")).to_be_visible()
    expect(page.locator(".kmeviz-error")).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)


def test_a_heavy_pc_run_does_not_block_another_session(page, server_url, browser):
    open_graph(page, server_url, HEAVY)
    page.wait_for_timeout(2000)  # the run has started
    other = browser.new_context().new_page()
    t0 = time.monotonic()
    open_explorer(other, server_url, "?structure=fork")
    assert verdicts(other)[1] == "keep H0" and time.monotonic() - t0 < 30
    other.context.close()


def test_closing_the_page_stops_a_pc_run(browser):
    def heavy_graph(url):
        page = browser.new_page()
        open_graph(page, url, HEAVY)
        return page

    assert_closing_stops_it(heavy_graph, logged=VIEW_CANCELLED)
