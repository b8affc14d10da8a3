"""Seats (``apps/_seats.py``) in a served explorer: a few pages are built at once, the rest
wait their turn, a full queue gets the "waiting for a seat" page, and the index never
waits."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from playwright.sync_api import expect

from ..browser import SERVER_LOGS, running_server
from .helpers import TIMEOUT


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_a_full_queue_gets_the_waiting_page_and_the_seat_comes_back():
    """One seat, no queue: a bare request of a link (no websocket follows) holds the seat
    for the 2 s a browser has to connect; meanwhile the next page request gets 503 with the
    "waiting for a seat" page (which retries by itself), the index answers at once, and
    after the wait the seat is free again."""
    with running_server(args=("--seats", "1", "--max-waiting", "0")) as url:
        assert get(url + "bootstrap")[0] == 200
        status, body = get(url + "stein")
        assert status == 503 and "Waiting for a seat" in body and "refresh" in body
        assert "Traceback" not in body
        start = time.monotonic()
        assert get(url)[0] == 200 and time.monotonic() - start < 2.0  # the index never waits
        time.sleep(2.5)
        assert get(url + "stein")[0] == 200


def test_pages_opened_together_are_built_in_turn_and_each_shows_its_plot(browser):
    """One seat and five pages opened in the same second: each waits its turn (its request
    is held, nothing fails), each gets its summary and first plot, no session is built
    twice, and each seat comes back when its page's first views are drawn (none is taken
    back by the 5 s limit, and the five pages need less than the 5 × 5 s that limit
    alone would take)."""
    with running_server(args=("--seats", "1")) as url:
        pages = [browser.new_context().new_page() for _ in range(5)]
        start = time.monotonic()
        for page in pages:
            page.goto(url + "bootstrap", wait_until="commit")
        for page in pages:
            expect(page.locator(".kmeviz-threshold")).to_be_attached(timeout=TIMEOUT)
            expect(page.locator(".bk-Canvas, canvas").first).to_be_attached(timeout=TIMEOUT)
        assert time.monotonic() - start < 25.0
        log = "\n".join(SERVER_LOGS[url])
        assert log.count("session opened: BootstrapExplorer") == 5  # none built twice
        assert "given to the next page" not in log
        for page in pages:
            page.context.close()
