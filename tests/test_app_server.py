"""The classroom server: callbacks in a thread pool, caches that sessions can share."""

from __future__ import annotations

import contextlib
import html
import threading
import time

import numpy as np
import panel as pn
import pytest
from kmeviz_apps._cache import shared_cache
from kmeviz_apps.cli import default_threads, main


@contextlib.contextmanager
def server_settings_restored():
    """``build_server`` changes process-wide settings (Panel's thread count, the plots'
    sizing, kmeviz's config, the BLAS limit) and sets this context's ``ServerSettings``:
    all restored after the block, for the other tests."""
    from kmeviz_apps import _settings
    from threadpoolctl import threadpool_limits

    import kmeviz
    from kmeviz.viz import theme

    threads, sizing, config = pn.config.nthreads, theme.get_sizing(), kmeviz.get_config()
    blas = threadpool_limits(limits=None, user_api="blas")  # records the limits in force
    try:
        with _settings.using(_settings.DEFAULT):
            yield
    finally:
        pn.config.nthreads = threads
        theme.set_sizing(sizing)
        kmeviz.set_config(**config)
        blas.restore_original_limits()


def test_a_key_is_computed_once_however_many_sessions_ask_at_once():
    calls = []

    @shared_cache(maxsize=4)
    def slow(seed):
        calls.append(seed)
        time.sleep(0.2)
        return np.arange(3) + seed

    results = []
    threads = [threading.Thread(target=lambda: results.append(slow(1))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and len(results) == 8
    assert all(r is results[0] for r in results)
    assert slow.cache_info().misses == 1 and slow.cache_info().hits == 7


def test_pn_cache_still_computes_a_key_once_per_concurrent_caller():
    """Canary for ``shared_cache`` (issue 57: use ``pn.cache`` where it serves): Panel
    1.9's ``pn.cache`` computes a key for each of 4 callers that ask at once, where
    ``shared_cache`` computes it once. When this fails, Panel computes it once too, and
    ``shared_cache`` should give way to ``pn.cache``."""
    calls, barrier = [], threading.Barrier(4, timeout=10)

    @pn.cache
    def slow(key):
        calls.append(key)
        time.sleep(0.3)
        return key

    def ask():
        barrier.wait()
        slow(7)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(calls) > 1, "pn.cache now computes a key once: replace shared_cache by it"


def test_cached_arrays_are_read_only_and_the_cache_is_bounded():
    @shared_cache(maxsize=2)
    def make(k):
        return {"x": np.zeros(3), "pair": (np.ones(2), k)}

    value = make(0)
    with pytest.raises(ValueError, match="read-only"):
        value["x"][0] = 1.0  # one session cannot change another's data
    with pytest.raises(ValueError, match="read-only"):
        value["pair"][0][0] = 1.0
    make(1)
    make(2)
    assert make.cache_info().currsize == 2
    make(0)  # evicted, so computed again
    assert make.cache_info().misses == 4
    make.cache_clear()
    assert make.cache_info() == (0, 0, 2, 0)


def test_a_failed_computation_is_not_cached_and_does_not_hang_waiters():
    attempts = []

    @shared_cache()
    def flaky(k):
        attempts.append(k)
        raise ValueError("bad settings")

    for _ in range(2):
        with pytest.raises(ValueError, match="bad settings"):
            flaky(3)
    assert attempts == [3, 3]


def test_a_budget_failure_is_not_cached_for_the_next_session():
    """A computation stopped by one session's budget (a moment of load) is tried again
    by the next caller, not replayed to every session until eviction (issue 39)."""
    from kmeviz.budget import BudgetExceeded, time_budget

    attempts = []

    @shared_cache()
    def heavy(k):
        attempts.append(k)
        time.sleep(0.05)
        from kmeviz.budget import check_budget
        check_budget()
        return k * 2

    with time_budget(0.01), pytest.raises(BudgetExceeded):
        heavy(4)
    assert heavy(4) == 8 and attempts == [4, 4]  # no budget now: computed and cached
    assert heavy(4) == 8 and attempts == [4, 4]


def test_a_waiting_session_stops_at_its_own_budget():
    from kmeviz.budget import BudgetExceeded, time_budget

    release = threading.Event()

    @shared_cache()
    def slow(k):
        release.wait(5)
        return k

    first = threading.Thread(target=slow, args=(1,))
    first.start()
    time.sleep(0.05)
    started = time.monotonic()
    with time_budget(0.2), pytest.raises(BudgetExceeded):
        slow(1)  # waits for the first caller's computation, within its own 0.2 s
    assert time.monotonic() - started < 1.0
    release.set()
    first.join()
    assert slow(1) == 1


def test_freezing_a_fitted_estimator_leaves_the_callers_object_writable():
    from kmeviz_apps._cache import freeze

    import kmeviz as K

    est = K.EmpiricalKME(K.GaussianKernel(1.0)).fit(np.zeros((4, 2)))
    frozen = freeze(est)
    assert frozen is not est and est.weights_.flags.writeable
    assert not frozen.weights_.flags.writeable


def test_serve_takes_classroom_options(monkeypatch, tmp_path):
    import panel as pn

    seen = {}

    def fake_build_server(**kwargs):
        seen.update(kwargs)
        raise SystemExit(0)

    monkeypatch.setattr("kmeviz_apps.server.build_server", fake_build_server)
    with pytest.raises(SystemExit):
        main(["serve", "--num-threads", "6", "--num-procs", "2", "--allow-websocket-origin",
              "192.168.1.20:5006", "--allow-websocket-origin", "kmeviz.school.example"])
    assert seen["num_threads"] == 6 and seen["num_procs"] == 2
    assert seen["allow_websocket_origin"] == ["192.168.1.20:5006", "kmeviz.school.example"]
    with pytest.raises(SystemExit):
        main(["serve"])
    assert seen["num_threads"] == default_threads() >= 4
    with pytest.raises(SystemExit):
        main(["serve", "--num-threads", "0"])  # argparse error: a message, exit code 2

    assert seen["compute_threads"] == 1
    users = tmp_path / "users.json"
    users.write_text('{"lecturer": "pw"}')
    with pytest.raises(SystemExit):
        main(["serve", "--prefix", "/kme", "--basic-auth", str(users), "--cookie-secret", "s",
              "--admin", "--admin-user", "lecturer", "--warm", "--reuse-sessions",
              "--oauth-provider", "github", "--oauth-key", "id", "--oauth-secret", "x"])
    assert (seen["prefix"], seen["basic_auth"], seen["cookie_secret"]) == (
        "/kme", str(users), "s")
    assert seen["admin"] and seen["admin_user"] == "lecturer"
    assert seen["warm"] and seen["reuse_sessions"]
    assert seen["oauth"] == {"oauth_provider": "github", "oauth_key": "id",
                             "oauth_secret": "x"}

    monkeypatch.undo()
    from kmeviz_apps import server as served

    import kmeviz

    with server_settings_restored():
        server, url = served.build_server(port=0, num_threads=3,
                                          allow_websocket_origin=["kmeviz.school.example"])
        # no Panel thread pool (widget events apply on the loop, in order); views compute
        # in num_threads shared threads (``_jobs``)
        assert not pn.config.nthreads and url.startswith("http://localhost:")
        names, barrier = [], threading.Barrier(3, timeout=5)

        def record():
            names.append(threading.current_thread().name)
            barrier.wait()  # three run at once

        from kmeviz_apps import _settings

        settings = _settings.current()  # what build_server set for the server's thread
        assert settings.seats.size == 2 and settings.time_budget == 20.0
        for _ in range(3):
            settings.view_threads.submit(record)
        deadline = time.monotonic() + 5
        while len(names) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(set(names)) == 3 and all(n.startswith("kmeviz-view") for n in names)
        assert kmeviz.get_config()["n_threads"] == 1  # --compute-threads default
        server.stop()


def test_the_server_routes_every_app_through_kmevizs_handlers():
    """Canary of the one change kmeviz makes to Bokeh's and Panel's objects (issue 57):
    ``install_handlers`` puts ``PageHandler`` and ``SocketHandler`` in Bokeh's per-app
    route table, and a server built from it answers through them: a foreign Host gets
    403, a query Panel cannot parse a redirect, a websocket from a foreign Origin 403.
    Fails loudly if an installed Bokeh or Panel builds its routes another way."""
    import asyncio
    import urllib.error
    import urllib.request

    from kmeviz_apps import server as served


    box = {}

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        box["server"], _ = served.build_server(port=0)
        box["server"].start()
        box["server"].io_loop.start()

    class Refuse(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def status(path, **headers):
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
        try:
            return urllib.request.build_opener(Refuse).open(request, timeout=30).status
        except urllib.error.HTTPError as exc:
            return exc.code

    restore = contextlib.ExitStack()
    restore.enter_context(server_settings_restored())
    threading.Thread(target=run, daemon=True).start()
    try:
        deadline = time.monotonic() + 30
        while "server" not in box and time.monotonic() < deadline:
            time.sleep(0.02)
        port = box["server"].port
        assert {handler for _, handler in served.per_app_patterns} >= {
            served.PageHandler, served.SocketHandler}
        assert status("/bootstrap", Host=f"evil.example:{port}") == 403
        assert status("/bootstrap?n=%C2%B2", Host=f"localhost:{port}") == 302
        upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version":
                   "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        assert status("/bootstrap/ws", Host=f"localhost:{port}",
                      Origin=f"http://evil.example:{port}", **upgrade) == 403
    finally:
        if "server" in box:
            box["server"].io_loop.add_callback(box["server"].io_loop.stop)
        restore.close()


def test_the_private_panel_members_kmeviz_relies_on_still_exist():
    """Canary of the private Panel members kmeviz still uses, each for a stated reason
    (issue 57; CONTRIBUTING, "Panel and Bokeh"): it fails loudly when an installed Panel
    renames or removes one, before a served page does.

    - ``FileDropper._process_event`` and ``_file_buffer``: the server-side bound of an
      upload (``BoundedFileDropper``); Panel bounds the size in the browser only.
    - ``Tabulator._process_data``: a comparison table ignores the page's stale copy of
      its rows (``ReadOnlyTabulator``).
    - ``theme.Fast._resources["font"]``: Panel reads the design's web font from it
      directly; kmeviz's ``Fast`` empties it (no request to a font host)."""
    import inspect

    dropper = pn.widgets.FileDropper()
    assert callable(getattr(pn.widgets.FileDropper, "_process_event", None))
    assert isinstance(dropper._file_buffer, dict)
    assert "event" in inspect.signature(pn.widgets.FileDropper._process_event).parameters
    assert callable(getattr(pn.widgets.Tabulator, "_process_data", None))
    assert "fonts.googleapis.com" in str(pn.theme.Fast._resources["font"])
    from kmeviz_apps._page import Fast

    assert Fast._resources["font"] == {}


def test_apps_import_no_private_name_of_kmeviz():
    """Apps are thin: whatever numerics they need is a public, tested core function."""
    import re
    from pathlib import Path

    private = re.compile(r"from kmeviz[\w.]* import [^\n]*\b_[a-z]\w*|\bK\._[a-z]\w*|"
                         r"\.(_gram|_tile|_prepare|_paired|_diag|cho_)\b")
    apps = Path(__file__).resolve().parents[1] / "apps"
    offenders = [f"{p.name}:{i}" for p in sorted(apps.glob("*.py"))
                 for i, line in enumerate(p.read_text().splitlines(), 1)
                 if private.search(line)]
    assert offenders == []


def test_a_new_session_builds_no_browser_side_loading_links():
    """Panel's link_param_method hook adds one jslink per (widget, view with Panel's
    loading indicator) pair, 2.5 s of server CPU per session. A served view greys its own
    holder while its job runs (``Explorer.view_pane``), so the hook, left in place, finds
    no pane to link."""
    from panel.param import link_param_method
    from panel.viewable import Viewable

    assert link_param_method in Viewable._preprocessing_hooks  # kmeviz leaves it alone
    from bokeh.document import Document
    from kmeviz_apps.bootstrap_explorer import create_app
    from panel.links import Link

    before = sum(len(links) for links in Link.registry.values())
    create_app().server_doc(Document())
    assert sum(len(links) for links in Link.registry.values()) == before


def test_the_runtime_panel_times_the_spectral_null_at_the_largest_n():
    """Heavy state: n = 2000 per sample (N = 4000 > the exact spectrum's 2500) times the
    spectral null with the others; its leading-eigenvalue route keeps it quadratic."""
    from kmeviz_apps.bootstrap_explorer import BootstrapExplorer

    large = BootstrapExplorer(n=2000, n_resamples=50).runtime_view()
    assert "spectral" in list(large.dimension_values(0))
    small = BootstrapExplorer(n=200, n_resamples=50).runtime_view()
    assert "spectral" in list(small.dimension_values(0))


def test_every_app_is_an_explorer_and_the_index_names_it_by_its_title():
    """One shared base (apps/_common.Explorer) gives every app its controls, __panel__
    and create_app; the one registry (kmeviz.apps.EXPLORERS) feeds the index, kmeviz.apps
    and the server, and the index titles are the explorers' own."""
    from kmeviz_apps._common import Explorer
    from kmeviz_apps._index import index_page

    import kmeviz.apps

    index = index_page()
    text = " ".join(str(pane.object) for pane in index.select(pn.pane.HTML))
    for slug, (name, _) in kmeviz.apps.EXPLORERS.items():
        cls = kmeviz.apps.explorer_class(slug)
        assert issubclass(cls, Explorer) and getattr(kmeviz.apps, name) is cls
        assert f'<a href="./{slug}">{html.escape(cls.title)}</a>' in text


def test_an_in_place_update_keeps_the_figure_and_a_failing_one_keeps_the_last_frame():
    """``live_view``: m of the 2-D view moves the landmarks of the same Bokeh figure; an
    impossible m (more than n without replacement) keeps the last map and shows the
    reason in the explorer's notice, which disappears on the next good value."""
    import holoviews as hv
    from kmeviz_apps.nystrom_error import NystromErrorExplorer

    app = NystromErrorExplorer(n=200, m_max=50, replace=False, m_view=20)
    row = app.map_view()
    left = row[0].object
    plot = hv.renderer("bokeh").get_plot(left)
    figure = plot.state
    app.m_view = 30
    assert plot.state is figure and "m = 30" in figure.title.text
    app.m_view = 500  # > n = 200 without replacement
    assert plot.state is figure and "m = 30" in figure.title.text
    assert app.notice.visible and "exceeds n = 200" in app.notice.object
    app.m_view = 40
    assert "m = 40" in figure.title.text and not app.notice.visible


def test_the_server_starts_no_panel_thread_pool_so_one_pages_changes_apply_in_order():
    """With a Panel thread pool (``pn.config.nthreads``), two quick changes of one page
    (α 0.065 then 0.07) ran concurrently and could leave the explorer at the older value
    (seen in CI). The server sets no pool: Panel applies each page's changes on the event
    loop, one at a time in the order they arrived, and the views compute as jobs."""
    from kmeviz_apps.server import configure_server

    configure_server()
    assert not pn.config.nthreads


def test_a_plot_built_while_parts_arrive_ends_with_the_last_part(monkeypatch):
    """Panel builds a deferred view in its pool while parts arrive on the event loop (CI:
    the Nyström error plot stayed at "(k of 12 parts)"). Streams made in one thread while
    another publishes 30 results all end at the last one; a new result drops the old
    plots' streams."""
    import holoviews as hv
    from kmeviz_apps import _jobs
    from kmeviz_apps._jobs import Feeds

    class SlowPipe(hv.streams.Pipe):  # a slow build: parts arrive while it is made
        def __init__(self, **params):
            time.sleep(0.001)
            super().__init__(**params)

    monkeypatch.setattr(_jobs.hv.streams, "Pipe", SlowPipe)
    feeds, pipes, done = Feeds(), [], threading.Event()

    def build():
        while not done.is_set():
            pipes.append(feeds.pipe())

    builder = threading.Thread(target=build)
    builder.start()
    for k in range(30):
        feeds.publish(k)
        time.sleep(0.002)
    done.set()
    builder.join()
    assert len(pipes) > 5 and {pipe.data for pipe in pipes} == {29}
    old = feeds.pipe()
    feeds.publish("new grid", new=True)
    feeds.publish("its second part")
    assert old.data == 29 and feeds.pipe().data == "its second part"


def test_importing_the_explorers_changes_no_global_panel_setting():
    """A student's own Panel app in the same notebook behaves the same after ``from
    kmeviz.apps import BootstrapExplorer``: pn.config and Panel's preprocessing hooks are
    untouched by importing every explorer (checked in a fresh interpreter). The server
    applies its own settings (``configure_server``) when it serves a page."""
    import json
    import subprocess
    import sys

    code = """
import json, panel as pn
from panel.viewable import Viewable
def snapshot():
    config = {k: repr(v) for k, v in pn.config.param.values().items()}
    return config, [h.__name__ for h in Viewable._preprocessing_hooks]
before = snapshot()
import kmeviz.apps
from kmeviz.apps import EXPLORERS, explorer_class
classes = [explorer_class(slug) for slug in EXPLORERS]
explorer = classes[1]()  # an explorer object too, as a notebook makes one
after = snapshot()
print(json.dumps({"same_config": before[0] == after[0], "hooks": [before[1], after[1]],
                  "changed": sorted(k for k in before[0] if before[0][k] != after[0][k])}))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["same_config"], out["changed"]
    assert out["hooks"][0] == out["hooks"][1] and "link_param_method" in out["hooks"][0]


def test_without_the_extras_each_command_says_in_one_line_what_to_install(monkeypatch,
                                                                           capsys):
    """The core install has neither Panel nor matplotlib: ``kmeviz serve`` and ``kmeviz
    reproduce`` then print one line naming the extra, and exit 2 (no traceback)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in (
        "panel", "matplotlib") else real(name, *a))
    assert main(["serve"]) == 2
    assert main(["reproduce", "nksd-fig1b", "--quick"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        "kmeviz serve needs the dashboards' packages (Panel, HoloViews, Bokeh), not "
        "installed here: pip install 'kmeviz[apps]'",
        "kmeviz reproduce draws its PNG figures with matplotlib, not installed here: "
        "pip install 'kmeviz[reproduce]'"]


def test_a_callback_error_goes_to_the_log_not_to_the_browser(caplog):
    """Panel re-raises a callback's exception into Bokeh unless an exception handler is
    set (Bokeh then sends the traceback to the browser); the server's handler logs it."""
    from kmeviz_apps.server import log_callback_error
    from panel.io.state import state

    before = pn.config.exception_handler
    try:
        pn.config.exception_handler = log_callback_error
        with caplog.at_level("ERROR", logger="kmeviz.apps"):
            state._handle_exception(ValueError("x" * 10))  # what Panel calls in a callback
    finally:
        pn.config.exception_handler = before
    assert "unexpected error in a callback" in caplog.text and "xxxxxxxxxx" in caplog.text


def test_one_change_of_omega_redraws_three_plots_with_one_walk_of_the_page():
    """``LiveViews``: the three plots that follow ω recompute as one job and update inside
    one freeze of the document's model graph, so Bokeh recomputes it once per change
    instead of once per plot (``kmeviz_apps._jobs.LiveViews``)."""
    from bokeh.document import Document
    from kmeviz_apps._page import page
    from kmeviz_apps.circular_explorer import CircularExplorer
    from panel.io.state import set_curdoc

    explorer = CircularExplorer(n=200)
    doc = Document()
    page("test", [explorer.controls()], [pn.Column(*(
        pn.pane.HoloViews(getattr(explorer, view)()) for view in
        ("samples_view", "circle_view", "objective_view")))]).server_doc(doc)
    walks = []
    recompute = doc.models.recompute
    doc.models.recompute = lambda: (walks.append(1), recompute())[1]
    with set_curdoc(doc):
        explorer.angle = 75.0
    assert len(walks) == 1


def test_the_runtime_panel_times_every_null_at_a_capped_b():
    """The runtime panel compares the nulls at B = min(B, RUNTIME_RESAMPLES) and says so
    in its title: timing every null at B = 5000 was the Bootstrap explorer's slowest view
    (3 s, issue 29)."""
    from kmeviz_apps.bootstrap_explorer import RUNTIME_RESAMPLES, BootstrapExplorer

    shown = BootstrapExplorer(n=100, n_resamples=5000).runtime_view()
    assert shown.opts.get().kwargs["title"] == f"Runtime of each null (B = {RUNTIME_RESAMPLES})"
    caption = next(p.caption for p in BootstrapExplorer.PLOTS if p.view == "runtime_view")
    assert f"B = min(B, {RUNTIME_RESAMPLES})" in caption
    shown = BootstrapExplorer(n=100, n_resamples=50).runtime_view()
    assert shown.opts.get().kwargs["title"] == "Runtime of each null (B = 50)"


def test_the_server_keeps_its_start_up_heap_out_of_the_collectors_sight():
    """``freeze_startup_heap``: after it, a full collection walks only what was made
    since (every closed session triggers one)."""
    import gc

    from kmeviz_apps.server import freeze_startup_heap

    try:
        freeze_startup_heap()
        assert gc.get_freeze_count() > 100_000
    finally:
        gc.unfreeze()
