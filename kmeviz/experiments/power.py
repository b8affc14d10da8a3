"""Test power of each way to choose the kernel (issue 42): the median heuristic, a
Gaussian σ and ARD length scales learned by the power criterion on a split (Liu et al.
2020), MMDAgg (Schrab et al. 2023), MMD-FUSE (Biggs et al. 2023) and cross-MMD (Shekhar et
al. 2022), and a kernel learned on all the data (``estimator="selected"``), on the same
draws, on the blob grid (where the median heuristic fails: FastMMD Sec. 4.1) and on d = 10
problems where two coordinates differ (where ARD helps).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_choice, check_positive_int, check_rng
from ..distributions.datasets import blobs_two_sample, two_coordinates_two_sample
from ..kernels import median_heuristic
from ..kernels.learned import ARDGaussianKernel
from ..registry import MMD_TESTS
from ..twosample.mmd_tests import mmd_test
from .runners import Progress, binomial_interval, run_trials, trial_seeds

#: the problems and what their parameter means
PROBLEMS = {"blobs": "blob grid, eigenvalue ratio ε of Q's blobs (FastMMD Sec. 4.1)",
            "two coordinates": "d = 10 normals, Q's first two coordinates correlated (ρ)",
            "two scales": "d = 10 normals, Q's first two coordinates scaled by s",
            "shift": "d = 10 normals, Q shifted by δ in every coordinate"}
#: each kernel choice: the mmd_test options (the ARD start is filled in per draw)
METHODS = {"median heuristic": {"estimator": "unbiased"},
           "learned (all data)": {"estimator": "selected"},
           "learned σ (split)": {"estimator": "split"},
           "learned ARD (split)": {"estimator": "split", "ard": True},
           "MMDAgg": {"estimator": "mmdagg"},
           "MMDAggInc": {"estimator": "mmdagginc"},
           "MMD-FUSE": {"estimator": "mmdfuse"},
           "cross-MMD": {"estimator": "cross"}}


#: the columns of ``rate_table``
RATE_TABLE_COLUMNS = ("test", "rejections", "repeats", "rate", "ci_low", "ci_high")


def rate_table(rejections: dict, draws: int, level: float = 0.95) -> pd.DataFrame:
    """Rates and Clopper–Pearson intervals of {test: rejections} over ``draws`` draws."""
    rows = []
    for test, k in rejections.items():
        lo, hi = binomial_interval(int(k), draws, level)
        rows.append(dict(zip(RATE_TABLE_COLUMNS, (test, int(k), draws, k / draws, lo, hi),
                             strict=True)))
    return pd.DataFrame(rows, columns=list(RATE_TABLE_COLUMNS))


def power_problem(problem: str, n: int, parameter: float, rng):
    """One draw (X, Y) of ``problem`` (``PROBLEMS``), n points each."""
    if problem == "blobs":
        return blobs_two_sample(n, epsilon=parameter, rng=rng)
    if problem == "two scales":
        return two_coordinates_two_sample(n, correlation=0.0, scale=parameter, rng=rng)
    if problem == "shift":  # the median heuristic's own ground: every coordinate differs
        X, Y = two_coordinates_two_sample(n, correlation=0.0, rng=rng)
        return X, Y + parameter
    return two_coordinates_two_sample(n, correlation=parameter, rng=rng)


def kernel_choice_test(method: str, X, Y, *, n_resamples: int, alpha: float,
                       train_fraction: float, rng):
    """The ``TestResult`` of one of ``METHODS`` on (X, Y)."""
    options = dict(METHODS[method])
    kernel = None
    if options.pop("ard", False):
        kernel = ARDGaussianKernel((median_heuristic(X, Y, rng=0),) * X.shape[1])
    if MMD_TESTS.get(options["estimator"]).takes("train_fraction"):  # its own option
        options["train_fraction"] = train_fraction
    return mmd_test(X, Y, kernel, n_resamples=n_resamples, alpha=alpha, rng=rng, **options)


def _trial(problem, parameter, methods, B, alpha, fraction, item):
    n, seed = item
    rng = np.random.default_rng(seed)
    X, Y = power_problem(problem, n, parameter, rng)
    return n, {m: kernel_choice_test(m, X, Y, n_resamples=B, alpha=alpha,
                                     train_fraction=fraction, rng=rng).reject
               for m in methods}


def kernel_choice_power_table(problem: str = "two coordinates", parameter: float = 0.5, *,
                              sizes=(500, 1000, 2000), n_repeats: int = 100,
                              methods=tuple(METHODS), n_resamples: int = 200,
                              alpha: float = 0.05, train_fraction: float = 0.5,
                              level: float = 0.95, rng=None, progress: Progress = None,
                              executor=None) -> pd.DataFrame:
    """Power of every kernel choice of ``methods`` on the same draws of ``problem`` at each
    sample size, with Clopper–Pearson intervals.

    Parameters
    ----------
    problem : {"blobs", "two coordinates", "two scales", "shift"}
    parameter : float
        ε of the blob grid, ρ of the two-coordinate problem, s of the two-scale one, δ
        of the shift.
    sizes : sequence of int
        n per sample.
    n_repeats, n_resamples : int
        Draws per size; B of every resampling test (B1 = B2 = B for MMDAgg).
    methods : sequence of str
        Keys of ``METHODS``.
    alpha, train_fraction, level : float
        Test level, the split tests' training share, the intervals' confidence.
    rng, progress, executor : as every runner (``kmeviz.experiments.runners``)

    Returns
    -------
    DataFrame
        n, test, rejections, repeats, rate, ci_low, ci_high.
    """
    check_choice(problem, "problem", tuple(PROBLEMS))
    for method in methods:
        check_choice(method, "methods", tuple(METHODS))
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    rng = check_rng(rng)
    items = [(check_positive_int(n, "sizes"), seed) for n in sizes
             for seed in trial_seeds(rng, n_repeats)]
    trials = run_trials(partial(_trial, problem, float(parameter), tuple(methods),
                                n_resamples, alpha, train_fraction), items,
                        executor=executor, progress=progress)
    frames = []
    for n in dict.fromkeys(n for n, _ in items):
        outcomes = pd.DataFrame([r for size, r in trials if size == n])
        frames.append(rate_table(outcomes.sum().to_dict(), n_repeats, level).assign(n=n))
    df = pd.concat(frames, ignore_index=True)[["n", *RATE_TABLE_COLUMNS]]
    df.attrs["problem"] = f"{PROBLEMS[problem]} = {parameter:g}"
    return df
