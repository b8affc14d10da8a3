"""Take the README screenshots: ``python docs/screenshot.py [slug ...]`` (needs chromium).

Starts ``kmeviz serve`` on a free loopback port, opens each app in headless
Chromium and writes docs/<slug>_explorer.png.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's tests/
from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server  # noqa: E402


def main(slugs) -> None:
    with running_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        height = int(os.environ.get("KMEVIZ_SHOT_HEIGHT", "1100"))  # a long page: taller
        page = browser.new_page(viewport={"width": 1500, "height": height})
        for slug in slugs:
            page.goto(url + slug)
            time.sleep(12)  # let every plot render
            out = Path(__file__).parent / f"{slug or 'index'}_explorer.png"
            page.screenshot(path=str(out), full_page=True)
            print("wrote", out)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:] or ["circular"])
