"""Browser tests: Debian's Chromium driven by Playwright against ``kmeviz serve``."""

from __future__ import annotations

import os

import pytest

from ..browser import CHROMIUM, CHROMIUM_ARGS, SERVER_LOGS, running_server, wait_until_idle

# Titles of every Bokeh plot in the page (Bokeh draws them on a canvas, not in the DOM).
BOKEH_TITLES_JS = """() => {
  const out = [];
  for (const doc of Bokeh.documents)
    for (const m of doc.all_models)
      if (m.constructor.__name__ === 'Title' && m.text) out.push(m.text);
  return out;
}"""


#: The one line a user without Chromium sees (as the failure of test_chromium_is_installed).
MISSING = (f"Chromium not found at {CHROMIUM}: the browser tests need it; install it with "
           "`apt-get update && apt-get install -y chromium` (Debian/Ubuntu, as root)")


def chromium_installed() -> bool:
    return os.access(CHROMIUM, os.X_OK)


def pytest_collection_modifyitems(items):
    """Mark the browser tests ``ui``; without Chromium, skip all but the one that says so."""
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)
            if not chromium_installed() and item.name != "test_chromium_is_installed":
                item.add_marker(pytest.mark.skip(reason="Chromium is missing (see the failure "
                                                        "of test_chromium_is_installed)"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test shows the tail of every kmeviz server's log (CI keeps no
    other trace of what the server did)."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
        for url, log in list(SERVER_LOGS.items()):
            report.sections.append((f"kmeviz server log {url} (last {len(log)} lines)",
                                    "\n".join(log)))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def shared_server():
    """``python -m kmeviz_apps serve`` on a free loopback port, for the whole session."""
    with running_server() as url:
        yield url


@pytest.fixture
def server_url(shared_server, request):
    """The shared server's URL once it is idle: a test starts on a quiet server whatever
    the one before it left running (a wait longer than 90 s fails, naming the leftover
    work); a wait over 2 s is printed, so CI's log shows which test left work behind."""
    waited = wait_until_idle(shared_server)
    if waited > 2:
        print(f"\n[{request.node.name}] waited {waited:.1f} s for the shared server to idle")
    return shared_server


@pytest.fixture
def bokeh_titles():
    return lambda page: page.evaluate(BOKEH_TITLES_JS)
