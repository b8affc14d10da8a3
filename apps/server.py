"""Serve every kmeviz app with an index page (``kmeviz serve``).

The server lives with the apps: the numerical core (``kmeviz``) never imports it, Panel,
HoloViews or Bokeh.
"""

from __future__ import annotations

import importlib
import os


def app_registry() -> dict:
    """Slug -> (title, factory) for every app in ``apps/``."""
    from kmeviz_apps import APPS

    registry = {}
    for slug, (title, target) in APPS.items():
        module, func = target.split(":")
        registry[slug] = (title, getattr(importlib.import_module(module), func))
    return registry


def index_page():
    """The landing page: every app with its title, description and link."""
    import panel as pn

    pn.extension(notifications=False)
    cards = []
    for slug, (title, factory) in app_registry().items():
        owner = getattr(factory, "__self__", factory)  # create_app is bound to its Explorer
        module = importlib.import_module(owner.__module__)
        blurb = (module.__doc__ or "").strip().split("\n\n")[-1].replace("\n", " ")
        card = pn.pane.Markdown(f"### [{title}](./{slug})\n\n{blurb}", width=390,
                                css_classes=["kmeviz-app-card"])
        cards.append(pn.Column(card, margin=10, styles={
            "border": "1px solid #ddd", "border-radius": "8px", "padding": "0 12px"}))
    intro = pn.pane.Markdown(
        "# kmeviz dashboards\n\nSee and play with kernel mean embeddings. "
        "Pick an explorer; every widget updates its plots live."
    )
    return pn.Column(intro, pn.FlexBox(*cards), margin=(10, 30))


_compute_limits = []  # the BLAS limit of the served process, kept alive


def limit_compute_threads(compute_threads: int) -> None:
    """Each computation uses at most ``compute_threads`` cores: kmeviz's engine threads
    (``set_config(n_threads=...)``) and BLAS/LAPACK threads (threadpoolctl), process-wide.
    With one thread per computation, a session running a heavy state leaves the other
    cores to everyone else's cheap changes."""
    from threadpoolctl import threadpool_limits

    import kmeviz

    kmeviz.set_config(n_threads=compute_threads)
    _compute_limits.append(threadpool_limits(limits=compute_threads, user_api="blas"))


def build_server(*, address: str = "127.0.0.1", port: int = 5006, show: bool = False,
                 num_threads: int = 4, num_procs: int = 1, compute_threads: int = 1,
                 allow_websocket_origin: list[str] | tuple = ()):
    """A started-but-not-running Panel server for all apps; returns (server, url).

    Sessions' callbacks run in a pool of ``num_threads`` threads (``pn.config.nthreads``),
    so a heavy computation in one session does not block the others; one session's
    callbacks run one at a time in the order of its events (``_ordered``); and each
    computation uses ``compute_threads`` cores (``limit_compute_threads``).
    """
    import panel as pn

    limit_compute_threads(compute_threads)

    from kmeviz.viz import set_sizing

    from ._ordered import order_sessions

    set_sizing("stretch")  # dashboards: plots stretch with the page
    registry = app_registry()
    apps = {"/": index_page, **{slug: factory for slug, (_, factory) in registry.items()}}
    titles = {"/": "kmeviz", **{slug: title for slug, (title, _) in registry.items()}}
    origins = [f"{host}:{port}" for host in {address, "localhost", "127.0.0.1"}]
    origins += list(allow_websocket_origin)
    if pn.config.nthreads != num_threads and "PANEL_NUM_THREADS" not in os.environ:
        pn.config.nthreads = num_threads  # PANEL_NUM_THREADS, when set, has started its pool
    order_sessions()  # each session's events in order, sessions in parallel
    server = pn.serve(
        apps,
        address=address,
        port=port,
        show=show,
        start=False,
        title=titles,
        websocket_origin=origins,
        threaded=False,
        num_procs=num_procs,
    )
    host = "localhost" if address in ("127.0.0.1", "0.0.0.0", "") else address
    return server, f"http://{host}:{server.port}/"
