"""A served dashboard is shared: one session's heavy computation must not freeze another."""

import os
import time

from playwright.sync_api import expect

from ..browser import running_server, server_pid
from .helpers import open_app, settled_number, widget


def alpha_step_seconds_during_heavy_work(browser, server_args=()) -> float:
    # A server of its own, so the heavy computation dies with it and slows no other test.
    with running_server(args=server_args) as url:
        light = browser.new_context().new_page()
        open_app(light, url, "Bootstrap null explorer", ".kmeviz-threshold")
        threshold = settled_number(light.locator(".kmeviz-threshold"))

        heavy = browser.new_context().new_page()
        open_app(heavy, url, "Nyström error vs m", ".kmeviz-mview")
        size = widget(heavy, "sample size").locator("input")
        size.fill("20000")  # the largest n and m the widgets allow: a grid of seconds
        size.press("Enter")
        largest = widget(heavy, "largest m").locator("input")
        largest.fill("2000")
        largest.press("Enter")
        # the heavy views show the loading indicator while their callback runs
        expect(heavy.locator(".pn-loading").first).to_be_attached(timeout=10_000)
        time.sleep(0.5)  # the heavy callback is running now (it takes tens of seconds)

        handle = widget(light, "α").locator(".noUi-handle")
        handle.focus()
        start = time.monotonic()
        handle.press("ArrowRight")
        settled_number(light.locator(".kmeviz-threshold"), other_than=threshold, timeout=60)
        return time.monotonic() - start


def test_a_heavy_session_does_not_block_another_sessions_alpha_step(browser):
    elapsed = alpha_step_seconds_during_heavy_work(browser)
    print(f"\nα step during the heavy session: {elapsed:.2f} s")
    # One shared thread made this step wait for the whole heavy callback (30 s measured,
    # and `--num-threads 1` still does); with the thread pool it takes a fraction of a
    # second. Generous bound for a slow CI machine.
    assert elapsed < 3.0, f"the α step took {elapsed:.1f} s while another session computed"


#: the heaviest Nyström link the widgets allow: its grid is refused at once, by estimate
HOSTILE_LINK = ("nystrom?n=20000&m_max=2000&n_repeats=10&d=20"
                "&baselines=%5B%22uniform%22,%22herding%22,%22rff%22%5D")
#: a grid the estimate lets through (about 4 s of work), past a 1 s time budget
HEAVY_LINK = "nystrom?n=20000&m_max=2000&n_repeats=3&d=5"


def get_seconds(url: str) -> float:
    import urllib.request

    start = time.monotonic()
    with urllib.request.urlopen(url, timeout=30) as reply:
        reply.read()
    return time.monotonic() - start


def server_cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_one_hostile_link_freezes_nothing(browser):
    """The heaviest Nyström link the widgets allow (n = 20000, m up to 2000, 10 repeats,
    d = 20, every baseline) is answered at once with the repeats that fit. A link whose
    grid passes the estimate but not a 1 s budget opens at once, runs in a server thread
    under the time budget, and meanwhile ``GET /`` and another session's α step answer
    within a second; the tab closed, the server is idle again within the budget."""
    with running_server(args=("--time-budget", "1")) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        refused = browser.new_context().new_page()
        refused.goto(url + HOSTILE_LINK)
        expect(refused.get_by_text("would take about").first).to_be_visible(timeout=30_000)
        refused.close()
        light = browser.new_context().new_page()
        open_app(light, url, "Bootstrap null explorer", ".kmeviz-threshold")
        threshold = settled_number(light.locator(".kmeviz-threshold"))

        assert get_seconds(url + HEAVY_LINK) < 2.0  # the page itself (its work is deferred)
        hostile = browser.new_context().new_page()
        hostile.goto(url + HEAVY_LINK)
        expect(hostile.locator(".pn-loading").first).to_be_attached(timeout=10_000)
        time.sleep(1.0)  # the heavy computation is running now
        index = max(get_seconds(url) for _ in range(3))
        handle = widget(light, "α").locator(".noUi-handle")
        handle.focus()
        start = time.monotonic()
        handle.press("ArrowRight")
        settled_number(light.locator(".kmeviz-threshold"), other_than=threshold, timeout=60)
        step = time.monotonic() - start
        print(f"\nduring the hostile link: GET / {index:.2f} s, α step {step:.2f} s")
        # the goal is < 1 s for both (measured 0.2-0.3 s and 0.4-0.7 s here); the bound
        # leaves room for a slower CI machine
        assert index < 1.0 and step < 2.0, (index, step)
        # the hostile tab sees the budget's message, then closes: the server goes idle
        expect(hostile.get_by_text("time budget of 1 s").first).to_be_visible(timeout=60_000)
        hostile.close()
        pid = server_pid(port)
        time.sleep(3)  # the budget
        before = server_cpu_seconds(pid)
        time.sleep(3)
        busy = (server_cpu_seconds(pid) - before) / 3
        print(f"server CPU after the tab closed: {busy:.0%} of a core")
        assert busy < 0.2
