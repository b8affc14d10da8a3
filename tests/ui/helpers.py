"""Helpers for the browser tests."""

import re
import time

from playwright.sync_api import Error as PlaywrightError

TIMEOUT = 30_000

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
