"""Runners that reproduce the papers' experiments and return tidy DataFrames.

Every runner takes ``rng`` and an optional ``progress(done, total)`` callback, which
the apps and notebooks use for progress bars.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import pandas as pd
from scipy import stats

from .._validation import check_in_interval, check_positive_int, check_rng
from ..twosample.test import mmd_test

Progress = Callable[[int, int], None] | None


def binomial_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) confidence interval for a binomial proportion k/n."""
    level = check_in_interval(level, "level", 0.0, 1.0)
    a = 1.0 - level
    lo = 0.0 if k == 0 else stats.beta.ppf(a / 2, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - a / 2, k + 1, n - k)
    return float(lo), float(hi)


def rejection_rates(sampler: Callable, tests: Mapping[str, Mapping], *, n_repeats: int,
                    alpha: float = 0.05, level: float = 0.95, rng=None,
                    progress: Progress = None) -> pd.DataFrame:
    """Rejection rate of each test configuration over repeated data draws.

    Under H0 the rate is the size (type-I error), under H1 the power. All tests see
    the same draws, so their rates are paired.

    Parameters
    ----------
    sampler : callable rng -> (X, Y)
    tests : {label: keyword arguments of ``mmd_test`` (must include ``kernel``)}
    n_repeats : int
    alpha, level : float
        Test level, and the confidence level of the Clopper–Pearson interval.

    Returns
    -------
    DataFrame with one row per test: rejections, repeats, rate, ci_low, ci_high,
    mean runtime (s).
    """
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    rng = check_rng(rng)
    counts = dict.fromkeys(tests, 0)
    runtime = dict.fromkeys(tests, 0.0)
    for r in range(n_repeats):
        X, Y = sampler(rng)
        for label, options in tests.items():
            t0 = time.perf_counter()
            counts[label] += mmd_test(X, Y, alpha=alpha, rng=rng, **options).reject
            runtime[label] += time.perf_counter() - t0
        if progress is not None:
            progress(r + 1, n_repeats)
    rows = []
    for label in tests:
        lo, hi = binomial_interval(counts[label], n_repeats, level)
        rows.append({"test": label, "rejections": counts[label], "repeats": n_repeats,
                     "rate": counts[label] / n_repeats, "ci_low": lo, "ci_high": hi,
                     "runtime_s": runtime[label] / n_repeats})
    return pd.DataFrame(rows)


def _nested_progress(progress: Progress, outer: int, n_outer: int) -> Progress:
    if progress is None:
        return None
    return lambda done, total: progress(outer * total + done, n_outer * total)
