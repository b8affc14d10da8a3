"""One way to run work in an explorer: a ``Job`` runs a function off the event loop, hands
each partial result to the page, and stops when a newer start or the page's close says so.

A job's work is ``work(emit)``: it returns a generator of partial results (each one is
shown), or calls ``emit(part)`` from inside a callback-style computation, or both. It runs
in a thread of its own, in a copy of the starter's context, under the explorer's time
budget and a cancel signal of its own (``kmeviz.budget`` keeps both in a ContextVar, so
they follow the work into ``asyncio.to_thread`` and the tile engine's checks). ``show(part,
error)`` runs on the page's event loop for the newest part (parts faster than the page
coalesce: cached parts cost one drawing), and once with the error that stopped the work;
a cancelled job, or one whose page closed, shows nothing more. Outside a server (a
notebook, a test) the work runs at once in the caller's thread and ``show`` follows each
part.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import threading
import time
from collections.abc import Callable

import holoviews as hv
import panel as pn

from kmeviz.budget import BudgetExceeded, Cancelled, time_budget

log = logging.getLogger("kmeviz.apps")


class Job:
    """One slot of background work of an explorer (a view's grid, a button's run): a new
    ``start`` cancels the running one. ``generation`` counts the starts."""

    def __init__(self, explorer):
        self.explorer = explorer
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None
        self.generation = 0

    def cancel(self) -> None:
        """Stop the running work, if any (its parts are no longer shown)."""
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()

    def start(self, work: Callable, show: Callable) -> None:
        """Run ``work(emit)`` off the event loop and ``show(part, None)`` each part on it
        (``show(None, error)`` if it fails)."""
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()
            cancel = self._cancel = threading.Event()
            self.generation += 1
            generation = self.generation
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:  # a notebook or a test: at once
            self._run(work, show, cancel)
            return

        def on_tick(args):
            if not cancel.is_set() and generation == self.generation:
                show(*args)

        handover = Handover(doc, on_tick)
        context = contextvars.copy_context()

        def run():
            self._run(work, handover.send, cancel)
            handover.flush(stopped=(cancel, self.explorer.closed))

        threading.Thread(target=context.run, args=(run,), daemon=True,
                         name="kmeviz-job").start()

    def _run(self, work: Callable, send: Callable, cancel: threading.Event) -> None:
        closed = self.explorer.closed

        def emit(part) -> None:
            if not (cancel.is_set() or closed.is_set()):
                send(part, None)

        try:
            with time_budget(self.explorer.budget_seconds, cancel=cancel):
                parts = work(emit)
                if inspect.isgenerator(parts):
                    for part in parts:
                        if cancel.is_set() or closed.is_set():
                            parts.close()
                            return
                        emit(part)
        except Cancelled:
            return
        except Exception as exc:  # noqa: BLE001 - shown by ``show``, never raised
            if not (isinstance(exc, BudgetExceeded) and closed.is_set()):
                send(None, exc)


class Handover:
    """Results of a background thread handed to a served page's event loop, the latest
    one only (parts faster than the page coalesce: cached parts cost one drawing).

    A result is handed over by the document's next-tick callback, Bokeh's thread-safe way
    into a session. Such a callback can still be lost while the page is being built: under
    a hold, Bokeh collects the callback's ``SessionCallbackAdded`` event in a list that
    Panel's ``unlocked`` copies and replaces on the event loop, so an event appended from
    this thread in between is never dispatched. The part then never showed, and every
    later one waited for the lost tick (seen in CI: "computing the first m values …"
    after 60 s). So a result not taken within ``RETRY_SECONDS`` is scheduled again, and
    the thread that computed the last part stays until it is taken (``flush``); a tick
    that finds nothing new does nothing.
    """

    RETRY_SECONDS = 1.0
    #: how long ``flush`` keeps offering the last result to a page that never takes it
    FLUSH_SECONDS = 60.0

    def __init__(self, doc, deliver: Callable):
        self.doc, self.deliver = doc, deliver
        self._lock = threading.Lock()
        self._latest = None
        self._scheduled_at: float | None = None  # when the pending tick was scheduled
        self.retries = 0

    def send(self, *args) -> None:
        """Hand ``args`` to ``deliver`` on the page's event loop (replacing any result
        not yet taken)."""
        with self._lock:
            self._latest = args
            self._schedule_if_due()

    def _schedule_if_due(self) -> None:  # under the lock
        now = time.monotonic()
        if self._scheduled_at is not None:
            if now - self._scheduled_at < self.RETRY_SECONDS:
                return  # the scheduled tick takes the newest result
            self.retries += 1
            log.info("a page's next-tick callback did not run within %.0f s; scheduled "
                     "again (retry %d)", self.RETRY_SECONDS, self.retries)
        self._scheduled_at = now
        try:
            self.doc.add_next_tick_callback(self._tick)
        except Exception:  # noqa: BLE001 - the page's document is gone: nobody to show
            self._latest = None

    def _tick(self) -> None:
        with self._lock:
            args, self._latest, self._scheduled_at = self._latest, None, None
        if args is not None:
            self.deliver(args)

    def flush(self, stopped=()) -> None:
        """Wait until the last result is taken, scheduling it again while it is not (up to
        ``FLUSH_SECONDS``, or until one of the ``stopped`` events is set)."""
        deadline = time.monotonic() + self.FLUSH_SECONDS
        while time.monotonic() < deadline and not any(e.is_set() for e in stopped):
            with self._lock:
                if self._latest is None:
                    return
                self._schedule_if_due()
            time.sleep(self.RETRY_SECONDS / 4)


class Feeds:
    """The streams of the plots that show a job's latest result, fed part by part.

    Panel builds a deferred view in its thread pool while the server delivers parts on its
    event loop, and two builds of one view can overlap. A plot's stream is made under a
    lock from the latest result, and every later result goes to every stream made since
    the last ``new`` one, so whichever build the page shows ends with the last part (a
    stream made between a delivery's read and its send had stayed at "11 of 12 parts")."""

    def __init__(self):
        self._lock = threading.Lock()
        self._latest = None
        self._pipes: list[hv.streams.Pipe] = []

    def publish(self, data, *, new: bool = False) -> None:
        """Send ``data`` to every plot; ``new``: it starts a new result, whose plots are
        about to be built anew (the streams of the old plots are dropped)."""
        with self._lock:
            self._latest = data
            if new:
                self._pipes = []
            pipes = list(self._pipes)
        for pipe in pipes:
            pipe.send(data)

    def pipe(self) -> hv.streams.Pipe:
        """A stream for a new plot, starting from the latest result."""
        with self._lock:
            pipe = hv.streams.Pipe(data=self._latest)
            self._pipes.append(pipe)
        return pipe
