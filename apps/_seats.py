"""Seats: how many pages the server builds at once, and the queue of pages waiting.

Building a page (its widgets, then its first plot: 50–100 Bokeh models) is Python work
that holds the interpreter. A class opening one link together queued 100 builds on the
server's event loop at once, and an open page's α step waited behind all of them (44 s,
``docs/results/benchmarks_class.txt``). Pages are now built in build threads
(``_build``), and with seats at most ``size`` pages are built (and first drawn) at a
time: the next page request waits in a first-come queue of at most ``waiting`` pages
(the browser shows its own loading state meanwhile), and a request beyond that gets a
short "waiting for a seat" page that tries again by itself. Everything already open
shares the interpreter with at most ``size`` builds.

A page holds its seat from its request until its first views have been drawn (the
explorer calls :meth:`Seat.release` then), until its session ends, for at most
``hold_seconds`` (a heavy first view computes in a thread of its own; it need not keep
other pages waiting), or ``connect_seconds`` after its page was sent if its websocket has
not arrived by then (a bare request of the link: a link preview, ``curl``).
"""

from __future__ import annotations

import asyncio
import contextvars
import html
import logging
from collections import deque

import panel as pn

log = logging.getLogger("kmeviz.apps")

#: the seat of the page request being handled (set by the page handler, read by the
#: explorer built inside the same request)
CURRENT_SEAT: contextvars.ContextVar = contextvars.ContextVar("kmeviz_seat", default=None)


class Seat:
    """One page's right to be built now; :meth:`release` (thread-safe, idempotent) hands
    it to the next page in the queue."""

    def __init__(self, seats: Seats, loop: asyncio.AbstractEventLoop):
        self._seats, self._loop, self.released = seats, loop, False
        self.claimed = False  # an explorer took charge of releasing it
        self.connected = False  # the page's websocket arrived
        self.owner = "a page request"  # for the log: the session, once built
        self._timer = loop.call_later(seats.hold_seconds, self._time_up)

    def _time_up(self) -> None:
        if not self.released:
            log.info("seat of %s given to the next page after %.0f s: its first views "
                     "were not drawn yet", self.owner, self._seats.hold_seconds)
            self.release()

    def page_sent(self) -> None:
        """The page went out (on the event loop): its websocket has ``connect_seconds`` to
        arrive before the seat goes to the next page."""
        self._loop.call_later(self._seats.connect_seconds,
                              lambda: None if self.connected else self.release())

    def release(self) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not self._loop:
            self._loop.call_soon_threadsafe(self.release)
            return
        if not self.released:
            self.released = True
            self._timer.cancel()
            self._seats._hand_over()


class Seats:
    """At most ``size`` pages built at once; at most ``waiting`` pages wait for a seat."""

    def __init__(self, size: int = 2, waiting: int = 300, hold_seconds: float = 5.0,
                 connect_seconds: float = 2.0):
        if size < 1 or waiting < 0 or hold_seconds <= 0 or connect_seconds <= 0:
            raise ValueError(f"seats need size >= 1, waiting >= 0, hold_seconds > 0 and "
                             f"connect_seconds > 0, got {size}, {waiting}, {hold_seconds}, "
                             f"{connect_seconds}")
        self.size, self.waiting = size, waiting
        self.hold_seconds, self.connect_seconds = hold_seconds, connect_seconds
        self.taken = 0
        self._queue: deque[asyncio.Future] = deque()

    @property
    def queued(self) -> int:
        return len(self._queue)

    async def take(self) -> Seat | None:
        """A seat, after waiting for it in turn; None at once when the queue is full."""
        loop = asyncio.get_running_loop()
        if self.taken < self.size and not self._queue:
            self.taken += 1
            return Seat(self, loop)
        if len(self._queue) >= self.waiting:
            return None
        turn = loop.create_future()
        self._queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:  # the request went away while it waited
            if turn in self._queue:
                self._queue.remove(turn)
            elif not turn.cancelled():  # the seat was handed over just now: pass it on
                self._hand_over()
            raise
        return Seat(self, loop)

    def _hand_over(self) -> None:
        """A seat came free: the longest-waiting page takes it, or it stays free."""
        while self._queue:
            turn = self._queue.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.taken -= 1


def waiting_page(queued: int, retry_seconds: int = 5) -> str:
    """The page a request gets when every seat is taken and the queue is full."""
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<meta http-equiv='refresh' content='{int(retry_seconds)}'>"
            "<title>kmeviz · waiting for a seat</title></head>"
            "<body style='font-family: system-ui, sans-serif; margin: 3em'>"
            "<h1>Waiting for a seat</h1>"
            f"<p class='kmeviz-waiting'>The server is busy opening {html.escape(str(queued))} "
            "pages. This page tries again by itself in a few seconds.</p></body></html>")


def hold_seat(owner: str):
    """The seat of the page request building this page (``_seats``), or None. The explorer
    gives it up once the views of its first build are drawn (``Explorer.page_drawn``);
    ``onload`` tells the seat that the page's websocket arrived (``Seat.connected``)."""
    seat = CURRENT_SEAT.get()
    if seat is None:
        return None
    seat.claimed, seat.owner = True, owner

    def connected():
        seat.connected = True

    pn.state.onload(connected)
    return seat
