"""A classroom against ``kmeviz serve``: 30 Chromium contexts open the Bootstrap explorer at
once, then each makes one α step. Reports time until all are loaded, the p50/p95 latency
of those changes, and failed sessions (issue 13, point 3).

Needs Debian's chromium. Run alone (``python -m benchmarks.bench_classroom``) or within
``python -m benchmarks``.
"""

from __future__ import annotations

import asyncio
import re
import time

import numpy as np

from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server

from ._util import print_table

NUMBER = re.compile(r"-?\d+\.\d+")


async def _number(locator, other_than=None, timeout=120.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            text = (await locator.inner_text(timeout=1_000)).strip()
        except Exception:  # noqa: BLE001 - being re-rendered
            text = ""
        if NUMBER.fullmatch(text) and text != other_than:
            return text
        await asyncio.sleep(0.05)
    raise TimeoutError("no number")


async def _student(browser, url, start_barrier, results):
    context = await browser.new_context(viewport={"width": 1300, "height": 900})
    page = await context.new_page()
    try:
        await start_barrier.wait()
        t0 = time.monotonic()
        await page.goto(url + "bootstrap", timeout=180_000)
        threshold = page.locator(".kmeviz-threshold")
        old = await _number(threshold)
        loaded = time.monotonic() - t0
        handle = page.locator(".bk-input-group").filter(
            has_text=re.compile(r"^α")).locator(".noUi-handle")
        await handle.focus()
        t1 = time.monotonic()
        await handle.press("ArrowRight")
        await _number(threshold, other_than=old)
        results.append(("ok", loaded, time.monotonic() - t1))
    except Exception as exc:  # noqa: BLE001 - a failed session is a result
        results.append(("failed", repr(exc)[:120], None))
    finally:
        await context.close()


async def _classroom(url: str, students: int):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        barrier, results = asyncio.Event(), []
        tasks = [asyncio.create_task(_student(browser, url, barrier, results))
                 for _ in range(students)]
        await asyncio.sleep(1.0)  # contexts created; all start together
        t0 = time.monotonic()
        barrier.set()
        await asyncio.gather(*tasks)
        wall = time.monotonic() - t0
        await browser.close()
    return results, wall


def measure(students: int = 30):
    with running_server() as url:
        results, wall = asyncio.run(_classroom(url, students))
    ok = [r for r in results if r[0] == "ok"]
    failed = [r for r in results if r[0] != "ok"]
    loads = np.array([r[1] for r in ok])
    changes = np.array([r[2] for r in ok])
    return {"students": students, "failed": len(failed), "errors": [r[1] for r in failed],
            "all_loaded_s": float(loads.max()) if len(loads) else float("nan"),
            "load_p50_s": float(np.median(loads)) if len(loads) else float("nan"),
            "change_p50_s": float(np.median(changes)) if len(changes) else float("nan"),
            "change_p95_s": float(np.percentile(changes, 95)) if len(changes) else float("nan"),
            "wall_s": wall}


def run(quick: bool = False):
    r = measure(8 if quick else 30)
    print_table(f"Classroom: {r['students']} Chromium contexts open the Bootstrap explorer at "
                "once, then each makes one α step (kmeviz serve defaults; 2-core machine "
                "also running Chromium)",
                ["students", "failed", "time to all loaded (s)", "median load (s)",
                 "α step p50 (s)", "α step p95 (s)"],
                [[r["students"], r["failed"], r["all_loaded_s"], r["load_p50_s"],
                  r["change_p50_s"], r["change_p95_s"]]])
    for error in r["errors"][:3]:
        print("failed session:", error)
    return r


if __name__ == "__main__":
    run()
