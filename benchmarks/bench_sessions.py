"""Server CPU per opened session, for every explorer (issue 29, point 3).

One ``kmeviz serve`` process; for each explorer, Chromium opens the page once (the first
session, which also fills the shared caches), then ``sessions`` more times, each in a new
browser context, one after the other. A session counts as open when its page shows no
loading spinner for ``QUIET`` seconds and has drawn its plots. The server's CPU seconds
(user + system, from /proc) are read around each batch, so the cost of the browser is not
counted. Capacity is 60 s divided by the CPU of an opened session: sessions per core per
minute.

``python -m benchmarks.bench_sessions [--sessions N] [--before REV] [--rounds R] [serve
arguments]``; needs Debian's chromium. With ``--before REV`` a second server runs the
code of git revision REV (a worktree, put first on its PYTHONPATH) beside this one, and
each explorer is measured on both, alternately, ``rounds`` times: before and after in one
run, on the same machine state.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import tempfile
import time
from pathlib import Path

from kmeviz_apps import EXPLORERS

from tests.browser import CHROMIUM, CHROMIUM_ARGS, running_server

from ._util import print_table
from .bench_classroom import _server_cpu_seconds

#: a page is open when no spinner has been shown for this long
QUIET = 1.0
#: what a page must show before it can count as open
DRAWN = ".kmeviz-summary, .kmeviz-error"


def _open(browser, url: str, timeout: float = 120.0) -> float:
    """Open ``url`` in a new context and wait until it is drawn and quiet; its seconds."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    t0 = time.monotonic()
    page.goto(url, timeout=timeout * 1000)
    page.locator(DRAWN).first.wait_for(timeout=timeout * 1000)
    quiet_since, deadline = time.monotonic(), time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.locator(".pn-loading").count():
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= QUIET and page.locator(".bk-Canvas").count():
            break
        time.sleep(0.05)
    seconds = time.monotonic() - t0 - QUIET
    context.close()
    return seconds


def measure(sessions: int = 5, server_args: tuple = ()) -> list[list]:
    from playwright.sync_api import sync_playwright

    rows = []
    with running_server(args=server_args) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for slug in EXPLORERS:
            cpu0 = _server_cpu_seconds(url)
            first_open = _open(browser, url + slug)
            cpu1 = _server_cpu_seconds(url)
            opens = [_open(browser, url + slug) for _ in range(sessions)]
            cpu2 = _server_cpu_seconds(url)
            per_session = (cpu2 - cpu1) / sessions
            rows.append([slug, cpu1 - cpu0, per_session, 60.0 / max(per_session, 1e-9),
                         first_open, sorted(opens)[len(opens) // 2]])
        browser.close()
    return rows


def _per_session(browser, url: str, slug: str, sessions: int) -> float:
    """Server CPU seconds per opened session of ``slug`` (after one warm-up open)."""
    _open(browser, url + slug)
    cpu1 = _server_cpu_seconds(url)
    for _ in range(sessions):
        _open(browser, url + slug)
    return (_server_cpu_seconds(url) - cpu1) / sessions


@contextlib.contextmanager
def _revision_path(revision: str):
    """A PYTHONPATH on which ``kmeviz`` and ``kmeviz_apps`` are revision ``revision``'s."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", str(tree),
                        revision], check=True, capture_output=True)
        try:
            (Path(tmp) / "kmeviz_apps").symlink_to(tree / "apps")
            yield os.pathsep.join([str(tree), tmp])
        finally:
            subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force",
                            str(tree)], check=False, capture_output=True)


def before_after(revision: str, sessions: int = 4, rounds: int = 3,
                 server_args: tuple = ()) -> list[list]:
    """Per explorer: CPU per later session of revision ``revision`` and of this tree,
    measured alternately ``rounds`` times (the medians and the after/before ratio)."""
    from playwright.sync_api import sync_playwright

    rows = []
    with contextlib.ExitStack() as stack:
        path = stack.enter_context(_revision_path(revision))
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = path if old is None else os.pathsep.join([path, old])
        try:  # the revision's server reads the PYTHONPATH at its start only
            before_url = stack.enter_context(running_server(args=server_args))
        finally:
            if old is None:
                os.environ.pop("PYTHONPATH")
            else:
                os.environ["PYTHONPATH"] = old
        url = stack.enter_context(running_server(args=server_args))
        p = stack.enter_context(sync_playwright())
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for slug in EXPLORERS:
            before, after = [], []
            for _ in range(rounds):
                before.append(_per_session(browser, before_url, slug, sessions))
                after.append(_per_session(browser, url, slug, sessions))
            b, a = sorted(before)[rounds // 2], sorted(after)[rounds // 2]
            rows.append([slug, b, a, a / b, max(after)])
        browser.close()
    return rows


def run(quick: bool = False, server_args: tuple = ()):
    rows = measure(2 if quick else 5, server_args)
    print_table("Server CPU per opened session (Chromium; target ≤ 0.4 s per session after "
                "the first; capacity = sessions per core per minute)",
                ["explorer", "first session CPU (s)", "CPU per later session (s)",
                 "sessions / core / min", "first open (s)", "later open p50 (s)"], rows)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_sessions")
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--before", help="a git revision to measure beside this tree")
    parser.add_argument("--rounds", type=int, default=3)
    args, serve_args = parser.parse_known_args()
    if args.before:
        rows = before_after(args.before, args.sessions, args.rounds, tuple(serve_args))
        print_table(f"Server CPU per opened session (Chromium, {args.sessions} sessions a "
                    f"round, median of {args.rounds} alternating rounds): {args.before} "
                    "against this tree, in one run",
                    ["explorer", "before (s)", "after (s)", "after / before",
                     "after, worst round (s)"], rows)
        raise SystemExit(0)
    rows = measure(args.sessions, tuple(serve_args))
    print_table("Server CPU per opened session", ["explorer", "first session CPU (s)",
                "CPU per later session (s)", "sessions / core / min", "first open (s)",
                "later open p50 (s)"], rows)
