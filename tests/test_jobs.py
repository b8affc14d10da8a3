"""The explorers' one way to run work (``kmeviz_apps._jobs.Job``): off the event loop,
part by part, the newest start winning, stopped by the page's close and by the session's
budget, the budget following the work into ``asyncio.to_thread``."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import types

import pytest

pytest.importorskip("panel")
from kmeviz_apps._jobs import Job  # noqa: E402
from panel.io.state import set_curdoc  # noqa: E402

from kmeviz.budget import BudgetExceeded, check_budget  # noqa: E402

#: the served page's event loop, running in a thread of its own as Bokeh's server runs it
LOOP = asyncio.new_event_loop()
threading.Thread(target=LOOP.run_forever, daemon=True, name="event-loop").start()


class ServedDoc:
    """A served page's document: next-tick callbacks run in order on the event loop; it
    records the threads that scheduled them (Bokeh's documents are the loop's alone)."""

    session_context = object()

    def __init__(self):
        self.scheduled_from = set()

    def add_next_tick_callback(self, callback):
        self.scheduled_from.add(threading.current_thread().name)
        LOOP.call_soon_threadsafe(callback)


def explorer(budget=None):
    return types.SimpleNamespace(closed=threading.Event(), budget_seconds=budget,
                                 memory_bytes=None, loop=LOOP)


@pytest.fixture
def stop_log(caplog, monkeypatch):
    """The lines the jobs log when their page's close stops them (the explorer described
    as a fixed text: these explorers are stand-ins)."""
    import kmeviz_apps._jobs
    monkeypatch.setattr(kmeviz_apps._jobs, "describe", lambda _explorer: "THE PAGE")
    caplog.set_level(logging.INFO, logger="kmeviz.apps")
    return lambda: [r.getMessage() for r in caplog.records
                    if "as its page closed" in r.getMessage()]


def wait_for(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def busy(seconds: float):
    """Work that checks the budget between units, as the engine does between tiles."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        check_budget()
        time.sleep(0.002)


def test_not_served_the_work_runs_at_once_and_shows_every_part():
    shown = []

    def work(emit):
        emit("a")  # from a callback-style computation
        yield "b"
        yield "c"

    Job(explorer()).start(work, lambda p, e: shown.append((p, e)))
    assert shown == [("a", None), ("b", None), ("c", None)]


def test_a_newer_start_cancels_the_older_and_only_its_parts_show():
    shown, owner = [], explorer()
    job = Job(owner)
    started = threading.Event()

    def older(_emit):
        yield "older 1"
        started.set()
        busy(5.0)  # stops at its next check once cancelled
        yield "older 2"

    def newer(_emit):
        yield "newer 1"
        yield "newer 2"

    with set_curdoc(ServedDoc()):
        job.start(older, lambda p, e: shown.append((p, e)))
        assert started.wait(5)
        threads = threading.active_count()
        t0 = time.monotonic()
        job.start(newer, lambda p, e: shown.append((p, e)))
        assert wait_for(lambda: ("newer 2", None) in shown)
    assert ("older 2", None) not in shown and shown[-1] == ("newer 2", None)
    assert all(e is None for _, e in shown)  # the older one's Cancelled is not shown
    assert wait_for(lambda: threading.active_count() < threads)  # its thread ended
    assert time.monotonic() - t0 < 2.0


def test_the_page_close_stops_the_work_and_shows_nothing_more(stop_log):
    shown, owner = [], explorer()
    job = Job(owner)
    progress = []

    def work(_emit):
        for k in range(1000):
            busy(0.01)
            progress.append(k)
            yield k

    with set_curdoc(ServedDoc()):
        job.start(work, lambda p, e: shown.append((p, e)))
        assert wait_for(lambda: len(progress) > 3)
        owner.closed.set()
        job.cancel()  # what Explorer.close does
        count = len(progress)
        time.sleep(0.3)
    assert len(progress) <= count + 1  # stopped within one unit
    assert all(e is None for _, e in shown)
    assert wait_for(lambda: stop_log())  # the server log says why it stopped
    assert len(stop_log()) == 1 and stop_log()[0].endswith(": THE PAGE")


def test_work_that_ended_before_the_close_logs_no_stop(stop_log):
    shown, owner = [], explorer()
    with set_curdoc(ServedDoc()):
        Job(owner).start(lambda _emit: (part for part in (1, 2)), lambda p, e: shown.append(p))
        assert wait_for(lambda: shown and shown[-1] == 2)
    owner.closed.set()
    time.sleep(0.1)
    assert stop_log() == []


def test_the_budget_stops_the_work_with_a_message_and_follows_it_into_to_thread():
    shown = []

    def work(_emit):
        yield "started"
        asyncio.run(asyncio.to_thread(busy, 5.0))  # another thread of the same work

    t0 = time.monotonic()
    with set_curdoc(ServedDoc()):
        Job(explorer(budget=0.3)).start(work, lambda p, e: shown.append((p, e)))
        assert wait_for(lambda: any(e is not None for _, e in shown))
    assert time.monotonic() - t0 < 2.0
    error = [e for _, e in shown if e is not None][0]
    assert isinstance(error, BudgetExceeded) and "0.3 s" in str(error)


def test_every_part_reaches_the_document_from_the_event_loop_only():
    """The job's thread hands parts to the loop (``call_soon_threadsafe``), which shows them
    (or schedules the document's next tick): no document is touched from another thread
    (Bokeh could lose a next-tick callback scheduled from a thread while the page was
    built)."""
    shown, doc = [], ServedDoc()

    def work(_emit):
        yield from range(20)

    shown_in = set()

    def show(part, _error):
        shown_in.add(threading.current_thread().name)
        shown.append(part)

    with set_curdoc(doc):
        Job(explorer()).start(work, show)
        assert wait_for(lambda: shown and shown[-1] == 19)
    assert shown_in == {"event-loop"} and doc.scheduled_from <= {"event-loop"}
    assert shown == sorted(shown) and len(shown) <= 20  # in order; fast parts coalesce


def test_a_job_started_inside_another_computation_runs_under_its_own_budget():
    """A view that starts a grid (the Nyström explorer) hands the grid none of its own
    cancel signal: the view's next computation (which cancels the view's older one) does
    not stop the grid."""
    from kmeviz.budget import time_budget

    shown, view_cancel = [], threading.Event()

    def grid(_emit):
        for k in range(5):
            busy(0.05)
            yield k

    with set_curdoc(ServedDoc()), time_budget(10.0, cancel=view_cancel):
        Job(explorer()).start(grid, lambda p, e: shown.append((p, e)))
        view_cancel.set()  # the view that started it is superseded
        assert wait_for(lambda: (4, None) in shown)
    assert all(e is None for _, e in shown)


def test_the_settings_of_config_context_follow_the_work_into_its_threads():
    """``kmeviz.config_context`` around a start holds in the job's thread and in a thread
    the job hands work to (issue 57: float32 outside, float64 inside before); a job of
    another session, started outside the block, runs with the defaults."""
    import kmeviz as K

    seen = {}

    def work(label):
        def run(_emit):
            seen[label, "job"] = (K.get_config()["dtype"], K.get_config()["tile_rows"])
            seen[label, "to_thread"] = asyncio.run(asyncio.to_thread(
                lambda: K.get_config()["dtype"]))
            yield "done"
        return run

    with set_curdoc(ServedDoc()):
        with K.config_context(dtype="float32", tile_rows=64):
            Job(explorer()).start(work("inside"), lambda p, e: None)
        Job(explorer()).start(work("outside"), lambda p, e: None)
        assert wait_for(lambda: len(seen) == 4)
    assert seen["inside", "job"] == ("float32", 64) and seen["inside", "to_thread"] == "float32"
    assert seen["outside", "job"] == ("float64", 512)
    assert seen["outside", "to_thread"] == "float64"
    assert K.get_config()["dtype"] == "float64"


def test_the_server_settings_follow_the_work_into_its_threads():
    """The server's settings (``_settings.ServerSettings``, one ContextVar: issue 57, no
    module-level server state) hold in a job started under them; a job started outside
    reads the defaults."""
    from kmeviz_apps import _settings

    seen = {}

    def work(label):
        def run(_emit):
            seen[label] = _settings.current().time_budget
            yield "done"
        return run

    with set_curdoc(ServedDoc()):
        with _settings.using(_settings.ServerSettings(time_budget=3.5)):
            Job(explorer()).start(work("inside"), lambda p, e: None)
        Job(explorer()).start(work("outside"), lambda p, e: None)
        assert wait_for(lambda: len(seen) == 2)
    assert seen == {"inside": 3.5, "outside": _settings.DEFAULT.time_budget}
