"""A class opening the dashboards at once: N bounded local clients open the Bootstrap
explorer on one `kmeviz serve` (two cores here), while an already open session moves its
α slider every second. Prints, for N = 30, 60, 100 (a fresh server each): the first-plot
times (p50, p90, max: page request to the first plot's arrival), the server's CPU
seconds per session and its peak RSS, the α-step latency in the open session during the
load (median and max), and the sessions built twice (the server log's "session opened"
lines beyond one per page).

A client is what a browser does over the wire, without drawing: GET the page, open its
websocket with the page's token, pull the document, send ``document_ready`` (which
starts the page's deferred views), and wait for the first PATCH-DOC that holds a
figure. Run ``python -m benchmarks.bench_class [N ...] [kmeviz serve options]``, e.g.
``python -m benchmarks.bench_class 30 100 --seats=1``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

SLUG = "bootstrap"
TIMEOUT = 600.0
READY = {"kind": "MessageSent", "msg_type": "bokeh_event",
         "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}}}


async def read_message(socket) -> tuple[dict, str]:
    """One Bokeh protocol message: (header, content text); buffers (each a text frame
    naming it and a binary frame) are skipped."""
    header = json.loads(await socket.read_message())
    await socket.read_message()  # metadata
    content = await socket.read_message()
    for _ in range(2 * header.get("num_buffers", 0)):
        await socket.read_message()
    return header, content


async def send(socket, msgtype: str, content: dict, msgid: str) -> None:
    for fragment in ({"msgid": msgid, "msgtype": msgtype}, {}, content):
        await socket.write_message(json.dumps(fragment))


async def open_page(url: str):
    """(websocket, document JSON) of a new page of the explorer, ready."""
    page = await AsyncHTTPClient().fetch(url + SLUG, request_timeout=TIMEOUT)
    token = re.search(r'"token":\s*"([^"]+)"', page.body.decode()).group(1)
    origin = url.rstrip("/")
    request = HTTPRequest(origin.replace("http", "ws", 1) + f"/{SLUG}/ws",
                          headers={"Origin": origin}, request_timeout=TIMEOUT)
    socket = await websocket_connect(request, subprotocols=["bokeh", token])
    await read_message(socket)  # ACK
    await send(socket, "PULL-DOC-REQ", {}, "pull")
    _, document = await read_message(socket)
    await send(socket, "PATCH-DOC", {"events": [READY]}, "ready")
    return socket, document


async def first_plot_seconds(url: str, start: float) -> float:
    socket, _ = await open_page(url)
    try:
        while True:
            header, content = await read_message(socket)
            if header["msgtype"] == "PATCH-DOC" and '"name":"Figure"' in content:
                return time.monotonic() - start
    finally:
        socket.close()


def slider_id(document: str, title: str) -> str:
    """The id of the slider titled ``title`` in a pulled document."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("name") == "Slider" and node.get("attributes", {}).get("title") == title:
                found.append(node["id"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(document))
    return found[0]


async def alpha_steps(url: str, stop: asyncio.Event, latencies: list) -> None:
    """Move the α slider of an open session every second until ``stop``; record the time
    to the server's first answer (the redrawn threshold) after each move."""
    socket, document = await open_page(url)
    alpha = slider_id(document, "α")
    await asyncio.sleep(3.0)  # the page's own first views
    while True:  # drain what the page's start sent
        try:
            await asyncio.wait_for(read_message(socket), 0.5)
        except TimeoutError:
            break
    value = 0.05
    while not stop.is_set():
        value = 0.06 if value == 0.05 else 0.05
        events = [{"kind": "ModelChanged", "model": {"id": alpha}, "attr": attr, "new": value}
                  for attr in ("value", "value_throttled")]  # what a key press sends
        moved = time.monotonic()
        await send(socket, "PATCH-DOC", {"events": events}, f"alpha{len(latencies)}")
        while True:  # the summary with its new threshold
            header, content = await asyncio.wait_for(read_message(socket), TIMEOUT)
            if header["msgtype"] == "PATCH-DOC" and "kmeviz-threshold" in content:
                latencies.append(time.monotonic() - moved)
                break
        await asyncio.sleep(1.0)
    socket.close()


def process_stats(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS in MB) of a process."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = int(open(f"/proc/{pid}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return cpu, rss / 1024**2


async def run_class(url: str, pid: int, n: int) -> dict:
    AsyncHTTPClient.configure(None, max_clients=4 * n)
    stop, latencies, peak = asyncio.Event(), [], [0.0]
    stepping = asyncio.create_task(alpha_steps(url, stop, latencies))
    await asyncio.sleep(5.0)
    cpu_before, _ = process_stats(pid)
    start = time.monotonic()

    async def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], process_stats(pid)[1])
            await asyncio.sleep(0.5)

    sampler = asyncio.create_task(sample())
    steps_before = len(latencies)
    times = await asyncio.gather(*(first_plot_seconds(url, start) for _ in range(n)),
                                 return_exceptions=True)
    during = latencies[steps_before:]
    cpu_after, _ = process_stats(pid)
    stop.set()
    await asyncio.gather(stepping, sampler, return_exceptions=True)
    done = sorted(t for t in times if isinstance(t, float))
    return {"sessions": n, "failed": n - len(done),
            "p50": statistics.median(done) if done else float("nan"),
            "p90": done[int(0.9 * (len(done) - 1))] if done else float("nan"),
            "max": done[-1] if done else float("nan"),
            "cpu_per_session": (cpu_after - cpu_before) / n, "rss_peak_mb": peak[0],
            "alpha_median": statistics.median(during) if during else float("nan"),
            "alpha_max": max(during) if during else float("nan")}


def serve(log, options=()) -> tuple[subprocess.Popen, str]:
    """A fresh ``kmeviz serve`` on a free port with ``options``, its log to ``log``."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "kmeviz_apps", "serve", "--port",
                                str(port), *options], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    import urllib.request

    for _ in range(120):
        try:
            urllib.request.urlopen(url, timeout=5)
            return process, url
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("kmeviz serve did not start")


def main(sizes=(30, 60, 100), options=()) -> None:
    print("sessions  failed  first plot p50 / p90 / max (s)  CPU s/session  RSS peak MB  "
          "α step median / max (s)  built twice")
    for n in sizes:
        with tempfile.TemporaryFile("w+") as log:
            process, url = serve(log, options)
            try:
                row = asyncio.run(run_class(url, process.pid, n))
            finally:
                process.terminate()
                process.wait(timeout=30)
            log.seek(0)
            opened = sum("session opened: BootstrapExplorer" in line for line in log)
        twice = opened - (n + 1)  # n clients and the open session
        print(f"{n:8d}  {row['failed']:6d}  {row['p50']:6.1f} / {row['p90']:5.1f} / "
              f"{row['max']:5.1f}        {row['cpu_per_session']:6.2f}        "
              f"{row['rss_peak_mb']:7.0f}      {row['alpha_median']:5.2f} / "
              f"{row['alpha_max']:5.2f}            {twice}", flush=True)


if __name__ == "__main__":
    sizes = tuple(int(a) for a in sys.argv[1:] if a.isdigit())
    main(sizes or (30, 60, 100), [a for a in sys.argv[1:] if not a.isdigit()])
