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


#: The columns of every rejection-rate table (the runners may prepend their parameters).
RATE_COLUMNS = ["test", "rejections", "repeats", "rate", "ci_low", "ci_high", "runtime_s"]


def rejection_rates(sampler: Callable, tests: Mapping[str, Mapping | Callable], *,
                    n_repeats: int, alpha: float = 0.05, level: float = 0.95, rng=None,
                    progress: Progress = None) -> pd.DataFrame:
    """Rejection rate of each test configuration over repeated data draws.

    Under H0 the rate is the size (type-I error), under H1 the power. All tests see
    the same draws, so their rates are paired. Every runner of kmeviz that reports
    rejection rates (two-sample and goodness-of-fit) goes through this function.

    Parameters
    ----------
    sampler : callable rng -> data
        One draw of the data: ``(X, Y)`` for the two-sample tests.
    tests : {label: options}
        ``options`` are keyword arguments of ``mmd_test`` (must include ``kernel``), run
        as ``mmd_test(X, Y, **options)``; or a callable ``(data, *, alpha, rng)`` that
        returns a ``TestResult`` (any other test, e.g. a ``ksd_test``).
    n_repeats : int
    alpha, level : float
        Test level, and the confidence level of the Clopper–Pearson interval.

    Returns
    -------
    DataFrame with ``RATE_COLUMNS``, one row per test: label, rejections, repeats, rate,
    its exact interval, mean seconds per test (``runtime_s``).
    """
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    rng = check_rng(rng)
    runs = {label: _as_callable(label, options) for label, options in tests.items()}
    counts = dict.fromkeys(tests, 0)
    runtime = dict.fromkeys(tests, 0.0)
    for r in range(n_repeats):
        data = sampler(rng)
        for label, run in runs.items():
            t0 = time.perf_counter()
            counts[label] += bool(run(data, alpha=alpha, rng=rng).reject)
            runtime[label] += time.perf_counter() - t0
        if progress is not None:
            progress(r + 1, n_repeats)
    rows = []
    for label in tests:
        lo, hi = binomial_interval(counts[label], n_repeats, level)
        rows.append([label, counts[label], n_repeats, counts[label] / n_repeats, lo, hi,
                     runtime[label] / n_repeats])
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


def _as_callable(label, options) -> Callable:
    if callable(options):
        return options
    if not isinstance(options, Mapping):
        raise TypeError(f"tests[{label!r}] must be a dict of mmd_test options or a callable, "
                        f"got {type(options).__name__}")
    return lambda data, *, alpha, rng: mmd_test(*data, alpha=alpha, rng=rng, **options)


def _nested_progress(progress: Progress, outer: int, n_outer: int) -> Progress:
    if progress is None:
        return None
    return lambda done, total: progress(outer * total + done, n_outer * total)
