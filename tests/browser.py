"""Helpers to run ``kmeviz serve`` in a subprocess and drive it with headless Chromium.

Used by the browser tests, ``benchmarks/bench_apps.py`` and ``docs/screenshot.py``;
standard library only. (Test harness, so it lives in ``tests/``, not in the library.)
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

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


def server_pid(port: int) -> int:
    """The pid of the ``kmeviz serve`` process listening on ``port`` (from /proc, no tool
    needed)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"kmeviz_apps" in args and b"--port" in args and \
                args[args.index(b"--port") + 1] == str(port).encode():
            return int(cmdline.parent.name)
    raise RuntimeError(f"no kmeviz server on port {port}")


def free_port() -> int:
    """A TCP port that is free on the loopback interface right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: the last LOG_LINES lines each running server printed, by URL
SERVER_LOGS: dict[str, collections.deque] = {}
#: each running server's process (its group holds the --num-procs children)
SERVER_PROCESSES: dict[str, subprocess.Popen] = {}
LOG_LINES = 120


def _follow(stream, log: collections.deque) -> None:
    for line in stream:
        if "GET /static/" not in line:  # the page's scripts and styles: noise
            log.append(line.rstrip("\n"))


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:
        pass


@contextlib.contextmanager
def running_server(*, timeout: float = 60.0, args: tuple = (), command: tuple | None = None,
                   path: str = ""):
    """Start ``python -m kmeviz_apps serve [args]`` (or ``command``, e.g. ``panel serve``
    on an app file) on a free loopback port; yield its URL (``path`` appended).

    Waits until the command prints its URL and the page answers, and stops the
    server on exit. Raises RuntimeError (with the server's output) if it fails.
    """
    port = free_port()
    command = command or (sys.executable, "-m", "kmeviz_apps", "serve")
    proc = subprocess.Popen(
        [*command, "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: --num-procs forks children
    )
    url = f"http://127.0.0.1:{port}{path}/"
    try:
        printed, deadline = "", time.monotonic() + timeout
        while not re.search(rf"http://\S+:{port}/", printed):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"kmeviz serve did not start:\n{printed}")
            printed += proc.stdout.readline()
        while True:
            try:
                urllib.request.urlopen(url, timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} does not answer") from None
                time.sleep(0.2)
        # keep reading the server's log (a full pipe would block the server's writes); its
        # tail is shown with a failed browser test (tests/ui/conftest.py)
        log = SERVER_LOGS[url] = collections.deque(printed.splitlines(), maxlen=LOG_LINES)
        SERVER_PROCESSES[url] = proc
        threading.Thread(target=_follow, args=(proc.stdout, log), daemon=True).start()
        yield url
    finally:  # the server and the processes it forked (--num-procs), none left running
        SERVER_PROCESSES.pop(url, None)
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)


def wait_until_idle(url: str, *, busy_share: float = 0.15, window: float = 0.5,
                    timeout: float = 90.0) -> float:
    """Wait until the server at ``url`` uses less than ``busy_share`` of one core over
    ``window`` seconds; return the seconds waited. Raises AssertionError (naming the wait)
    when it is still busy after ``timeout``: work that outlived its page."""
    import psutil

    process = psutil.Process(SERVER_PROCESSES[url].pid)
    start = time.monotonic()
    while True:
        tree = [process, *process.children(recursive=True)]
        before = sum(sum(p.cpu_times()[:2]) for p in tree if p.is_running())
        time.sleep(window)
        after = sum(sum(p.cpu_times()[:2]) for p in tree if p.is_running())
        if after - before < busy_share * window:
            return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise AssertionError(f"the server at {url} was still busy {timeout:.0f} s after "
                                 "the previous test: work outlived its page")
