"""Nyström kernel mean embedding experiments (Chatalic et al. 2022): the paper's Gaussian
mixture and Fig. 1, the exact error vs the number of landmarks."""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_positive_int, check_rng
from ..distributions.mixture import GaussianMixture
from ..embeddings.baselines import (
    GreedyDeterminantKME,
    KernelHerding,
    RandomFeatureKME,
    UniformSubsampleKME,
)
from ..embeddings.kme import EmpiricalKME, NystromKME
from ..experiments.runners import Progress, run_trials, trial_seeds
from ..kernels import GaussianKernel, median_heuristic


def paper_mixture(*, d: int = 10, n_centres: int = 8, spread: float = 5.0, rng=None):
    """Chatalic et al. Sec. 6.1: centres ~ N(0, spread·I_d), unit variances, equal weights."""
    rng = check_rng(rng)
    means = rng.normal(0.0, np.sqrt(spread), size=(n_centres, d))
    return GaussianMixture(means, np.ones(n_centres), np.full(n_centres, 1.0 / n_centres))


def nystrom_error_vs_m(ns=(1_000, 10_000), ms=None, *, d: int = 10, n_centres: int = 8,
                       spread: float = 5.0, n_repeats: int | None = None,
                       baselines=("uniform",), nystrom: bool = True,
                       replace: bool = True, mixture=None,
                       bandwidth: float | None = None, rng=None, progress: Progress = None,
                       executor=None) -> pd.DataFrame:
    """Chatalic et al. Fig. 1: exact embedding error of Nyström and empirical KMEs vs m.

    Data: the Gaussian mixture of ``paper_mixture``; Gaussian kernel with bandwidth the
    median inter-point distance of 1000 points. Errors are exact (App. G closed form).
    Returns one row per (n, m, estimator) with mean_error, its 5% and 95% percentiles
    (p05, p95) over ``n_repeats`` draws (default 10),
    runtime_s (mean fit time) and repeats; the empirical estimator appears with m = n.
    ``baselines`` adds estimators of ``ESTIMATORS``; ``nystrom=False`` leaves Nyström
    out (a run of baselines alone; the same seed draws the same mixture, bandwidth and
    samples). ``mixture`` and ``bandwidth`` override the defaults (the apps pass theirs). Each
    (n, draw) is one trial with its own seed (``run_trials``; ``executor`` runs them in
    parallel with the same table but for runtime_s).
    """
    n_repeats = check_positive_int(
        10 if n_repeats is None else n_repeats, "n_repeats")
    rng = check_rng(rng)
    if mixture is None:
        mixture = paper_mixture(d=d, n_centres=n_centres, spread=spread, rng=rng)
    if bandwidth is None:
        bandwidth = median_heuristic(mixture.sample(1000, rng=rng), rng=rng)
    kernel = GaussianKernel(bandwidth)
    chosen = (*(["nystrom"] if nystrom else []),
              *[b for b in baselines if b in ESTIMATORS and b != "nystrom"])
    trials = run_trials(partial(_error_trial, mixture, kernel, chosen, replace),
                        _trial_items(ns, ms, n_repeats, rng), executor=executor,
                        progress=progress)
    out = _error_summary(trials, runtime_s=("runtime_s", "mean"))
    out.attrs["bandwidth"] = kernel.bandwidth
    return out


def _trial_items(ns, ms, n_repeats: int, rng) -> list[tuple]:
    """(n, grid of m, seed) for each n and draw; the default grid is 12 values of m from 4
    to min(n, 4000), geometrically spaced."""
    return [(int(n), ms if ms is not None
             else np.unique(np.geomspace(4, min(n, 4000), 12).astype(int)), seed)
            for n in ns for seed in trial_seeds(rng, n_repeats)]


def _error_summary(trials, **extra) -> pd.DataFrame:
    """Per (n, estimator, m): mean error, its 5 % and 95 % quantiles over the draws, the
    number of draws, and any ``extra`` aggregations."""
    raw = pd.DataFrame([record for records in trials for record in records])
    return raw.groupby(["n", "estimator", "m"], as_index=False).agg(
        mean_error=("error", "mean"), p05=("error", lambda e: np.quantile(e, 0.05)),
        p95=("error", lambda e: np.quantile(e, 0.95)), **extra, repeats=("error", "size"))


#: The estimators ``nystrom_error_vs_m`` compares (``baselines`` picks among them).
ESTIMATORS = ("nystrom", "uniform", "herding", "greedy-det", "rff")


def _make_estimator(name, kernel, m, replace, rng):
    if name == "nystrom":
        return NystromKME(kernel, m, replace=replace, rng=rng)
    if name == "uniform":
        return UniformSubsampleKME(kernel, m, rng=rng)
    if name == "herding":
        return KernelHerding(kernel, m, rng=rng)
    if name == "greedy-det":
        return GreedyDeterminantKME(kernel, m)
    return RandomFeatureKME(kernel, m, rng=rng)


def _error_trial(mixture, kernel, chosen, replace, item) -> list[dict]:
    """One draw of n points: the exact error of the empirical KME and of every estimator
    at every m of the grid."""
    n, grid, seed = item
    rng = np.random.default_rng(seed)
    X = mixture.sample(n, rng=rng)
    records = [empirical_record(mixture, kernel, X)]
    for m in grid:
        records += errors_at_m(mixture, kernel, X, int(m), chosen, replace, rng)
    return records


def empirical_record(mixture, kernel, X) -> dict:
    """The record of the empirical KME of X (m = n): its exact error and fit seconds."""
    t0 = time.perf_counter()
    emp = EmpiricalKME(kernel).fit(X)
    seconds = time.perf_counter() - t0  # fit only, as for the others
    return {"n": X.shape[0], "m": X.shape[0], "estimator": "empirical",
            "error": mixture.error_of(emp), "runtime_s": seconds}


def errors_at_m(mixture, kernel, X, m: int, estimators, replace: bool, rng) -> list[dict]:
    """One record (n, m, estimator, exact error, fit seconds) per estimator fitted on X with
    m landmarks (or features), drawing from ``rng`` in the order of ``estimators``: one
    point of Chatalic et al. Fig. 1 (the explorers compute the grid one m at a time)."""
    records = []
    for name in estimators:
        t0 = time.perf_counter()
        est = _make_estimator(name, kernel, m, replace, rng).fit(X)
        seconds = time.perf_counter() - t0
        records.append({"n": X.shape[0], "m": m, "estimator": name,
                        "error": mixture.error_of(est), "runtime_s": seconds})
    return records


def error_summary(records) -> pd.DataFrame:
    """``nystrom_error_vs_m``'s table (mean error, 5 % and 95 % quantiles, mean fit time and
    number of draws per n, estimator and m) of a list of ``errors_at_m`` records."""
    return _error_summary([records], runtime_s=("runtime_s", "mean"))


def nystrom_mmd_error_vs_m(ns=(1_000, 10_000), ms=None, *, d: int = 10, shift: float = 1.0,
                           n_repeats: int = 10, rng=None, progress: Progress = None,
                           executor=None) -> pd.DataFrame:
    """The MMD-error curves of Chatalic et al. Sec. 6.1 ("the error of the MMD estimation
    has exactly the same behavior") and Thm 5.1: the absolute error of the Nyström MMD vs m.

    ρ₁ is ``paper_mixture`` and ρ₂ the same mixture shifted by ``shift`` along the first
    axis; the exact MMD comes from App. G's closed form (``GaussianMixture.inner``). The
    Nyström estimate is ||P₁μ̂(ρ₁) - P₂μ̂(ρ₂)|| with m landmarks drawn from each sample
    (Sec. 5); the empirical MMD (m = n) is the reference. Columns: n, estimator, m,
    mean_error, p05, p95, repeats; ``attrs`` hold the exact ``mmd``, the two ``mixtures``
    and the kernel ``bandwidth``.
    """
    rng = check_rng(rng)
    first = paper_mixture(d=d, rng=rng)
    offset = np.zeros(d)
    offset[0] = shift
    second = GaussianMixture(first.means + offset, first.variances, first.weights)
    kernel = GaussianKernel(median_heuristic(first.sample(1000, rng=rng), rng=rng))
    exact = float(np.sqrt(max(first.squared_norm(kernel) + second.squared_norm(kernel)
                              - 2.0 * first.inner(second, kernel), 0.0)))
    items = _trial_items(ns, ms, check_positive_int(n_repeats, "n_repeats"), rng)
    trials = run_trials(partial(_mmd_error_trial, first, second, kernel, exact), items,
                        executor=executor, progress=progress)
    out = _error_summary(trials)
    out.attrs.update(mmd=exact, mixtures=(first, second), bandwidth=kernel.bandwidth)
    return out


def _mmd_error_trial(first, second, kernel, exact, item) -> list[dict]:
    n, grid, seed = item
    rng = np.random.default_rng(seed)
    X, Y = first.sample(n, rng=rng), second.sample(n, rng=rng)
    empirical = EmpiricalKME(kernel).fit(X).distance(EmpiricalKME(kernel).fit(Y))
    records = [{"n": n, "m": n, "estimator": "empirical", "error": abs(empirical - exact)}]
    for m in grid:
        a = NystromKME(kernel, int(m), rng=rng).fit(X)
        b = NystromKME(kernel, int(m), rng=rng).fit(Y)
        records.append({"n": n, "m": int(m), "estimator": "nystrom",
                        "error": abs(a.distance(b) - exact)})
    return records
