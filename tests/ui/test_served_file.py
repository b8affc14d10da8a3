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


def logged_in(url: str, user: str, password: str):
    """(urllib opener, Cookie header) of ``user`` logged in by Panel's basic-auth form."""
    import http.cookiejar
    import urllib.parse

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = urllib.parse.urlencode({"username": user, "password": password}).encode()
    opener.open(url + "login", data=form, timeout=30).read()
    return opener, "; ".join(f"{c.name}={c.value}" for c in jar)


def status_of(opener, url: str) -> int:
    try:
        return opener.open(url, timeout=60).status
    except urllib.error.HTTPError as error:
        return error.code


def websocket_status(url: str, path: str, cookie: str) -> int:
    """The HTTP status of a websocket upgrade of ``path`` with these login cookies."""
    import base64
    import os
    import socket
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: {url.rstrip('/')}\r\n"
               f"Cookie: {cookie}\r\n\r\n")
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(request.encode())
        return int(sock.recv(4096).split(b"\r\n", 1)[0].split()[1])


def test_the_admin_page_is_the_admin_users_alone(tmp_path):
    """With --basic-auth, every holder of a password reached /admin (issue 45, finding
    13): now only --admin-user does, page and websocket; a student's pages work."""
    import json

    users = tmp_path / "users.json"
    users.write_text(json.dumps({"student": "pupil-pw", "lecturer": "lecturer-pw"}))
    with running_server(args=("--basic-auth", str(users), "--cookie-secret", "s3cret",
                              "--admin", "--admin-user", "lecturer")) as url:
        student, student_cookie = logged_in(url, "student", "pupil-pw")
        assert status_of(student, url + "bootstrap") == 200
        assert status_of(student, url + "admin") == 403
        assert websocket_status(url, "/admin/ws", student_cookie) == 403
        assert websocket_status(url, "/bootstrap/ws", student_cookie) == 101
        lecturer, lecturer_cookie = logged_in(url, "lecturer", "lecturer-pw")
        assert status_of(lecturer, url + "admin") == 200
        assert websocket_status(url, "/admin/ws", lecturer_cookie) == 101


@pytest.mark.parametrize("args, message", [
    (["--admin", "--basic-auth", "shared-pw"], "needs --admin-user NAME"),
    (["--admin", "--address", "0.0.0.0"], "needs --basic-auth FILE and --admin-user"),
    (["--admin-user", "lecturer"], "--admin-user needs --admin"),
    (["--admin", "--basic-auth", "shared-pw", "--admin-user", "lecturer"],
     "is not a user of a --basic-auth FILE"),
])
def test_an_admin_page_without_its_own_credential_is_refused(args, message, capsys):
    from kmeviz_apps.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["serve", *args])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
