"""A served dashboard is shared: one session's heavy computation must not freeze another."""

import os
import time

from playwright.sync_api import expect

from ..browser import running_server, server_pid
from .helpers import open_app, settled_number, widget

#: a heavy view is at work: Panel's loading indicator on a view whose callback runs, or the
#: error view's own note while its first part is computed in a background thread (which
#: of the two the page shows depends on which arrives first; CI saw only the note)
BUSY = ".pn-loading, .kmeviz-computing"


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
    grid passes the estimate (seconds of work) opens at once and runs in a server thread;
    while it runs, ``GET /`` and another session's α step answer within a second (one
    shared thread made that step wait for the whole heavy callback: 30 s measured)."""
    with running_server() as url:
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
        expect(hostile.locator(BUSY).first).to_be_attached(timeout=10_000)
        pid = server_pid(port)
        cpu_before, start = server_cpu_seconds(pid), time.monotonic()
        index = max(get_seconds(url) for _ in range(3))
        handle = widget(light, "α").locator(".noUi-handle")
        handle.focus()
        step_start = time.monotonic()
        handle.press("ArrowRight")
        settled_number(light.locator(".kmeviz-threshold"), other_than=threshold, timeout=60)
        step = time.monotonic() - step_start
        busy = (server_cpu_seconds(pid) - cpu_before) / (time.monotonic() - start)
        print(f"\nduring the hostile link: GET / {index:.2f} s, α step {step:.2f} s, "
              f"server CPU {busy:.0%} of a core")
        # the measurement is valid only while the heavy grid computes (a core busy)
        assert busy > 0.5, f"the heavy grid was not running during the measurement ({busy:.0%})"
        # the goal is < 1 s for both (measured 0.2-0.3 s and 0.4-0.7 s here); the bound
        # leaves room for a slower CI machine
        assert index < 1.0 and step < 2.0, (index, step)


def test_a_link_past_the_budget_stops_and_leaves_the_server_idle(browser):
    """A grid that passes the estimate but not a 1 s budget stops with the budget's
    message; the tab closed, the server is idle again."""
    with running_server(args=("--time-budget", "1")) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        hostile = browser.new_context().new_page()
        hostile.goto(url + HEAVY_LINK)
        expect(hostile.get_by_text("time budget of 1 s").first).to_be_visible(timeout=60_000)
        hostile.close()
        pid = server_pid(port)
        time.sleep(3)  # the budget
        before = server_cpu_seconds(pid)
        time.sleep(3)
        busy = (server_cpu_seconds(pid) - before) / 3
        print(f"server CPU after the tab closed: {busy:.0%} of a core")
        assert busy < 0.2


def test_every_log_line_of_a_sessions_work_names_its_session_and_page(browser):
    """Work that outlived its tab logged "(not served)", and no line said which session
    (every student shares /data): each line of a session's work names both."""
    import re

    from ..browser import SERVER_LOGS

    link = ("bootstrap?n=2000&n_resamples=5000&estimator=fastmmd&n_features=4096"
            "&features=fastfood")
    with running_server(args=("--time-budget", "1")) as url:
        page = browser.new_context().new_page()
        page.goto(url + link)
        expect(page.get_by_text("time budget of 1 s").first).to_be_visible(timeout=60_000)
        page.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
                "session closed" in line for line in SERVER_LOGS[url]):
            time.sleep(0.5)
        lines = list(SERVER_LOGS[url])
    opened = [line for line in lines if "session opened: BootstrapExplorer" in line]
    assert len(opened) == 1, lines
    session = re.search(r"\[(session \S+)\]", opened[0]).group(1)
    assert url + link.split("?")[0] in opened[0]
    over = [line for line in lines if "took longer than its time budget" in line]
    assert over and all(f"[{session}] at {url}bootstrap" in line for line in over), over
    assert any(f"session closed: {session}" in line for line in lines), lines
    assert not any("(not served)" in line for line in lines)
