"""The comparison's budget counts estimates, not the wall clock (issue 56, point 5): a
seeded table is the same on an idle and on a busy machine whenever it fits."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

import kmeviz as K
from kmeviz import compare


def dependent_pair(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, np.sin(X[:, :1]) + X[:, 1:2] ** 2 + rng.normal(size=(n, 1))


def rows(table):
    """What must not change with the load: which tests ran, and their numbers."""
    return [(r.test, None if np.isnan(r.p_value) else r.p_value,
             None if np.isnan(r.statistic) else r.statistic,
             r.note.split(";")[0] if r.note.startswith("not run: estimated") else "")
            for r in table.itertuples()]


def test_the_rows_do_not_depend_on_how_long_the_tests_took(monkeypatch):
    """Every test estimated at 2 s, a 5 s budget: the two cheapest fit (2 + 2 ≤ 5), the
    rest do not, whether each test takes no time or 0.4 s (the wall clock would have
    left 5 − 0.8 s on a busy machine, and 5 s on an idle one)."""
    X, Y = dependent_pair(150)
    monkeypatch.setattr(compare, "estimated_seconds", lambda spec, N, d, B, flops=None: 2.0)
    tests = ["biased/gamma", "biased/spectral", "block/normal", "nystrom/spectral"]
    idle = K.compare_independence(X, Y, tests=tests, rng=3, time_budget=5.0)
    import kmeviz.independence.compare as independence

    original = independence.checked_hsic_test

    def busy(*args, **kwargs):
        time.sleep(0.4)
        return original(*args, **kwargs)

    monkeypatch.setattr(independence, "checked_hsic_test", busy)
    loaded = K.compare_independence(X, Y, tests=tests, rng=3, time_budget=5.0)
    assert rows(loaded) == rows(idle)
    assert idle["p_value"].notna().sum() == 2
    assert idle["note"].str.startswith("not run: estimated 2 s, more than the 1 s left").sum() \
        == 2


def test_a_test_far_past_its_share_is_still_stopped(monkeypatch):
    """The wall clock still bounds a machine that cannot fit the plan: a test that runs
    ``SLOWDOWN_ALLOWED`` times past its share is stopped at the time budget."""
    X, Y = dependent_pair(150)
    monkeypatch.setattr(compare, "estimated_seconds", lambda spec, N, d, B, flops=None: 2.0)
    monkeypatch.setattr(compare, "SLOWDOWN_ALLOWED", 0.05)  # 0.1 s of a 2 s share
    import kmeviz.independence.compare as independence
    from kmeviz.budget import check_budget

    def stuck(*args, **kwargs):
        for _ in range(100):
            time.sleep(0.01)
            check_budget()
        raise AssertionError("never stopped")

    monkeypatch.setattr(independence, "checked_hsic_test", stuck)
    table = K.compare_independence(X, Y, tests=["biased/gamma"], rng=3, time_budget=5.0)
    assert table.note.iloc[0].startswith("stopped after ")


@pytest.fixture
def two_cpu_burners():
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range(2)]
    time.sleep(0.5)
    yield
    for burner in burners:
        burner.kill()
        burner.wait()


@pytest.mark.slow
@pytest.mark.parametrize("n", [442, 2000])
def test_the_same_seeded_table_with_two_cpu_burners_beside_it(n, request):
    """The issue's case: the same seeded ``compare_independence`` (10 s budget) alone and
    with two processes burning both cores."""
    X, Y = dependent_pair(n, seed=n)
    alone = K.compare_independence(X, Y, rng=0)
    request.getfixturevalue("two_cpu_burners")
    busy = K.compare_independence(X, Y, rng=0)
    assert rows(busy) == rows(alone)
