"""A classroom against ``kmeviz serve``: 30 Chromium contexts open the Bootstrap explorer at
once, then each makes one α step. Reports time until all are loaded, the p50/p95 latency
of those changes, failed sessions (not loaded within ``PATIENCE``) and the server's CPU
seconds per student (issue 13, point 3). Arguments are passed to ``kmeviz serve``, e.g.
``python -m benchmarks.bench_classroom --num-procs 2``.

Needs Debian's chromium. Run alone (``python -m benchmarks.bench_classroom``) or within
``python -m benchmarks``.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time

import numpy as np

from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server

from ._util import print_table

NUMBER = re.compile(r"-?\d+\.\d+")


#: seconds a student waits for the page before the session counts as failed
PATIENCE = 300.0


def _server_cpu_seconds(url: str) -> float:
    """User + system CPU seconds so far of the ``kmeviz serve`` process(es) behind ``url``
    (all of them with ``--num-procs``), from /proc."""
    port = url.rstrip("/").rsplit(":", 1)[1]
    pids = subprocess.run(["pgrep", "-f", f"serve --port {port}"], capture_output=True,
                          text=True).stdout.split()
    total = 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def _number(locator, other_than=None, timeout=PATIENCE) -> str:
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
        await page.goto(url + "bootstrap", timeout=PATIENCE * 1000)
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


def measure(students: int = 30, server_args: tuple = ()):
    with running_server(args=server_args) as url:
        cpu_before = _server_cpu_seconds(url)
        results, wall = asyncio.run(_classroom(url, students))
        server_cpu = _server_cpu_seconds(url) - cpu_before
    ok = [r for r in results if r[0] == "ok"]
    failed = [r for r in results if r[0] != "ok"]
    loads = np.array([r[1] for r in ok])
    changes = np.array([r[2] for r in ok])
    nan = float("nan")
    return {"students": students, "server": " ".join(server_args) or "defaults",
            "failed": len(failed), "errors": [r[1] for r in failed],
            "all_loaded_s": float(loads.max()) if len(loads) else nan,
            "load_p50_s": float(np.median(loads)) if len(loads) else nan,
            "change_p50_s": float(np.median(changes)) if len(changes) else nan,
            "change_p95_s": float(np.percentile(changes, 95)) if len(changes) else nan,
            "server_cpu_per_student_s": server_cpu / students, "wall_s": wall}


def run(quick: bool = False, server_args: tuple = ()):
    r = measure(8 if quick else 30, server_args)
    print_table(f"Classroom: {r['students']} Chromium contexts open the Bootstrap explorer at "
                "once, then each makes one α step (2-core machine that also runs every "
                "student's Chromium renderer)",
                ["students", "kmeviz serve", "failed", "time to all loaded (s)",
                 "median load (s)", "α step p50 (s)", "α step p95 (s)",
                 "server CPU per student (s)"],
                [[r["students"], r["server"], r["failed"], r["all_loaded_s"], r["load_p50_s"],
                  r["change_p50_s"], r["change_p95_s"], r["server_cpu_per_student_s"]]])
    for error in r["errors"][:3]:
        print("failed session:", error)
    return r


if __name__ == "__main__":
    import sys

    run(server_args=tuple(sys.argv[1:]))
