"""Runners that reproduce the papers' experiments and return tidy DataFrames.

Every runner takes ``rng``, an optional ``progress(done, total)`` callback, which the apps
and notebooks use for progress bars, and an optional ``executor`` (any
``concurrent.futures.Executor``, e.g. a process pool or a dask client's
``get_executor()``) that runs its independent trials in parallel. Each trial draws from
its own child seed (``trial_seeds``), so the tables do not depend on the executor.
"""

from __future__ import annotations

import pickle
import sys
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import partial

import numpy as np
import pandas as pd
from scipy import stats
from tqdm import tqdm

from .._validation import check_in_interval, check_positive_int, check_rng
from ..budget import check_budget
from ..config import config_context
from ..twosample.mmd_tests import mmd_test

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


def trial_seeds(rng, n: int) -> list[np.random.SeedSequence]:
    """n independent child seeds (``SeedSequence.spawn``) of entropy drawn from ``rng``: trial
    k always gets seed k, whichever executor runs it and in whatever order."""
    return np.random.SeedSequence(rng.integers(0, 2**63, size=4)).spawn(n)


def run_trials(trial: Callable, items, *, executor: Executor | None = None,
               progress: Progress = None) -> list:
    """``[trial(item) for item in items]``, on ``executor.map`` if one is given.

    ``executor`` is any ``concurrent.futures.Executor``: a ``ProcessPoolExecutor`` on this
    machine, or a dask cluster's ``Client.get_executor()``. Results come back in the order
    of ``items``; ``progress(done, total)`` is called here, in this process, as they
    arrive; without a callback, a runner called from a terminal (stderr a TTY) draws a
    progress bar there. Under an executor each trial runs the engine in one thread (the
    executor's workers are the parallelism); results do not depend on it.
    """
    items = list(items)
    bar = None
    if progress is None and sys.stderr.isatty():
        bar = tqdm(total=len(items), unit="trial", file=sys.stderr)
        progress = lambda done, total: bar.update(done - bar.n)  # noqa: E731
    if executor is None:
        results = map(trial, items)
    else:
        if not callable(getattr(executor, "map", None)):
            raise TypeError("executor must be a concurrent.futures.Executor (with map), got "
                            f"{type(executor).__name__}")
        if isinstance(executor, ProcessPoolExecutor):
            try:
                pickle.dumps(trial)
            except Exception as exc:
                raise TypeError("a ProcessPoolExecutor sends each trial to another process "
                                "by pickle, and this one cannot be pickled (define samplers "
                                "and tests at module level, or use functools.partial): "
                                f"{exc}") from None
        results = executor.map(partial(_single_threaded, trial), items)
    out = []
    try:
        for result in results:
            check_budget()
            out.append(result)
            if progress is not None:
                progress(len(out), len(items))
    finally:
        if bar is not None:
            bar.close()
    return out


def _single_threaded(trial, item):
    with config_context(n_threads=1):
        return trial(item)


def rejection_rates(sampler: Callable, tests: Mapping[str, Mapping | Callable], *,
                    n_repeats: int, alpha: float = 0.05, level: float = 0.95, rng=None,
                    progress: Progress = None, executor: Executor | None = None
                    ) -> pd.DataFrame:
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
    rng : Generator, int or None
        Draw k (its data and its tests) uses the k-th child of a ``SeedSequence`` drawn
        from ``rng`` (``trial_seeds``).
    executor : concurrent.futures.Executor, optional
        Runs the draws in parallel (``run_trials``); the table is identical to the serial
        one but for ``runtime_s``. With a ``ProcessPoolExecutor``, ``sampler`` and the
        callables in ``tests`` must pickle.

    Returns
    -------
    DataFrame with ``RATE_COLUMNS``, one row per test: label, rejections, repeats, rate,
    its exact interval, mean seconds per test (``runtime_s``).
    """
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    rng = check_rng(rng)
    runs = {label: _as_callable(label, options) for label, options in tests.items()}
    outcomes = run_trials(partial(_rejection_trial, sampler, runs, alpha),
                          trial_seeds(rng, n_repeats), executor=executor, progress=progress)
    rows = []
    for label in tests:
        count = sum(outcome[label][0] for outcome in outcomes)
        seconds = sum(outcome[label][1] for outcome in outcomes)
        lo, hi = binomial_interval(count, n_repeats, level)
        rows.append([label, count, n_repeats, count / n_repeats, lo, hi, seconds / n_repeats])
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


def _rejection_trial(sampler, runs, alpha, seed) -> dict:
    """One draw and every test on it: {label: (rejected, seconds)}."""
    rng = np.random.default_rng(seed)
    data = sampler(rng)
    out = {}
    for label, run in runs.items():
        t0 = time.perf_counter()
        rejected = bool(run(data, alpha=alpha, rng=rng).reject)
        out[label] = (rejected, time.perf_counter() - t0)
    return out


def _as_callable(label, options) -> Callable:
    if callable(options):
        return options
    if not isinstance(options, Mapping):
        raise TypeError(f"tests[{label!r}] must be a dict of mmd_test options or a callable, "
                        f"got {type(options).__name__}")
    return partial(_mmd_test_on, dict(options))


def _mmd_test_on(options, data, *, alpha, rng):
    return mmd_test(*data, alpha=alpha, rng=rng, **options)


def _nested_progress(progress: Progress, outer: int, n_outer: int) -> Progress:
    if progress is None:
        return None
    return lambda done, total: progress(outer * total + done, n_outer * total)
