"""Take the README screenshots: ``python docs/screenshot.py`` (needs Debian's chromium).

Starts ``kmeviz serve`` on a free loopback port, opens each app in headless
Chromium and writes docs/<slug>.png.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(slugs) -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "kmeviz", "serve", "--port", str(port)])
    try:
        time.sleep(4)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 1100})
            for slug in slugs:
                page.goto(f"http://127.0.0.1:{port}/{slug}")
                time.sleep(12)
                out = Path(__file__).parent / f"{slug or 'index'}_explorer.png"
                page.screenshot(path=str(out), full_page=True)
                print("wrote", out)
            browser.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main(sys.argv[1:] or ["circular"])
