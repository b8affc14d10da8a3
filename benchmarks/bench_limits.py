"""Worst cases a link can ask for: every explorer opened with its parameters at their
bounds (through the URL), the server's resident memory measured. ``python -m
benchmarks.bench_limits`` (needs Chromium and Playwright, as the browser tests).

Each worst case is opened in its own tab of a fresh browser; the server's peak resident
memory (VmHWM) and the time until the page shows its summary or its budget message are
printed per explorer. The goal: under 1.5 GB whatever a link asks.

``--rounds R`` opens the whole list R times (issue 45, finding 10: memory after heavy
sessions) and prints, after each round with every tab closed and 5 s to settle, the
server's resident memory: bounded by design if it stays level from round to round
(freed arrays are reused by the next session, and no input can make one larger).

``--fresh``: each worst case on a fresh server, its own peak (issue 61's goal: at most
600 MB for any single page). ``--uploads [--before REV]``: hostile uploads instead,
before and after in one run (``--cases 1,3``: those only)
(``benchmarks/bench_uploads.py``).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server, server_pid  # noqa: E402

#: (slug, the link at the parameters' bounds: the heaviest values each widget allows)
WORST = [*{
    "circular": "n=3000&n_frequencies=8192&epsilon=6&seed=2147483647",
    "bootstrap": "n=2000&n_resamples=5000&estimator=unbiased&null=spectral&n_features=4096",
    "nystrom": ("n=20000&m_max=5000&n_repeats=20&d=20&n_centres=16"
                "&baselines=%5B%22uniform%22,%22herding%22,%22rff%22%5D"),
    "spectrum": "n=3000&d=50&m=3000",
    "cme": "n=1000&gamma=0.0&log10_reg=-6",
    "stein": "n=5000&n_landmarks=2000&n_resamples=5000&dimension=2",
    "data": "source=Blob+grid+%28FastMMD+Fig.+4%29&n=5000&epsilon=6&bandwidth_log10=-2",
}.items(), ("bootstrap", "n=2000&n_resamples=5000&estimator=fastmmd&n_features=4096"
                          "&features=fastfood"),
    # issue 61, finding 5: the two links that held 1.5 and 1.0 GB
    ("stein", "n=5000&dimension=2&target=Gaussian+mixture&n_landmarks=2000"
              "&n_resamples=5000"),
    ("data", "source=Blob+grid+%28FastMMD+Fig.+4%29&n=5000&question=independence")]


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def main(rounds: int = 1) -> None:
    from playwright.sync_api import sync_playwright

    with running_server(args=("--time-budget", "20")) as url, sync_playwright() as p:
        pid = server_pid(int(url.rsplit(":", 1)[1].strip("/")))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        print(f"server RSS at the start: {rss_mb(pid):.0f} MB")
        for round_ in range(1, rounds + 1):
            open_worst_cases(browser, url, pid)
            time.sleep(5.0)  # every tab closed: the sessions end, their arrays are freed
            print(f"after round {round_} of {rounds}, every tab closed: server RSS "
                  f"{rss_mb(pid):.0f} MB, peak so far {peak_rss_mb(pid):.0f} MB", flush=True)
        browser.close()


def open_worst_cases(browser, url: str, pid: int) -> None:
    print("| explorer | worst-case link | seconds to answer | server RSS after (MB) "
          "| server peak RSS so far (MB) |\n|---|---|---|---|---|")
    for slug, query in WORST:
        page = browser.new_page()
        start = time.monotonic()
        page.goto(f"{url}{slug}?{query}")
        page.locator(".kmeviz-summary, .kmeviz-error").first.wait_for(timeout=120_000)
        page.wait_for_timeout(2000)
        seconds = time.monotonic() - start
        print(f"| {slug} | `{query}` | {seconds:.1f} | {rss_mb(pid):.0f} "
              f"| {peak_rss_mb(pid):.0f} |", flush=True)
        page.close()


def fresh_main() -> None:
    """Each worst case on a fresh server (issue 61's goal: a single page's peak)."""
    from playwright.sync_api import sync_playwright

    print("| explorer | worst-case link | seconds to answer | server RSS at start (MB) "
          "| peak RSS (MB) |\n|---|---|---|---|---|")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for slug, query in WORST:
            with running_server(args=("--time-budget", "20")) as url:
                pid = server_pid(int(url.rsplit(":", 1)[1].strip("/")))
                start_rss = rss_mb(pid)
                page = browser.new_page()
                start = time.monotonic()
                page.goto(f"{url}{slug}?{query}")
                page.locator(".kmeviz-summary, .kmeviz-error").first.wait_for(
                    timeout=120_000)
                page.wait_for_timeout(20_000)  # every view and tab's first work
                seconds = time.monotonic() - start
                print(f"| {slug} | `{query}` | {seconds:.1f} | {start_rss:.0f} "
                      f"| {peak_rss_mb(pid):.0f} |", flush=True)
                page.close()
        browser.close()


if __name__ == "__main__":
    if "--fresh" in sys.argv:
        fresh_main()
    elif "--uploads" in sys.argv:  # issue 61: hostile uploads, before and after
        from benchmarks import bench_uploads

        bench_uploads.main(sys.argv[sys.argv.index("--before") + 1]
                           if "--before" in sys.argv else bench_uploads.BEFORE,
                           [int(k) for k in sys.argv[sys.argv.index("--cases") + 1].split(",")]
                           if "--cases" in sys.argv else None)
    else:
        main(int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 1)
