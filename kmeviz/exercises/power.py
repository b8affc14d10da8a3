"""Exercises of notebook 12 (learning the kernel): the power criterion Ĵ from three Gram
matrices, the studentised cross-MMD from the Grams of the halves, and the price of a split
when the default kernel is already good."""

from __future__ import annotations

import functools

import numpy as np

from ..kernels import GaussianKernel
from ..twosample.mmd_tests import mmd_test
from ..twosample.power import REGULARISER
from ._feedback import Feedback, _choice
from .implement import _implementation


def criterion_data(n: int = 50):
    """(K_XX, K_YY, K_XY) of a fixed pair of n points each (Gaussian kernel, σ = 1)."""
    g = np.random.default_rng(12)
    X, Y = g.normal(size=(n, 2)), g.normal(size=(n, 2)) * [1.5, 1.0]
    k = GaussianKernel(1.0)
    return k.gram(X, X), k.gram(Y, Y), k.gram(X, Y)


def _criterion(Kxx, Kyy, Kxy, *, variance_only=False, largest_mmd=False):
    n = len(Kxx)
    H = Kxx + Kyy - Kxy - Kxy.T
    mmd2 = (H.sum() - np.trace(H)) / (n * (n - 1))
    variance = 4.0 * (np.sum(H.sum(axis=1) ** 2) / n**3 - (H.sum() / n**2) ** 2)
    if largest_mmd:
        return mmd2
    return mmd2 / np.sqrt(variance + (0.0 if variance_only else REGULARISER))


def check_power_criterion(function) -> Feedback:
    """``function(Kxx, Kyy, Kxy)``: Ĵ = MMD²_u / √(σ̂²_H1 + 10⁻⁸) of the paired samples."""
    grams = criterion_data()
    cases = [grams, tuple(G[:20, :20] for G in grams)]
    mistakes = [(lambda a, b, c: _criterion(a, b, c, largest_mmd=True),
                 "that is MMD²_u alone: the criterion divides it by its standard deviation "
                 "under H1, σ̂_H1")]
    return _implementation(function, "criterion", cases, _criterion, mistakes, rtol=1e-6,
                           refused=("twosample",),
                           why="the test's power is ≈ Φ(√n MMD²/σ_H1 − c/(√n σ_H1)); for "
                               "large n only the ratio MMD²/σ_H1 matters")


def cross_data(n: int = 40):
    """The Gram blocks of cross-MMD on fixed halves: (K(X₁, X₂), K(X₁, Y₂), K(Y₁, X₂),
    K(Y₁, Y₂)), n points per sample (n/2 per half)."""
    g = np.random.default_rng(21)
    X, Y = g.normal(size=(n, 2)), g.normal(0.4, 1.0, size=(n, 2))
    half = n // 2
    k = GaussianKernel(1.0)
    return (k.gram(X[:half], X[half:]), k.gram(X[:half], Y[half:]),
            k.gram(Y[:half], X[half:]), k.gram(Y[:half], Y[half:]))


def _cross(Kx1x2, Kx1y2, Ky1x2, Ky1y2, *, unstudentised=False):
    gx = Kx1x2.mean(axis=1) - Kx1y2.mean(axis=1)
    gy = Ky1x2.mean(axis=1) - Ky1y2.mean(axis=1)
    u = gx.mean() - gy.mean()
    if unstudentised:
        return u
    return u / np.sqrt(gx.var() / gx.size + gy.var() / gy.size)


def check_cross_mmd(function) -> Feedback:
    """``function(Kx1x2, Kx1y2, Ky1x2, Ky1y2)``: the studentised cross-MMD statistic."""
    blocks = cross_data()
    cases = [blocks, tuple(B[:10, :12] for B in blocks)]
    mistakes = [(lambda *b: _cross(*b, unstudentised=True),
                 "that is x̂MMD² itself: divide by its estimated standard deviation "
                 "√(var g(X₁)/n₁ + var g(Y₁)/m₁) so that the null is 𝒩(0, 1)")]
    return _implementation(function, "cross-MMD", cases, _cross, mistakes, rtol=1e-8,
                           refused=("twosample",),
                           why="g(x₁ᵢ) are independent given the second halves, so their "
                               "mean difference is asymptotically normal: no permutations")


#: draws of the split exercise (its checker runs both tests on each)
SPLIT_DRAWS = 60


def split_problem(rng):
    """One draw of a 2-D mean shift of 0.35 in the first coordinate, 150 points a sample:
    a problem whose median-heuristic Gaussian kernel is already a good one."""
    X = rng.normal(size=(150, 2))
    Y = rng.normal(size=(150, 2)) + [0.35, 0.0]
    return X, Y


@functools.lru_cache(maxsize=1)  # fixed draws: the same answer for every check
def split_powers() -> tuple[float, float]:
    """(power of the median-heuristic test on all points, power of the split test) over
    ``SPLIT_DRAWS`` draws of ``split_problem``, B = 199."""
    rng = np.random.default_rng(42)
    hits = np.zeros(2)
    for _ in range(SPLIT_DRAWS):
        X, Y = split_problem(rng)
        hits += [mmd_test(X, Y, estimator="unbiased", n_resamples=199, rng=rng).reject,
                 mmd_test(X, Y, estimator="split", n_resamples=199, rng=rng).reject]
    return float(hits[0] / SPLIT_DRAWS), float(hits[1] / SPLIT_DRAWS)


def check_split_price(answer) -> Feedback:
    """"more" or "less": does the split test (σ learned on half) reject more or less often
    than the median-heuristic test on all points, on ``split_problem``?"""
    median, split = split_powers()
    truth = "more" if split > median else "less"
    return _choice(answer, truth, ("more", "less"), "answer",
                   "the median heuristic already suits a mean shift; what does the split "
                   "test give up to learn σ?",
                   why=f"measured over {SPLIT_DRAWS} draws: {median:.2f} with the median "
                       f"heuristic on all 150 + 150 points, {split:.2f} for the split test, "
                       "which tests on 75 + 75: learning cannot win back half the data when "
                       "the default kernel is already good")
