"""Browser tests: Debian's Chromium driven by Playwright against ``kmeviz serve``."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# Titles of every Bokeh plot in the page (Bokeh draws them on a canvas, not in the DOM).
BOKEH_TITLES_JS = """() => {
  const out = [];
  for (const doc of Bokeh.documents)
    for (const m of doc.all_models)
      if (m.constructor.__name__ === 'Title' && m.text) out.push(m.text);
  return out;
}"""


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not os.path.exists(CHROMIUM):
        pytest.fail("Chromium not found: install Debian's chromium (apt-get install -y chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server_url():
    """``python -m kmeviz serve`` on a free loopback port, for the whole session."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kmeviz", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    printed = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        printed += line
        if re.search(rf"http://\S+:{port}/", line):
            break
        if proc.poll() is not None:
            pytest.fail(f"kmeviz serve exited early:\n{printed}")
    else:
        proc.kill()
        pytest.fail(f"kmeviz serve printed no URL within 60 s:\n{printed}")
    for _ in range(100):
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except OSError:
            time.sleep(0.2)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def bokeh_titles():
    return lambda page: page.evaluate(BOKEH_TITLES_JS)
