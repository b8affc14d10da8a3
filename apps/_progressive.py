"""Views that draw their first part at once and fill in: a computation split into parts
runs part after part in a background thread, and each finished part is shown.

A served page hands every result to its document's next tick (Bokeh's thread-safe way
into a session), so the page stays responsive between parts; parts that finish before
the page has drawn the previous one are delivered together (cached parts cost one
drawing, not one per part). A newer start cancels the
older computation (its running part stops at its next tile, the remaining parts never
run), and so does closing the page. Outside a server (a notebook, a test) the parts run
at once, in the caller's thread, and each is delivered in turn.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import holoviews as hv
import panel as pn

from kmeviz.budget import BudgetExceeded, Cancelled, time_budget


class Parts:
    """One explorer's progressive computation: ``start(parts, deliver)`` runs the
    callables in ``parts`` in order and calls ``deliver(results, done, total, error)``
    after each (``results`` the list so far, ``error`` the exception that stopped it)."""

    def __init__(self, explorer):
        self.explorer = explorer
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None
        self.generation = 0

    def cancel(self) -> None:
        """Stop the running computation, if any (its results are no longer delivered)."""
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()

    def start(self, parts: Sequence[Callable], deliver: Callable) -> None:
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()
            cancel = self._cancel = threading.Event()
            self.generation += 1
            generation = self.generation
        doc = pn.state.curdoc
        served = doc is not None and doc.session_context is not None
        if not served:
            self._run(parts, deliver, cancel)
            return

        latest, lock = [None], threading.Lock()  # parts faster than the page coalesce

        def on_tick():
            with lock:
                args, latest[0] = latest[0], None
            if not cancel.is_set() and generation == self.generation:
                deliver(*args)

        def hand_over(*args):
            with lock:
                scheduled, latest[0] = latest[0] is not None, args
            if not scheduled:  # else the scheduled tick delivers these newer results
                doc.add_next_tick_callback(on_tick)

        threading.Thread(target=self._run, args=(parts, hand_over, cancel), daemon=True,
                         name="kmeviz-parts").start()

    def _run(self, parts, deliver, cancel: threading.Event) -> None:
        results = []
        closed = self.explorer.closed
        with time_budget(self.explorer.budget_seconds, cancel=cancel):
            for part in parts:
                if cancel.is_set() or closed.is_set():
                    return
                try:
                    results.append(part())
                except Cancelled:
                    return
                except Exception as exc:  # noqa: BLE001 - shown by ``deliver``, never raised
                    if not isinstance(exc, BudgetExceeded) or not closed.is_set():
                        deliver(list(results), len(results), len(parts), exc)
                    return
                deliver(list(results), len(results), len(parts), None)


class Feeds:
    """The streams of the plots that show a computation's latest result, fed part by part.

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
