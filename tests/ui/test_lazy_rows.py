"""A row below the fold is built when it scrolls into view (``kmeviz_apps._lazy``)."""

from playwright.sync_api import expect

from .helpers import TIMEOUT

#: a row that is not built yet shows this placeholder
WAITING = ".kmeviz-lazy"


def test_rows_below_the_fold_are_built_when_scrolled_into_view(page, server_url,
                                                                bokeh_titles):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(server_url + "stein")
    expect(page.locator(".kmeviz-summary")).to_be_visible(timeout=60_000)
    page.wait_for_function("t => Bokeh.documents.some(d => [...d.all_models].some("
                           "m => m.constructor.__name__ === 'Title'))", timeout=TIMEOUT)
    # the third row (the nulls of the two KSD tests) is far below a 720 px view: not built
    expect(page.locator(WAITING).last).to_be_attached(timeout=TIMEOUT)
    page.wait_for_timeout(1500)
    assert not any("KSD test:" in t for t in bokeh_titles(page))
    for _ in range(10):  # scroll the page's main area to its end until every row is built
        page.evaluate("() => { const m = document.querySelector('#main'); "
                      "m.scrollTop = m.scrollHeight; }")
        page.wait_for_timeout(500)
        if not page.locator(WAITING).count():
            break
    expect(page.locator(WAITING)).to_have_count(0, timeout=TIMEOUT)
    page.wait_for_function("() => Bokeh.documents.some(d => [...d.all_models].some("
                           "m => m.constructor.__name__ === 'Title' && "
                           "/KSD test:/.test(m.text)))", timeout=TIMEOUT)
