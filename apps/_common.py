"""Helpers shared by the apps: readable errors instead of tracebacks, page layout.

Importing this module (or any explorer) changes no global Panel or HoloViews setting:
what the server wants (compute threads, origin checks, logging) is
applied by ``kmeviz_apps.server.configure_server`` when a page is served, and what an
explorer wants (stretching plots, loading spinners) is set on that explorer's panes.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import threading
import time
from typing import NamedTuple

import holoviews as hv
import panel as pn
import param
from kmeviz_apps._drawing import drawn
from kmeviz_apps._jobs import Job, LiveViews, event_loop
from kmeviz_apps._log import describe, session_tag
from kmeviz_apps._page import TABS_WRAP, page
from kmeviz_apps._seats import hold_seat
from kmeviz_apps._settings import current as server_settings
from kmeviz_apps._url import plain
from kmeviz_apps.server import configure_server

from kmeviz import viz
from kmeviz.budget import BudgetExceeded, memory_budget, time_budget
from kmeviz.kernels.choices import kernel_labels

#: true while ``Explorer.create_app`` constructs a served page's explorer
BUILDING_A_PAGE = contextvars.ContextVar("kmeviz_building_a_page", default=False)

log = logging.getLogger("kmeviz.apps")

#: Kernel choices offered by every app: label -> factory of one scale parameter, read
#: from the kernel registry (``kmeviz.kernels.choices``) when the apps are imported
KERNELS = kernel_labels()

def use_bokeh() -> None:
    """Select HoloViews' Bokeh backend, which the explorers draw with (the step of
    ``hv.extension("bokeh")`` that registers its options), when an explorer is created:
    importing an explorer changes no HoloViews setting."""
    import holoviews.plotting.bokeh  # noqa: F401 - loads the backend once

    try:
        ready = hv.Store.current_backend == "bokeh" and hv.opts.Overlay is not None
    except AttributeError:  # loaded, but its option builders not registered yet
        ready = False
    if not ready:
        hv.Store.set_current_backend("bokeh")


#: A view that takes longer than this is logged with its app, URL and parameters.
SLOW_SECONDS = 5.0


def error_message(exc: Exception, explorer=None) -> pn.pane.Alert:
    """A readable message for a failed computation (never a traceback); an unexpected
    error goes to the server log with its traceback, app, URL and parameters."""
    if isinstance(exc, BudgetExceeded):
        log.warning("%s: %s", exc, describe(explorer))
    if isinstance(exc, (ValueError, TypeError, BudgetExceeded)):
        text = f"**These settings cannot be computed:** {plain(str(exc), 400)}"
    else:
        log.error("unexpected error in %s", describe(explorer), exc_info=exc)
        text = (f"**Something went wrong** ({type(exc).__name__}); the server log has the "
                "details. Change a setting to try again.")
    return pn.pane.Alert(
        text, alert_type="warning", css_classes=["kmeviz-error"], sizing_mode="stretch_width"
    )


def guarded(view):
    """Decorate a view method so that any exception renders as a message, and its plots
    are built with the explorer's sizing (``plot_sizing``). (A stale result never draws
    over a newer one: served, a view is a job, and a newer change cancels the older.)"""

    @functools.wraps(view)
    def wrapper(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            with viz.sizing(self.plot_sizing), time_budget(
                    self.budget_seconds, cancel=self.closed), memory_budget(self.memory_bytes):
                return view(self, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - apps must keep working
            return error_message(exc, self)
        finally:
            if (seconds := time.perf_counter() - start) > SLOW_SECONDS:
                log.warning("%s took %.1f s in %s", view.__name__, seconds, describe(self))

    return wrapper


def with_caption(view, caption: str, width: int | None = None) -> pn.Column:
    """A plot (or message) with its one-line caption underneath; the caption stretches
    with the page, or is ``width`` wide (a notebook card of natural width)."""
    if width is not None:
        return pn.Column(view, pn.pane.Markdown(caption, css_classes=["kmeviz-caption"],
                                                width=width))
    return pn.Column(
        view,
        pn.pane.Markdown(caption, css_classes=["kmeviz-caption"]),
        sizing_mode="stretch_width",
    )


class Plot(NamedTuple):
    """One plot of an explorer: its view method, its tab's title (served) and its one-line
    caption (what to notice), kept with the explorer that shows it."""

    view: str
    title: str
    caption: str


class Explorer(pn.viewable.Viewer):
    """What every kmeviz app shares: widgets for the parameters in ``CONTROLS`` (widget
    specs in ``WIDGETS``) with ``buttons()`` under them, a ``main()`` list of cards,
    ``__panel__`` for notebooks and ``create_app`` for the server (a fresh explorer per
    browser session, its parameters kept in the URL)."""

    title = "kmeviz"
    #: the seed of the explorer's random draws (shown where ``CONTROLS`` lists it)
    seed = param.Integer(default=0, bounds=(0, 2**31 - 1))
    #: plots of a fixed notebook size, or stretching with the page (served)
    plot_sizing = param.Selector(default="fixed", objects=list(viz.SIZINGS), precedence=-1)
    CONTROLS: tuple = ()
    WIDGETS: dict = {}
    #: width of the summary card left of the plots' tabs
    SUMMARY_WIDTH = 380
    #: the plots (``Plot``: view method, tab title, caption) in the order of their tabs
    #: (served) or cards (notebook); the first is what a served page opens with
    PLOTS: tuple = ()
    #: Panel extensions the page loads (e.g. "tabulator" for a Tabulator widget)
    EXTENSIONS: tuple = ()

    def __init__(self, **params):
        use_bokeh()
        super().__init__(**params)
        self._live: dict = {}  # params -> the plots that follow them (``LiveViews``)
        #: built by ``create_app`` for a served page, whose onload starts its work (under
        #: the server's budget, set after construction): work begun here would only be
        #: cancelled again
        self.constructed_for_a_page = BUILDING_A_PAGE.get()
        self._tabs: pn.Tabs | None = None  # the served page's plots (``plot_tabs``)
        self._jobs: list = []
        #: set when the browser session closes: its computations stop (``kmeviz.budget``)
        self.closed = threading.Event()
        #: seconds a computation may take: the server's budget when served, else none
        self.budget_seconds = None
        #: bytes a computation may hold at once: the server's page budget when served
        self.memory_bytes = None
        #: the served page's event loop (``_jobs``) and seat (``_seats``)
        self.loop = self.seat = None
        self._first_views: set = set()  # views of the first build without a result yet
        #: (session, page URL) of the served page, for the log (``describe``)
        self.served_at = ("not served", "(no page)")
        #: message of a failed in-place update (``live_view``); hidden otherwise
        self.notice = pn.pane.Alert("", alert_type="warning", visible=False,
                                    css_classes=["kmeviz-notice"], sizing_mode="stretch_width")

    def close(self) -> None:
        """The page closed: its running and later computations stop."""
        self.closed.set()
        for job in self._jobs:
            job.cancel()

    def job(self, *, pooled: bool = False) -> Job:
        """A slot of background work of this explorer (``_jobs.Job``: off the event loop,
        part by part, under the session's budget), stopped when the page closes;
        ``pooled``: a view's, computed in the shared view threads."""
        self._jobs.append(Job(self, pooled=pooled))
        return self._jobs[-1]

    def buttons(self) -> list:
        """Widgets under the parameter widgets (e.g. a median-heuristic button)."""
        return []

    def live_views(self, params: tuple) -> LiveViews:
        """The plots that follow ``params`` in place (``live_view``), one set per tuple
        of parameters, reused by every computation of a view (so no old plot keeps
        watching them)."""
        if params not in self._live:
            self._live[params] = LiveViews(self, params)
        return self._live[params]

    def show_notice(self, exc: Exception | None) -> None:
        if exc is None:
            self.notice.visible = False
        else:
            self.notice.param.update(object=error_message(exc, self).object, visible=True)

    def live_summary(self):
        """``summary_view`` updated in place: a new value patches the text of the same
        Markdown pane instead of replacing the pane (and re-laying out the page)."""
        return self.view_pane("summary_view", inplace=True, loading_indicator=False)

    def controls(self) -> pn.Column:
        specs = {"seed": pn.widgets.IntInput} | self.WIDGETS  # a seed is typed, not slid
        order = {name: k for k, name in enumerate(self.CONTROLS)}  # widgets in this order
        widgets = pn.Param(self.param, parameters=list(self.CONTROLS),
                           widgets={name: specs[name] for name in self.CONTROLS
                                    if name in specs},
                           show_name=False, sizing_mode="stretch_width",
                           sort=lambda item: order.get(item[0], len(order)))
        return pn.Column(widgets, *self.buttons(), sizing_mode="stretch_width")

    def view_pane(self, name: str, **options):
        """The view method ``name`` as a pane that greys out under a spinner while it
        recomputes (this explorer's setting, not ``pn.config``'s). Served, each
        computation is a job (``_jobs``: off the event loop, under the session's budget,
        the newest change winning) and the first one waits until the page has loaded, so
        that opening a page or changing a widget never blocks the server."""
        options = {"loading_indicator": True, "sizing_mode": "stretch_width"} | options
        method = getattr(self, name)
        if self.plot_sizing != "stretch":
            return pn.param.ParamMethod(method, **options)
        return self.served_pane(name, method, spinner=options["loading_indicator"],
                                inplace=options.get("inplace", False))

    def served_pane(self, name: str, method, *, spinner: bool, inplace: bool) -> pn.Column:
        """A served view: each computation is a job, its result shown on the event loop as
        soon as it arrives, the newest one winning; ``inplace`` patches the text of the
        Markdown shown instead of replacing it. Nothing is computed before the page has
        loaded (a bare request of a link computes nothing; results shown into a page not
        yet loaded were lost)."""
        job = self.job(pooled=True)
        holder = pn.Column(sizing_mode="stretch_width", loading=spinner)
        self._first_views.add(name)  # the page's seat waits for its first result

        def show(result, error):
            holder.loading = False
            if error is not None:
                result = error_message(error, self)
            shown = holder.objects[0] if holder.objects else None
            if inplace and type(shown) is type(result) is pn.pane.Markdown:
                shown.object = result.object
            else:
                holder.objects = [result]
            self.page_drawn(name)

        loaded = []  # the page has loaded: changes recompute (before, onload computes)

        def compute(*_events):
            if not loaded:
                return
            holder.loading = spinner
            job.start(lambda emit: emit(drawn(method())), show)

        def first():
            loaded.append(True)
            compute()

        self.param.watch(compute, [dep.name for dep in self.param.method_dependencies(name)])
        pn.state.onload(first)
        return holder

    def page_drawn(self, view: str) -> None:
        """A served view has its result: once every view of the page's first build has
        one (and is drawn: this runs on the event loop after the drawing), the page's seat
        goes to the next page (``_seats``: at most a few pages are built, and first drawn,
        at once)."""
        self._first_views.discard(view)
        if self._first_views:
            return
        seat, self.seat = self.seat, None
        if seat is not None:
            seat.release()

    def plots(self) -> list:
        """Every ``Plot`` of ``PLOTS``, in order."""
        return list(self.PLOTS)

    def plot_tabs(self) -> pn.Tabs:
        """Every plot of ``PLOTS`` in a tab of its own, with its
        caption. Only the open tab is built: a served page opens with one plot, and each
        other plot's pane is made, computed (a job in a view thread) and drawn when its
        tab is first chosen. Each plot is 50–100 Bokeh models, which the server builds for
        every session: most of the CPU that opening a page costs, and what a class opening
        one link together waits for (issue 29; issue 45: making the other tabs' panes up
        front cost ~40 ms of each page's build)."""
        plots = self.plots()
        holders = [pn.Column(sizing_mode="stretch_width") for _ in plots]

        def fill(index: int) -> None:
            if not holders[index].objects:
                plot = plots[index]
                holders[index].objects = [with_caption(self.view_pane(plot.view),
                                                       plot.caption)]

        fill(0)
        self._tabs = pn.Tabs(*((plot.title, holder)
                               for plot, holder in zip(plots, holders, strict=True)),
                             dynamic=True, sizing_mode="stretch_width",
                             css_classes=["kmeviz-plots"], stylesheets=[TABS_WRAP])
        self._tabs.param.watch(lambda event: fill(event.new), "active")
        return self._tabs

    def show_plot(self, view: str) -> None:
        """Bring the tab of plot ``view`` to the front (e.g. after a button that fills it);
        nothing in a notebook, where every plot is shown."""
        if self._tabs is not None:
            self._tabs.active = [plot.view for plot in self.plots()].index(view)

    def first_row(self) -> pn.Row:
        """The summary beside the plots' tabs."""
        return pn.Row(pn.Column(self.live_summary(), width=self.SUMMARY_WIDTH),
                      self.plot_tabs(), sizing_mode="stretch_width")

    def main(self) -> list:
        """The served page's main area: ``first_row``."""
        return [self.first_row()]

    def failures(self) -> dict:
        """{view: message} for each view (summary and plots) that shows an error message
        instead of its result at the current settings; empty when all compute."""
        views = ["summary_view", *(plot.view for plot in self.plots())]
        out = {}
        for name in views:
            shown = getattr(self, name)()
            if isinstance(shown, pn.pane.Alert) and "kmeviz-error" in shown.css_classes:
                out[name] = shown.object
        return out

    def __panel__(self):
        """The explorer in a notebook: controls, summary and each plot with its caption as
        cards of their natural width that wrap to the next line when the notebook column
        is narrow (a fixed row of them overflowed a 900 px column, plots over captions)."""
        cards = [pn.Column(self.controls(), width=320),
                 pn.Column(self.live_summary(), width=self.SUMMARY_WIDTH)]
        cards += [with_caption(pn.param.ParamMethod(getattr(self, plot.view),
                                                    loading_indicator=True),
                               plot.caption, viz.NOTEBOOK_WIDTH)
                  for plot in self.plots()]
        return pn.FlexBox(*cards, flex_wrap="wrap", align_items="flex-start",
                          sizing_mode="stretch_width")

    @classmethod
    def create_app(cls):
        """A fresh explorer on the common page template (one per browser session), its
        plots stretching with the page; the server's settings are applied first
        (``configure_server``, also under ``panel serve apps/<app>.py``)."""
        configure_server()
        token = BUILDING_A_PAGE.set(True)
        try:
            explorer = cls(plot_sizing="stretch")
        finally:
            BUILDING_A_PAGE.reset(token)
        settings = server_settings()
        explorer.budget_seconds = settings.time_budget
        explorer.memory_bytes = settings.page_memory_bytes
        served = page(cls.title, [explorer.controls()], explorer.main(), explorer,
                      extensions=cls.EXTENSIONS)
        location = pn.state.location
        explorer.served_at = (session_tag() or "not served",
                              location.href if location is not None else "(no page)")

        explorer.loop = event_loop(None)
        explorer.seat = seat = hold_seat(f"[{explorer.served_at[0]}]")

        def closed(_context):
            explorer.close()
            if seat is not None:
                seat.release()
            log.info("session closed: %s", explorer.served_at[0])

        pn.state.on_session_destroyed(closed)
        log.info("session opened: %s (built in %s)", describe(explorer),
                 threading.current_thread().name)
        return served

    @classmethod
    def serve_if_script(cls, module_name: str) -> None:
        """Under ``panel serve apps/<app>.py`` (the file run as a script), make this
        explorer's page servable: the HoloViz way to serve one app file."""
        if module_name.startswith("bokeh_app"):
            cls.create_app().servable(title=f"kmeviz · {cls.title}")
