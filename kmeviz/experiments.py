"""Runners that reproduce the papers' experiments and return tidy DataFrames.

Every runner takes ``rng`` and an optional ``progress(done, total)`` callback, which
the apps and notebooks use for progress bars.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
from scipy import stats

from ._validation import check_in_interval, check_positive_int, check_rng
from .bootstrap import mmd_test
from .datasets import blobs_two_sample
from .kernels import GaussianKernel
from .results import renamed_argument

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


def fastmmd_type2_vs_L(Ls=(1, 2, 4, 8, 16, 32, 64, 128), *, n: int = 1000,
                       epsilon: float = 4.0, n_trials: int = 100,
                       n_resamples: int | None = None, rng=None, progress: Progress = None,
                       n_permutations: int | None = None) -> pd.DataFrame:
    """FastMMD Fig. 8a: type-II error of FastMMD-Fourier + bootstrap vs L (blobs, ε = 4).

    Gaussian kernel σ = 1, α = 0.05, B = ``n_resamples`` (default 1000); returns L,
    type2_error, its interval, runtime.
    """
    B = renamed_argument("n_permutations", n_permutations, "n_resamples", n_resamples, 1000)
    rng = check_rng(rng)
    tests = {f"L={L}": {"kernel": GaussianKernel(1.0), "estimator": "fastmmd-fourier",
                        "null": "permutation", "n_features": int(L),
                        "n_resamples": B} for L in Ls}
    df = rejection_rates(lambda g: blobs_two_sample(n, epsilon=epsilon, rng=g), tests,
                         n_repeats=n_trials, rng=rng, progress=progress)
    df.insert(0, "L", [int(L) for L in Ls])
    return _as_type2(df)


def _as_type2(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(type2_error=1.0 - df["rate"], type2_ci_low=1.0 - df["ci_high"],
                   type2_ci_high=1.0 - df["ci_low"])
    return df.drop(columns=["rate", "ci_low", "ci_high"])


FIG8B_TESTS = {
    "Bootstrap (exact MMD_b)": {"estimator": "biased", "null": "permutation"},
    "Gamma": {"estimator": "biased", "null": "gamma"},
    "Spectrum": {"estimator": "biased", "null": "spectral"},
    "FastMMD-Fourier + bootstrap": {"estimator": "fastmmd-fourier", "null": "permutation"},
}


def type2_vs_epsilon(epsilons=(1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6, 2.8, 3.0), *,
                     n: int = 1000, n_features: int = 256, n_trials: int = 100,
                     n_resamples: int | None = None, rng=None, progress: Progress = None,
                     n_permutations: int | None = None) -> pd.DataFrame:
    """FastMMD Fig. 8b: type-II error vs ε for the permutation, Gamma, spectral and FastMMD tests.

    Gaussian kernel σ = 1, L = 256, α = 0.05. Tidy: one row per (ε, test) with the
    mean runtime per test. B = ``n_resamples`` (default 1000).
    """
    B = renamed_argument("n_permutations", n_permutations, "n_resamples", n_resamples, 1000)
    rng = check_rng(rng)
    tests = {label: {"kernel": GaussianKernel(1.0), "n_resamples": B,
                     "n_features": n_features, **opts} for label, opts in FIG8B_TESTS.items()}
    frames = []
    for i, eps in enumerate(epsilons):
        df = rejection_rates(lambda g, e=eps: blobs_two_sample(n, epsilon=e, rng=g), tests,
                             n_repeats=n_trials, rng=rng,
                             progress=_nested_progress(progress, i, len(epsilons)))
        df.insert(0, "epsilon", float(eps))
        frames.append(df)
    return _as_type2(pd.concat(frames, ignore_index=True))


def null_sampler(n: int, m: int | None = None, *, data: str = "normal") -> Callable:
    """A sampler of two samples from the same law: N(0, I₂) or the round blob grid."""
    m = n if m is None else m
    if data == "blobs":
        return lambda g: blobs_two_sample(n, m, epsilon=1.0, rng=g)
    return lambda g: (g.standard_normal((n, 2)), g.standard_normal((m, 2)))


def size_table(*, n: int = 200, m: int | None = None, n_repeats: int = 500,
               n_resamples: int | None = None, alpha: float = 0.05, level: float = 0.99,
               data: str = "normal", bandwidth: float = 1.0, pairs=None, rng=None,
               progress: Progress = None, n_permutations: int | None = None) -> pd.DataFrame:
    """Type-I error of every valid estimator/null pair over ``n_repeats`` null draws.

    Data: P = Q = N(0, I₂) (or the round blob grid with ``data="blobs"``), Gaussian
    kernel. B = 199 makes the permutation tests exact at α = 0.05 (α (B + 1) is an
    integer); the Gamma, spectral and normal nulls are asymptotic approximations.
    ``n_resamples`` is B (default 199).
    """
    from .bootstrap import VALID_NULLS

    B = renamed_argument("n_permutations", n_permutations, "n_resamples", n_resamples, 199)
    pairs = pairs or [(e, nl) for e, ns in VALID_NULLS.items() for nl in ns]
    tests = {f"{e} / {nl}": {"kernel": GaussianKernel(bandwidth), "estimator": e, "null": nl,
                             "n_resamples": B} for e, nl in pairs}
    df = rejection_rates(null_sampler(n, m, data=data), tests, n_repeats=n_repeats,
                         alpha=alpha, level=level, rng=rng, progress=progress)
    df["within_interval"] = (df["ci_low"] <= alpha) & (alpha <= df["ci_high"])
    return df



def paper_mixture(*, d: int = 10, n_centres: int = 8, spread: float = 5.0, rng=None):
    """Chatalic et al. Sec. 6.1: centres ~ N(0, spread·I_d), unit variances, equal weights."""
    from .embedding import GaussianMixture

    rng = check_rng(rng)
    means = rng.normal(0.0, np.sqrt(spread), size=(n_centres, d))
    return GaussianMixture(means, np.ones(n_centres), np.full(n_centres, 1.0 / n_centres))


def nystrom_error_vs_m(ns=(1_000, 10_000), ms=None, *, d: int = 10, n_centres: int = 8,
                       spread: float = 5.0, n_trials: int = 10, baselines=("uniform",),
                       replace: bool = True, mixture=None, bandwidth: float | None = None,
                       rng=None, progress: Progress = None) -> pd.DataFrame:
    """Chatalic et al. Fig. 1: exact embedding error of Nyström and empirical KMEs vs m.

    Data: the Gaussian mixture of ``paper_mixture``; Gaussian kernel with bandwidth the
    median inter-point distance of 1000 points. Errors are exact (App. G closed form).
    Returns one row per (n, m, estimator) with mean, 5% and 95% percentiles over trials
    and the mean fit time; the empirical estimator appears with m = n. ``mixture`` and
    ``bandwidth`` override the defaults (the apps pass their own).
    """
    from .embedding import (
        EmpiricalKME,
        KernelHerding,
        NystromKME,
        RandomFeatureKME,
        UniformSubsampleKME,
    )
    from .kernels import median_heuristic

    rng = check_rng(rng)
    if mixture is None:
        mixture = paper_mixture(d=d, n_centres=n_centres, spread=spread, rng=rng)
    if bandwidth is None:
        bandwidth = median_heuristic(mixture.sample(1000, rng=rng), rng=rng)
    kernel = GaussianKernel(bandwidth)
    makers = {"nystrom": lambda m: NystromKME(kernel, m, replace=replace, rng=rng),
              "uniform": lambda m: UniformSubsampleKME(kernel, m, rng=rng),
              "herding": lambda m: KernelHerding(kernel, m, rng=rng),
              "rff": lambda m: RandomFeatureKME(kernel, m, rng=rng)}
    chosen = ["nystrom", *[b for b in baselines if b in makers and b != "nystrom"]]
    records = []
    steps, done = len(ns) * n_trials, 0
    for n in ns:
        grid = ms if ms is not None else np.unique(np.geomspace(4, min(n, 4000), 12).astype(int))
        for _ in range(n_trials):
            X = mixture.sample(int(n), rng=rng)
            t0 = time.perf_counter()
            emp = EmpiricalKME(kernel).fit(X)
            seconds = time.perf_counter() - t0  # fit only, as for the others
            records.append({"n": n, "m": n, "estimator": "empirical",
                            "error": mixture.error_of(emp), "seconds": seconds})
            for m in grid:
                for name in chosen:
                    t0 = time.perf_counter()
                    est = makers[name](int(m)).fit(X)
                    seconds = time.perf_counter() - t0
                    records.append({"n": n, "m": int(m), "estimator": name,
                                    "error": mixture.error_of(est), "seconds": seconds})
            done += 1
            if progress is not None:
                progress(done, steps)
    raw = pd.DataFrame(records)
    out = raw.groupby(["n", "estimator", "m"], as_index=False).agg(
        mean_error=("error", "mean"), p05=("error", lambda e: np.quantile(e, 0.05)),
        p95=("error", lambda e: np.quantile(e, 0.95)), seconds=("seconds", "mean"),
        trials=("error", "size"))
    out.attrs["bandwidth"] = kernel.bandwidth
    return out
