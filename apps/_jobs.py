"""One way to run work in an explorer: a ``Job`` runs a function off the event loop, hands
each partial result to the page, and stops when a newer start or the page's close says so.

A job's work is ``work(emit)``: it returns a generator of partial results (each one is
shown), or calls ``emit(part)`` from inside a callback-style computation, or both. It runs
in a thread of its own, in a copy of the starter's context, under the explorer's time
budget and a cancel signal of its own (``kmeviz.budget`` keeps both in a ContextVar, so
they follow the work into ``asyncio.to_thread`` and the tile engine's checks). ``show(part,
error)`` runs on the page's event loop for the newest part (parts faster than the page
coalesce: cached parts cost one drawing), and once with the error that stopped the work;
a cancelled job, or one whose page closed, shows nothing more (the server log says when
a page's close stopped its work). Outside a server (a
notebook, a test) the work runs at once in the caller's thread and ``show`` follows each
part.

A served view is a job too (``Explorer.served_pane``), and so are the plots that follow a
cheap parameter in place (``live_view``). Nothing else in the apps runs work off the event
loop: the server starts no Panel thread pool, so each session's widget events are applied
on the loop, one at a time and in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import threading
import time
import weakref
from collections.abc import Callable

import holoviews as hv
import panel as pn
from bokeh.document import Document
from kmeviz_apps._log import describe
from kmeviz_apps._settings import current as server_settings

from kmeviz import viz
from kmeviz.budget import BudgetExceeded, Cancelled, detached, memory_budget, time_budget
from kmeviz.timeseries.serial import quiet_serial_warnings

log = logging.getLogger("kmeviz.apps")

async def built_off_the_loop(build: Callable[[], None]) -> None:
    """Await ``build()`` run in a build thread, in a copy of the caller's context (a page
    request's seat comes along), the caller's event loop named as the one the page's
    jobs hand their results to (``event_loop``)."""
    loop = asyncio.get_running_loop()
    BUILDING_LOOP.set(loop)
    await loop.run_in_executor(server_settings().build_threads, contextvars.copy_context().run,
                               build)


class Job:
    """One slot of background work of an explorer (a view's computation, a grid, a
    button's run): a new start cancels the running one. ``generation`` counts the starts.
    A ``pooled`` job (a view) runs in the shared view threads; any other (a grid, 100
    draws, a table of tests: seconds of work) in a thread of its own."""

    def __init__(self, explorer, *, pooled: bool = False):
        self.explorer, self.pooled = explorer, pooled
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None
        self.generation = 0

    def cancel(self) -> None:
        """Stop the running work, if any (its parts are no longer shown)."""
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()

    def _renew(self) -> tuple[threading.Event, int]:
        """Cancel the running work; (the new work's cancel signal, its generation)."""
        with self._lock:
            if self._cancel is not None:
                self._cancel.set()
            self._cancel = threading.Event()
            self.generation += 1
            return self._cancel, self.generation

    def start(self, work: Callable, show: Callable) -> None:
        """Run ``work(emit)`` off the event loop and ``show(part, None)`` each part on it
        (``show(None, error)`` if it fails)."""
        cancel, generation = self._renew()
        doc = pn.state.curdoc
        loop = event_loop(self.explorer)
        if doc is None or doc.session_context is None or loop is None:
            self._run(work, show, cancel)  # a notebook or a test: at once
            return

        def on_tick(args):
            if not cancel.is_set() and generation == self.generation:
                show(*args)

        handover = Handover(doc, loop, on_tick)
        context = detached(contextvars.copy_context())  # its own budget, not its starter's
        if self.pooled:
            server_settings().view_threads.submit(context.run, self._run, work,
                                                  handover.send, cancel)
        else:
            threading.Thread(target=context.run, args=(self._run, work, handover.send,
                                                       cancel),
                             daemon=True, name="kmeviz-job").start()

    def _run(self, work: Callable, send: Callable, cancel: threading.Event) -> None:
        closed = self.explorer.closed
        if cancel.is_set() or closed.is_set():  # superseded while it waited for a thread
            return

        def emit(part) -> None:
            if not (cancel.is_set() or closed.is_set()):
                send(part, None)

        started, stopped = time.monotonic(), False
        try:
            with time_budget(self.explorer.budget_seconds, cancel=cancel), \
                    memory_budget(self.explorer.memory_bytes), \
                    quiet_serial_warnings():  # a page shows the rows' check in its table
                parts = work(emit)
                if inspect.isgenerator(parts):
                    for part in parts:
                        if cancel.is_set() or closed.is_set():
                            parts.close()
                            stopped = True
                            break
                        emit(part)
        except Cancelled:
            stopped = True
        except Exception as exc:  # noqa: BLE001 - shown by ``show``, never raised
            stopped = isinstance(exc, BudgetExceeded) and closed.is_set()
            if not stopped:
                send(None, exc)
        if stopped and closed.is_set():  # the server log says a closed page's work stopped
            log.info("work stopped %.1f s after its start, as its page closed: %s",
                     time.monotonic() - started, describe(self.explorer))


#: the server's event loop, in the thread that builds a page (``_build``)
BUILDING_LOOP: contextvars.ContextVar = contextvars.ContextVar("kmeviz_building_loop",
                                                               default=None)


def event_loop(explorer) -> asyncio.AbstractEventLoop | None:
    """The served page's event loop: the explorer's (``create_app`` keeps it), else the one
    running in this thread, else the one a page is being built for (``_build``), else None
    (not served)."""
    loop = getattr(explorer, "loop", None)
    if loop is not None:
        return loop
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return BUILDING_LOOP.get()


class Handover:
    """Results of a background thread handed to a served page, the latest one only (parts
    faster than the page coalesce: cached parts cost one drawing), each delivered in one
    batch of document changes (``pn.io.hold``), and after a delivery the loop is left to
    the others for as long as it took.

    The thread asks the page's event loop (``call_soon_threadsafe``) to deliver, so every
    touch of the document happens on the loop: at once where Panel may change the
    document (``pn.state.execute``), else at its next tick.
    (A next-tick callback scheduled from the thread itself could be lost while the page
    was being built: under a hold, Bokeh collects it in a list that Panel's ``unlocked``
    copies and replaces on the loop. CI saw a Nyström grid stay at "computing the first
    m values …" for 60 s.)
    """

    def __init__(self, doc, loop: asyncio.AbstractEventLoop, deliver: Callable):
        self.doc, self.loop, self.deliver = doc, loop, deliver
        self._lock = threading.Lock()
        self._latest = None
        self._pending = False  # a tick is on its way: it takes the newest result
        self._quiet_until = 0.0  # ``_tick``: no delivery before (loop time)

    def send(self, *args) -> None:
        """Hand ``args`` to ``deliver`` on the page's event loop (replacing any result
        not yet taken); from any thread."""
        with self._lock:
            self._latest = args
            due, self._pending = not self._pending, True
        if due:
            try:
                self.loop.call_soon_threadsafe(self._schedule)
            except RuntimeError:  # the server's loop is closed: nobody to show
                pass

    def _schedule(self) -> None:  # on the loop, in the job's context (its document)
        wait = self._quiet_until - self.loop.time()
        if wait > 0:  # the last delivery's cost has not yet been left to the others
            self.loop.call_later(wait, self._schedule)
            return
        try:  # at once when Panel may change the document now, else at its next tick
            pn.state.execute(self._tick)
        except Exception:  # noqa: BLE001 - the page's document is gone: nobody to show
            with self._lock:
                self._latest, self._pending = None, False

    def _tick(self) -> None:
        with self._lock:
            args, self._latest, self._pending = self._latest, None, False
        if args is not None:
            start = self.loop.time()
            # the changes of one result reach the page at once (a Bokeh document's)
            with (pn.io.hold(self.doc) if isinstance(self.doc, Document)
                  else contextlib.nullcontext()):
                self.deliver(args)
            # as long again for every other page before this job's next result: parts
            # arriving back to back (a table's rows, 0.1 s each) held the loop for 0.5 s
            # in a row, and another student's request waited through all of them
            self._quiet_until = 2 * self.loop.time() - start


class Feeds:
    """The streams of the plots that show a job's latest result, fed part by part.

    A view's job builds its plot in a view thread while the server delivers parts on its
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


def live_view(explorer, params, build):
    """``build()`` as a DynamicMap redrawn in place whenever one of ``params`` changes: the
    Bokeh figure stays, only its data and title move, so a zoom survives the update and a
    cheap change costs one small patch instead of a new figure.

    The first frame is built at once, so that a failure raises inside the (guarded) view
    and shows as a message. Later frames are computed as a job (``LiveViews``). A later
    failing update keeps the last frame and shows the error in ``explorer.notice`` until
    an update succeeds.
    """
    pipe = hv.streams.Pipe(data=build())
    explorer.live_views(tuple(params)).add(build, pipe)
    return hv.DynamicMap(lambda data: data, streams=[pipe])


class LiveViews:
    """The plots of an explorer that follow the same parameters: one change recomputes
    them all as one job and sends them to their plots inside one freeze of the page's
    model graph, so Bokeh recomputes it once per change (three plots following ω spent
    0.1 s on three walks of the graph, issue 29)."""

    def __init__(self, explorer, params: tuple):
        self.explorer = explorer
        self._lock = threading.Lock()
        #: pipe -> build of every plot still alive (an explorer shown twice, a view computed
        #: again: each plot on a page keeps following; a dropped plot is forgotten)
        self._builds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._job = explorer.job(pooled=True)
        explorer.param.watch(self.redraw, list(params))

    def add(self, build, pipe) -> None:
        """Follow the parameters with ``build`` into ``pipe``."""
        with self._lock:
            self._builds[pipe] = build

    def redraw(self, *_events) -> None:
        with self._lock:
            builds = [(build, pipe) for pipe, build in self._builds.items()]
        sizing = self.explorer.plot_sizing

        def work(emit):
            frames = []
            with viz.sizing(sizing):
                for build, pipe in builds:
                    try:
                        frames.append((pipe, build(), None))
                    except BudgetExceeded:
                        raise
                    except Exception as exc:  # noqa: BLE001 - shown as the notice
                        frames.append((pipe, None, exc))
            emit(frames)

        self._job.start(work, self.show)

    def show(self, frames, error) -> None:
        errors = [error] if error is not None else [
            exc for _, _, exc in frames if exc is not None]
        doc = pn.state.curdoc
        models = getattr(doc, "models", None) if doc is not None else None
        with models.freeze() if models is not None else contextlib.nullcontext():
            for pipe, element, exc in frames or ():
                if exc is None:
                    pipe.send(element)
        self.explorer.show_notice(errors[0] if errors else None)
