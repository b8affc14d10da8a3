"""Dashboard latency: seconds from a widget change to the new content in Chromium.

Needs Debian's chromium. Measures the served app end to end (server compute, websocket,
Bokeh re-render), the median of several changes.
"""

from __future__ import annotations

import re
import statistics
import time

from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server

from ._util import print_table


def _settle(locator, old, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            text = locator.inner_text(timeout=500).strip()
        except Exception:  # noqa: BLE001 - element being re-rendered
            text = ""
        if text and text != old and re.fullmatch(r"[-\d.e]+", text):
            return text
        time.sleep(0.01)
    raise TimeoutError("no update")


def _group(page, label):
    return page.locator(".bk-input-group").filter(has_text=re.compile(rf"^{re.escape(label)}"))


def _typed_change(page, url, target, label, values, app, change):
    """Median seconds from typing a new value in a number box to ``target`` updating."""
    page.goto(url)
    out = page.locator(target)
    old = _settle(out, None, timeout=60)
    box = _group(page, label).locator("input")
    times = []
    for v in values:
        box.fill(str(v))
        t0 = time.perf_counter()
        box.press("Enter")
        old = _settle(out, old)
        times.append(time.perf_counter() - t0)
    return [app, change, statistics.median(times)]


def measure(repeats: int = 5) -> list[list]:
    from playwright.sync_api import sync_playwright

    rows = []
    with running_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})

        page.goto(url + "bootstrap")
        threshold = page.locator(".kmeviz-threshold")
        old = _settle(threshold, None)
        handle = _group(page, "α").locator(".noUi-handle")
        times = []
        for _ in range(repeats):
            handle.focus()
            t0 = time.perf_counter()
            handle.press("ArrowRight")
            old = _settle(threshold, old)
            times.append(time.perf_counter() - t0)
        rows.append(["Bootstrap explorer", "α slider step (n = 500, B = 1000)",
                     statistics.median(times)])
        B = _group(page, "B (replicates)").locator("input")
        stat = page.locator(".kmeviz-threshold")
        times = []
        for b in (900, 1000, 1100, 1000, 900)[:repeats]:
            old = _settle(stat, None)
            B.fill(str(b))
            t0 = time.perf_counter()
            B.press("Enter")
            try:
                _settle(stat, old, timeout=10)
            except TimeoutError:
                continue  # threshold happened to be unchanged; not a latency sample
            times.append(time.perf_counter() - t0)
        rows.append(["Bootstrap explorer", "B change (new permutation null)",
                     statistics.median(times) if times else float("nan")])

        page.goto(url + "circular")
        eta = page.locator(".kmeviz-eta")
        old = _settle(eta, None)
        button = page.get_by_role("button", name="Redraw ω ~ p(ω)")
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            button.click()
            old = _settle(eta, old)
            times.append(time.perf_counter() - t0)
        rows.append(["Circular explorer", "redraw ω (n = 500, L = 1024)",
                     statistics.median(times)])

        rows.append(_typed_change(page, url + "nystrom", ".kmeviz-mview",
                                  "m for the 2-D view", (30, 50, 40, 60, 20, 45, 35)[:repeats],
                                  "Nyström error vs m", "m of the 2-D view"))
        rows.append(_typed_change(page, url + "spectrum", ".kmeviz-neff", "M",
                                  (200, 300, 100, 400, 150, 250, 500)[:repeats],
                                  "Effective dimension", "m of λ(m)"))
        page.goto(url + "cme")
        mse = page.locator(".kmeviz-mse")
        old = _settle(mse, None, timeout=60)
        handle = _group(page, "log₁₀ λ").locator(".noUi-handle")
        times = []
        for key in ("ArrowRight", "ArrowLeft", "ArrowRight", "ArrowLeft", "ArrowRight",
                    "ArrowLeft", "ArrowRight")[:repeats]:
            handle.focus()
            t0 = time.perf_counter()
            handle.press(key)
            old = _settle(mse, old)
            times.append(time.perf_counter() - t0)
        rows.append(["CME explorer", "λ slider step (n = 100: refit, heatmap, FISTA)",
                     statistics.median(times)])
        rows.append(_typed_change(page, url + "cme", ".kmeviz-mse", "Bandwidth x",
                                  (0.4, 0.6, 0.3, 0.7, 0.45, 0.55, 0.35)[:repeats],
                                  "CME explorer", "input bandwidth (refit + 13-λ CV)"))
        rows.append(_typed_change(page, url + "stein", ".kmeviz-ksd-full", "Seed",
                                  (1, 2, 3, 4, 5, 6, 7)[:repeats], "Stein explorer",
                                  "seed (new sample, n = 500: both tests with D = 500, "
                                  "witnesses)"))
        browser.close()
    return rows


def run(quick: bool = False):
    rows = measure(repeats=3 if quick else 7)
    print_table("Dashboard latency in Chromium: widget change -> new value rendered (median s)",
                ["app", "change", "seconds"], rows)
