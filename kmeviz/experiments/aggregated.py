"""Choosing the kernel (MMDAgg, Schrab et al. 2023): power against ε of the
median-heuristic test, of every single Gaussian bandwidth of a grid (the best in hindsight
among them), and of MMDAgg, on FastMMD's blob grid and ring data.

Every single-bandwidth test and the median heuristic's come from one aggregated pass over
a collection of Gaussian kernels: kernel λ's own p-value p_λ (its B1 simulated values and
the observed one) is its single test, rejecting when p_λ ≤ α.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_choice, check_positive_int, check_rng
from ..distributions.datasets import blobs_two_sample, rings_two_sample
from ..kernels import GaussianKernel, median_heuristic
from ..kernels.collection import KernelCollection, mmdagg_kernels
from ..twosample.mmd_tests import mmd_test
from .runners import Progress, binomial_interval, run_trials, trial_seeds

#: The single Gaussian bandwidths σ compared (log-spaced over the blob and ring scales).
SIGMA_GRID = tuple(float(s) for s in np.geomspace(0.1, 30.0, 13))
#: The data sets and the meaning of ε.
DATA = {"blobs": "eigenvalue ratio ε of Q's blobs (FastMMD Sec. 4.1, 5 × 5 grid)",
        "rings": "fraction ε of Q's points outside the ring 1 ≤ |x|² ≤ 16 (FastMMD Sec. 4.2)"}
#: The MMDAgg variants: the authors' bandwidth rule, and its λ_min at the 1 % quantile.
AGGREGATED = {"MMDAgg": 0.05, "MMDAgg (λ_min at 1 % quantile)": 0.01}


def kernel_choice_samples(data: str, n: int, epsilon: float, rng):
    """One draw (X, Y) of ``data`` at ε (see ``DATA``), n points each."""
    if data == "blobs":
        return blobs_two_sample(n, epsilon=epsilon, rng=rng)
    inside, outside = rings_two_sample(2 * n, n, rng=rng)  # n for X, n for Y's inside
    Y = np.where(rng.random(n)[:, None] < epsilon, outside, inside[n:])
    return inside[:n], Y


def _trial(data, n, sigmas, B, alpha, item):
    epsilon, seed = item
    rng = np.random.default_rng(seed)
    X, Y = kernel_choice_samples(data, n, epsilon, rng)
    singles = KernelCollection([GaussianKernel(s) for s in sigmas]
                               + [GaussianKernel(median_heuristic(X, Y))])
    table = mmd_test(X, Y, singles, estimator="mmdagg", n_resamples=B, alpha=alpha,
                     rng=rng).fitted["kernels"]
    rejects = {f"σ = {s:.3g}": p <= alpha for s, p in zip(sigmas, table.p_value.iloc[:-1],
                                                            strict=True)}
    rejects["median heuristic"] = table.p_value.iloc[-1] <= alpha
    for label, quantile in AGGREGATED.items():
        rejects[label] = mmd_test(X, Y, mmdagg_kernels(X, Y, low_quantile=quantile),
                                  estimator="mmdagg", n_resamples=B, alpha=alpha,
                                  rng=rng).reject
    return epsilon, rejects


def kernel_choice_power(data: str = "blobs", epsilons=(1.6, 2.0, 2.5, 3.0), *, n: int = 500,
                        n_repeats: int = 200, sigmas=SIGMA_GRID, n_resamples: int = 2000,
                        alpha: float = 0.05, level: float = 0.95, rng=None,
                        progress: Progress = None, executor=None) -> pd.DataFrame:
    """Power against ε (``DATA``) of the median-heuristic test, every single Gaussian σ of
    ``sigmas``, the best of those in hindsight and MMDAgg (both ``AGGREGATED`` rules),
    all on the same draws (n per sample; B1 = B2 = ``n_resamples``, the authors' 2000).

    Parameters
    ----------
    data : {"blobs", "rings"}
    epsilons : sequence of float
    n, n_repeats, n_resamples : int
    sigmas : sequence of float
    alpha, level : float
        Test level; confidence of the Clopper–Pearson interval.
    rng, progress, executor : as every runner (``kmeviz.experiments.runners``)

    Returns
    -------
    DataFrame
        epsilon, test, kind ("single σ", "median heuristic", "best σ in hindsight",
        "aggregated"), sigma, rejections, repeats, rate, ci_low, ci_high.
    """
    check_choice(data, "data", tuple(DATA))
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    rng = check_rng(rng)
    items = [(float(e), seed) for e in epsilons for seed in trial_seeds(rng, n_repeats)]
    trials = run_trials(partial(_trial, data, check_positive_int(n, "n"),
                                tuple(float(s) for s in sigmas), n_resamples, alpha), items,
                        executor=executor, progress=progress)
    rows = []
    for epsilon in dict.fromkeys(e for e, _ in items):
        outcomes = pd.DataFrame([r for e, r in trials if e == epsilon])
        for test, column in outcomes.items():
            k = int(column.sum())
            single = test.startswith("σ = ")
            kind = ("single σ" if single else "median heuristic"
                    if test == "median heuristic" else "aggregated")
            rows.append({"epsilon": epsilon, "test": test, "kind": kind,
                         "sigma": float(test[4:]) if single else np.nan, "rejections": k,
                         "repeats": n_repeats, "rate": k / n_repeats,
                         **dict(zip(("ci_low", "ci_high"),
                                    binomial_interval(k, n_repeats, level), strict=True))})
        best = max((r for r in rows if r["epsilon"] == epsilon and r["kind"] == "single σ"),
                   key=lambda r: r["rate"])
        rows.append({**best, "test": "best σ in hindsight", "kind": "best σ in hindsight"})
    df = pd.DataFrame(rows)
    df.attrs["data"] = DATA[data]
    return df
