"""FastMMD (Zhao & Meng) experiments: Fig. 8a (power vs L), Fig. 8b (type-II error vs ε)
and type-I error tables of every estimator/null pair."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_rng
from ..distributions.datasets import blobs_two_sample, rings_two_sample
from ..experiments.runners import (
    Progress,
    _nested_progress,
    rejection_rates,
    run_trials,
    trial_seeds,
)
from ..kernels import GaussianKernel
from ..registry import MMD_TESTS
from ..twosample.mmd import FASTMMD_FEATURES, mmd2, mmd2_block, mmd2_fastmmd, mmd2_linear


def fastmmd_type2_vs_L(Ls=(1, 2, 4, 8, 16, 32, 64, 128), *, n: int = 1000,
                       epsilon: float = 4.0, n_repeats: int | None = None,
                       n_resamples: int | None = None, rng=None, progress: Progress = None,
                       executor=None) -> pd.DataFrame:
    """FastMMD Fig. 8a: type-II error of FastMMD-Fourier + bootstrap vs L (blobs, ε = 4).

    Gaussian kernel σ = 1, α = 0.05, B = ``n_resamples`` (default 1000); returns L,
    type2_error, its interval, runtime (``n_repeats`` draws.
    """
    B = 1000 if n_resamples is None else n_resamples
    n_repeats = 100 if n_repeats is None else n_repeats
    rng = check_rng(rng)
    tests = {f"L={L}": {"kernel": GaussianKernel(1.0), "estimator": "fastmmd",
                        "null": "permutation", "n_features": int(L),
                        "n_resamples": B} for L in Ls}
    df = rejection_rates(partial(blob_pair, n, epsilon), tests, n_repeats=n_repeats, rng=rng,
                         progress=progress, executor=executor)
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
    "Pearson": {"estimator": "unbiased", "null": "pearson"},
    "FastMMD-Fourier + bootstrap": {"estimator": "fastmmd", "features": "fourier",
                                    "null": "permutation"},
}


def type2_vs_epsilon(epsilons=(1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.6, 2.8, 3.0), *,
                     n: int = 1000, n_features: int = 256, n_repeats: int | None = None,
                     n_resamples: int | None = None, rng=None, progress: Progress = None,
                     executor=None) -> pd.DataFrame:
    """FastMMD Fig. 8b: type-II error vs ε for the permutation, Gamma, spectral and FastMMD tests.

    Gaussian kernel σ = 1, L = 256, α = 0.05. Tidy: one row per (ε, test) with the
    mean runtime per test. B = ``n_resamples`` (default 1000), ``n_repeats`` draws (default
    100).
    """
    B = 1000 if n_resamples is None else n_resamples
    n_repeats = 100 if n_repeats is None else n_repeats
    rng = check_rng(rng)
    tests = {label: {"kernel": GaussianKernel(1.0), "n_resamples": B,
                     "n_features": n_features, **opts} for label, opts in FIG8B_TESTS.items()}
    frames = []
    for i, eps in enumerate(epsilons):
        df = rejection_rates(partial(blob_pair, n, float(eps)), tests, n_repeats=n_repeats,
                             rng=rng, progress=_nested_progress(progress, i, len(epsilons)),
                             executor=executor)
        df.insert(0, "epsilon", float(eps))
        frames.append(df)
    return _as_type2(pd.concat(frames, ignore_index=True))


def blob_pair(n: int, epsilon: float, rng):
    """One draw of the blob-grid pair (a picklable sampler for ``rejection_rates``)."""
    return blobs_two_sample(n, epsilon=epsilon, rng=rng)


def null_sampler(n: int, m: int | None = None, *, data: str = "normal") -> Callable:
    """A sampler of two samples from the same law: N(0, I₂) or the round blob grid."""
    m = n if m is None else m
    if data == "blobs":
        return partial(_null_blobs, n, m)
    return partial(_null_normal, n, m)


def _null_blobs(n, m, rng):
    return blobs_two_sample(n, m, epsilon=1.0, rng=rng)


def _null_normal(n, m, rng):
    return rng.standard_normal((n, 2)), rng.standard_normal((m, 2))


def size_table(*, n: int = 200, m: int | None = None, n_repeats: int = 500,
               n_resamples: int | None = None, alpha: float = 0.05, level: float = 0.99,
               data: str = "normal", bandwidth: float = 1.0, pairs=None, rng=None,
               progress: Progress = None, executor=None) -> pd.DataFrame:
    """Type-I error of every valid estimator/null pair over ``n_repeats`` null draws.

    Data: P = Q = N(0, I₂) (or the round blob grid with ``data="blobs"``), Gaussian
    kernel. B = 199 makes the permutation tests exact at α = 0.05 (α (B + 1) is an
    integer); the Gamma, spectral and normal nulls are asymptotic approximations.
    ``n_resamples`` is B (default 199; B1 = B2 = B for MMDAgg, which tests with its own
    collection of kernels).
    """
    B = 199 if n_resamples is None else n_resamples
    tests = {name: {"kernel": GaussianKernel(bandwidth), "n_resamples": B, **options}
             for name, options in registered_tests(pairs).items()}
    df = rejection_rates(null_sampler(n, m, data=data), tests, n_repeats=n_repeats,
                         alpha=alpha, level=level, rng=rng, progress=progress,
                         executor=executor)
    df["within_interval"] = (df["ci_low"] <= alpha) & (alpha <= df["ci_high"])
    return df


#: FastMMD Fig. 6's bandwidths: 0.1 to 100 in multiplicative steps of 10^(1/5).
FIG6_SIGMAS = tuple(float(s) for s in 10.0 ** (np.arange(-5, 11) / 5))


def kernel_family_mmd(sigmas=FIG6_SIGMAS, *, n: int = 200, n_draws: int = 100,
                      n_features: int = 1024, rng=None, progress: Progress = None,
                      executor=None) -> pd.DataFrame:
    """FastMMD Fig. 6: MMD² of one ring data set (Sec. 4.2, ``rings_two_sample``) for a
    family of Gaussian kernels, exact and approximated.

    For each σ: the exact biased and unbiased MMD²; FastMMD-Fourier and -Fastfood
    (L = ``n_features``) over ``n_draws`` frequency draws; the linear-time MMD and the
    B-test (block √n) over ``n_draws`` random orderings of both samples, as the paper
    permutes the samples for them. Columns: sigma, estimator, kind (biased/unbiased),
    mean, std over the draws, exact, draws. Each σ is one trial (``run_trials``).
    """
    rng = check_rng(rng)
    X, Y = rings_two_sample(n, rng=rng)
    items = list(zip([float(s) for s in sigmas], trial_seeds(rng, len(sigmas)), strict=True))
    trials = run_trials(partial(_kernel_family_trial, X, Y, n_draws, n_features), items,
                        executor=executor, progress=progress)
    return pd.DataFrame([row for rows in trials for row in rows])


def registered_tests(pairs=None) -> dict:
    """"estimator / null" -> ``mmd_test`` options, for every test of the registry (or the
    (estimator, null) ``pairs`` given); FastMMD once per random-feature kind
    (``"fastmmd-fourier / permutation"``)."""
    tests = {}
    for spec in MMD_TESTS:
        if pairs is not None and (spec.estimator, spec.null) not in pairs:
            continue
        options = {"estimator": spec.estimator, "null": spec.null}
        if spec.needs.builds_own_kernel:  # aggregated (its own bandwidths) or kernel-free
            options["kernel"] = None
        if "features" not in spec.options:
            tests[spec.name.replace("/", " / ")] = options
        for kind in FASTMMD_FEATURES if "features" in spec.options else ():
            tests[f"{spec.estimator}-{kind} / {spec.null}"] = {**options, "features": kind}
    return tests


def _kernel_family_trial(X, Y, n_draws, n_features, item) -> list[dict]:
    sigma, seed = item
    rng = np.random.default_rng(seed)
    kernel = GaussianKernel(sigma)
    exact = {kind: mmd2(X, Y, kernel, estimator=kind) for kind in ("biased", "unbiased")}
    values: dict = {}
    for _ in range(n_draws):
        for features in FASTMMD_FEATURES:
            draw = int(rng.integers(2**63))
            for kind in ("biased", "unbiased"):  # the same frequencies for both
                values.setdefault((f"FastMMD-{features.capitalize()}", kind), []).append(
                    mmd2_fastmmd(X, Y, kernel, n_features=n_features, features=features,
                                 estimator=kind, rng=draw))
        Xp, Yp = X[rng.permutation(len(X))], Y[rng.permutation(len(Y))]
        values.setdefault(("MMD-linear", "unbiased"), []).append(mmd2_linear(Xp, Yp, kernel))
        values.setdefault(("B-test", "unbiased"), []).append(mmd2_block(Xp, Yp, kernel))
    return [{"sigma": sigma, "estimator": name, "kind": kind, "mean": float(np.mean(v)),
             "std": float(np.std(v, ddof=1)), "exact": exact[kind], "draws": len(v)}
            for (name, kind), v in values.items()]
