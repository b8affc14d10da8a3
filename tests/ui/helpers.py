"""Helpers for the browser tests."""

import re
import time

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

TIMEOUT = 30_000

#: whether some Bokeh title starts with the argument
TITLE_MATCH_JS = (
    "t => Bokeh.documents.some(d => [...d.all_models].some("
    "m => m.constructor.__name__ === 'Title' && m.text.startsWith(t)))"
)

TITLE_PRESENT_JS = (
    "t => Bokeh.documents.some(d => [...d.all_models].some("
    "m => m.constructor.__name__ === 'Title' && m.text === t))"
)


def settled_number(locator, *, other_than=None, timeout=30.0) -> str:
    """Poll a re-rendering element until it shows a number (different from ``other_than``)."""
    deadline, text = time.monotonic() + timeout, ""
    while time.monotonic() < deadline:
        try:
            text = locator.inner_text(timeout=1_000).strip()
        except PlaywrightError:
            text = ""
        if re.fullmatch(r"-?\d+\.\d+", text) and text != other_than:
            return text
        time.sleep(0.1)
    raise AssertionError(f"no new number appeared (last text {text!r}, old {other_than!r})")


def legend_has(page, text: str) -> None:
    """Wait until some Bokeh legend item's label contains ``text``."""
    page.wait_for_function(LEGEND_JS, arg=text, timeout=TIMEOUT)


LEGEND_JS = (
    "t => Bokeh.documents.some(d => [...d.all_models].some("
    "m => m.constructor.__name__ === 'LegendItem' && "
    "JSON.stringify(m.label).includes(t)))"
)


def open_app(page, server_url, name: str, ready: str) -> None:
    """From the index page, follow the link to app ``name``; wait for ``ready`` to show."""
    page.goto(server_url)
    link = page.get_by_role("link", name=name)
    expect(link).to_be_visible(timeout=TIMEOUT)
    link.click()
    expect(page.locator(ready)).to_be_visible(timeout=60_000)


def show_tab(page, title: str) -> None:
    """Choose the tab ``title`` among a served explorer's plots (each built when chosen)."""
    tab = page.locator(".kmeviz-plots .bk-tab").filter(has_text=title)
    expect(tab).to_be_visible(timeout=TIMEOUT)
    tab.click()


def widget(page, label: str):
    """The input group of the widget whose label starts with ``label``."""
    return page.locator(".bk-input-group").filter(has_text=re.compile(rf"^{re.escape(label)}"))
