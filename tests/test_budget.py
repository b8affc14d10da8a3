"""Long computations stop at their time budget, or when cancelled (``kmeviz.budget``):
the engine checks between tiles, the runners between trials."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import kmeviz as K
from kmeviz.budget import BudgetExceeded, Cancelled, check_budget, time_budget

X, Y = K.blobs_two_sample(3000, rng=0)
KERNEL = K.GaussianKernel(1.0)


def test_a_spent_budget_stops_an_engine_pass_within_a_tile():
    with time_budget(0.0), pytest.raises(BudgetExceeded, match="time budget of 0 s"):
        K.mmd_test(X, Y, KERNEL, n_resamples=500, rng=0)
    with K.config_context(n_threads=1), time_budget(0.0), pytest.raises(BudgetExceeded):
        K.mmd2(X, Y, KERNEL)  # the serial path checks too
    with time_budget(60.0):
        assert K.mmd2(X[:200], Y[:200], KERNEL) > 0  # within budget: the value
    check_budget()  # outside any budget: nothing to check


def test_cancel_from_another_thread_stops_the_computation():
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    start = time.perf_counter()
    with time_budget(None, cancel=cancel), pytest.raises(BudgetExceeded, match="cancelled"):
        for _ in range(1000):  # would take minutes
            K.mmd_test(X, Y, KERNEL, n_resamples=200, rng=0)
    assert time.perf_counter() - start < 10


def test_nested_budgets_keep_the_earlier_deadline_and_runners_check_between_trials():
    from kmeviz.experiments.runners import run_trials

    def slow(k):
        time.sleep(0.05)
        return k

    with time_budget(0.1), time_budget(100.0), pytest.raises(BudgetExceeded):
        run_trials(slow, range(100))


def test_a_nested_budget_keeps_the_outer_cancel_signal():
    """compare_tests opens its own budget per test: a closed page still stops it."""
    cancel = threading.Event()
    cancel.set()
    with time_budget(None, cancel=cancel), time_budget(100.0), \
            pytest.raises(BudgetExceeded, match="cancelled"):
        K.mmd_test(X, Y, KERNEL, n_resamples=200, rng=0)
    with time_budget(None, cancel=cancel), pytest.raises(Cancelled):
        K.compare_tests(X[:500], Y[:500], tests=["biased/permutation"], rng=0)


def test_a_served_explorer_stops_at_its_budget_with_a_message():
    from kmeviz_apps.nystrom_error import NystromErrorExplorer

    explorer = NystromErrorExplorer(n=8000, m_max=1500, n_repeats=3, d=10, baselines=[],
                                    seed=7)  # about 0.5 s here, within the grid's 3 s
    explorer.budget_seconds = 0.1  # (0.5 s stopped it at part 10 or 11 of 12, or not at all)
    start = time.perf_counter()
    shown = explorer.error_view()
    assert time.perf_counter() - start < 15
    assert "time budget of 0.1 s" in shown.object
    # the other views of the same state do not spend the budget again: remembered
    start = time.perf_counter()
    assert "time budget of 0.1 s" in explorer.runtime_view().object
    assert time.perf_counter() - start < 1.0
    explorer.closed.set()  # a closed page: its next computation is cancelled at once
    explorer.budget_seconds = None
    assert "cancelled" in explorer.map_view().object
    assert np.isfinite(K.mmd2(X[:50], Y[:50], KERNEL))


@pytest.mark.parametrize("settings", [
    # 4096 Fastfood frequencies, 5000 relabellings: one block of 4000 rows was 11 s of work
    # between two checks here (55.9 s against a 20 s budget in a served page)
    dict(estimator="fastmmd", null="permutation", features="fastfood", n_features=4096),
    dict(estimator="biased", null="permutation"),
], ids=["fastmmd-fastfood", "biased-permutation"])
def test_a_heavy_resampling_test_stops_within_2_s_past_its_budget(settings):
    """The heavy paths of a served link (issue 45, finding 5): n = 2000 per sample, 5000
    relabellings, one thread, a 1 s budget; the overrun is at most one block or tile."""
    X2, Y2 = K.blobs_two_sample(2000, rng=0)
    start = time.perf_counter()
    with K.config_context(n_threads=1), time_budget(1.0), pytest.raises(BudgetExceeded):
        K.mmd_test(X2, Y2, KERNEL, n_resamples=5000, rng=0, **settings)
    overrun = time.perf_counter() - start - 1.0
    assert overrun < 2.0, f"{overrun:.1f} s past the budget"


def test_the_budget_follows_asyncio_to_thread_and_stays_out_of_other_threads():
    """A ContextVar: ``asyncio.to_thread`` carries it (a ``threading.local`` lost it, so a
    dashboard's "Repeat 100 times" once ran unbounded); a plain thread does not see it."""
    import asyncio

    async def spent_budget_in_a_worker():
        with time_budget(0.0):
            await asyncio.to_thread(check_budget)

    with pytest.raises(BudgetExceeded, match="time budget of 0 s"):
        asyncio.run(spent_budget_in_a_worker())
    seen = []
    with time_budget(0.0):
        other = threading.Thread(target=lambda: seen.append(check_budget()))
        other.start()
        other.join()
    assert seen == [None]  # another session's thread runs on
