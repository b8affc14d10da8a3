"""An app file served the HoloViz way (``panel serve apps/<app>.py``) is the page that
``kmeviz serve`` serves: same layout, plots at full width; ``kmeviz serve --prefix``."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ..browser import running_server
from .helpers import TIMEOUT

APP = Path(__file__).resolve().parents[2] / "apps" / "bootstrap_explorer.py"
PLOT_WIDTHS_JS = """() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.classList && el.classList.contains('bk-Canvas')) {
        const box = el.getBoundingClientRect();
        if (box.height > 100) out.push(Math.round(box.width));
      }
    }
  };
  walk(document);
  return out.sort((a, b) => b - a);
}"""


def plot_widths(page, url: str, width: int) -> list[int]:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(url)
    expect(page.locator(".kmeviz-statistic")).to_be_visible(timeout=3 * TIMEOUT)
    page.wait_for_function(f"({PLOT_WIDTHS_JS})().length >= 1", timeout=TIMEOUT)
    page.wait_for_timeout(1000)  # the layout settles
    expect(page.get_by_text("Traceback")).to_have_count(0)
    return page.evaluate(PLOT_WIDTHS_JS)


def test_panel_serve_on_an_app_file_draws_the_kmeviz_serve_page_at_full_width(page):
    """The plots stretch with the page (a notebook's fixed plots are 460 px): wider at a
    1600 px window than at 1200 px, and the same widths as under ``kmeviz serve``."""
    with running_server(command=(sys.executable, "-m", "panel", "serve", str(APP)),
                        args=("--address", "127.0.0.1"), path="/bootstrap_explorer") as url:
        url = url.rstrip("/")  # a page URL: its resources are relative to it
        wide, narrow = plot_widths(page, url, 1600), plot_widths(page, url, 1200)
    with running_server() as url:
        served_all = plot_widths(page, url + "bootstrap", 1600)
    assert wide[0] > 600 and wide[0] - narrow[0] > 200, (wide, narrow)
    assert len(wide) == len(served_all)
    assert all(abs(a - b) <= 4 for a, b in zip(wide, served_all, strict=True)), (
        wide, served_all)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, ""


@pytest.mark.parametrize("prefix", ["/kme"])
def test_kmeviz_serve_under_a_prefix(prefix):
    with running_server(args=("--prefix", prefix), path=prefix) as url:
        status, index = get(url)
        assert status == 200 and "<title>kmeviz</title>" in index
        status, app = get(url + "bootstrap")
        assert status == 200 and "Bootstrap null explorer" in app
        root = url.replace(prefix + "/", "/")
        assert get(root + "bootstrap")[0] == 404  # nothing outside the prefix


def test_kmeviz_serve_with_basic_auth_asks_for_the_password():
    with running_server(args=("--basic-auth", "classroom-pass", "--cookie-secret", "s3cret")
                        ) as url:
        status, page = get(url + "bootstrap")
        assert status == 200 and "password" in page.lower()  # the login form, not the app
        assert "Bootstrap null explorer" not in page


def test_kmeviz_serve_with_admin_warm_and_reused_sessions():
    """Panel's own options pass through: the admin page answers, a warmed server with
    session reuse serves the apps."""
    with running_server(args=("--admin", "--warm", "--reuse-sessions")) as url:
        assert get(url + "admin")[0] == 200
        status, app = get(url + "bootstrap")
        assert status == 200 and "Bootstrap null explorer" in app
