"""Memory as a budget (issue 61, finding 5): inside ``memory_budget(bytes)`` a computation
whose estimate is past it is refused before it starts, naming the settings to lower (a
served page's work runs inside one: ``kmeviz serve --page-memory-mb``, default 256); a
comparison skips such a test with a note; outside a budget nothing changes. The
estimates are checked against tracemalloc's measured peak."""

from __future__ import annotations

import threading
import tracemalloc

import numpy as np
import pytest

import kmeviz as K
from kmeviz.budget import MemoryBudgetExceeded, check_memory, memory_budget, memory_limit

MB = 1024**2


def test_budgets_nest_to_the_smaller_and_follow_copied_contexts():
    import contextvars

    assert memory_limit() is None
    with memory_budget(300 * MB):
        with memory_budget(500 * MB):
            assert memory_limit() == 300 * MB
        with memory_budget(100 * MB):
            assert memory_limit() == 100 * MB
            seen = []
            context = contextvars.copy_context()
            thread = threading.Thread(target=context.run, args=(
                lambda: seen.append(memory_limit()),))
            thread.start()
            thread.join()
            assert seen == [100 * MB]
        with pytest.raises(MemoryBudgetExceeded, match="lower n or B"):
            check_memory(400 * MB, "this test", "n or B")
        check_memory(200 * MB, "this test", "n or B")
    check_memory(10**15, "anything", "n")  # no budget: no refusal
    assert issubclass(MemoryBudgetExceeded, ValueError)  # a dashboard shows its message


def test_the_nystrom_ksd_test_is_refused_past_the_budget_and_its_estimate_holds():
    """m = 1000 landmarks, D = 2000 replicates, n = 3000: estimated before it runs; under a
    budget below the estimate it is refused naming D and m; its measured peak (traced
    allocations of every thread) stays under the estimate."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    target, kernel = K.NormalTarget(np.zeros(2)), K.IMQKernel()
    with memory_budget(64 * MB), pytest.raises(
            MemoryBudgetExceeded, match=r"Nyström KSD test would hold about \d+ MB"):
        K.ksd_test(X, target, kernel, estimator="nystrom", n_landmarks=1000,
                   n_resamples=2000, rng=0)
    estimate = 48.0 * 1000 * 2000 + 56.0 * 1000**2 + 64 * MB
    tracemalloc.start()
    try:
        K.ksd_test(X, target, kernel, estimator="nystrom", n_landmarks=1000,
                   n_resamples=2000, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < estimate, (peak / MB, estimate / MB)


def test_a_comparison_skips_a_test_past_the_budget_with_a_note():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 1))
    Y = X + rng.normal(size=(3000, 1))
    with memory_budget(32 * MB):  # the permutation tests' Grams: about 69 MB
        table = K.compare_independence(X, Y, tests=["biased/permutation", "block/normal"],
                                       rng=0).set_index("test")
    assert table.loc["biased/permutation", "note"].startswith("not run: it would hold about")
    assert "limit 32 MB" in table.loc["biased/permutation", "note"]
    assert np.isfinite(table.loc["block/normal", "p_value"])
    table = K.compare_independence(X, Y, tests=["biased/permutation"], rng=0)
    assert np.isfinite(table["p_value"].iloc[0])  # no budget: it runs


def test_the_stein_page_at_its_heaviest_link_says_what_to_lower():
    """The link of finding 5 (n = 5000, m = 2000, D = 5000) held 1.5 GB; under the served
    page budget (256 MB) it is refused at once with the settings to lower."""
    from kmeviz_apps.stein_explorer import SteinExplorer

    explorer = SteinExplorer()
    explorer.memory_bytes = 256 * MB  # as ``create_app`` sets it for a served page
    explorer.param.update(n=5000, dimension=2, target="Gaussian mixture", n_landmarks=2000,
                          n_resamples=5000)
    shown = explorer.summary_view().object
    assert "cannot be computed" in shown and "Nyström KSD test would hold about" in shown
    assert "n\\_landmarks (m)" in shown  # escaped for Markdown


def test_a_wide_upload_past_the_page_budget_asks_for_fewer_columns():
    """Issue 61, finding 5: a 1000-row table of 9 998 columns took a server to 1.17 GB;
    under the page budget the page asks for fewer columns before any copy is made, and
    with a few chosen it works."""
    from types import SimpleNamespace

    from kmeviz_apps.data_explorer import DataExplorer

    from .test_wide_upload import wide_csv

    explorer = DataExplorer()
    explorer.memory_bytes = 256 * MB
    explorer._comparison.start = lambda *args: None
    explorer._box.receive(SimpleNamespace(new={"wide.csv": wide_csv(3000, rows=1000)}))
    with memory_budget(explorer.memory_bytes):
        shown = explorer.summary_view().object
    assert "rows × 2,999 columns would hold about" in shown and "Find columns" in shown
    explorer.columns = ["c1", "c2", "c3"]
    with memory_budget(explorer.memory_bytes):
        assert explorer.prepared()[0].shape == (500, 3)
