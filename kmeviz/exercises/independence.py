"""Exercises of notebook 10 (independence): HSIC from the Grams, the uncorrelated but
dependent rotated sources, and which test sees the sinusoid at ℓ = 2."""

from __future__ import annotations

import numpy as np

from ..distributions.dependence import rotated_sources
from ..independence.measures import hsic
from ..independence.tests import hsic_test
from ..kernels import GaussianKernel
from ._feedback import Feedback, _choice
from .implement import _implementation


def independence_data(n: int = 80):
    """A fixed paired sample (X, Y) of the sinusoid's kind, and the kernel of the exercise."""
    rng = np.random.default_rng(10)
    X = rng.uniform(-np.pi, np.pi, size=(n, 1))
    Y = np.sin(2 * X) + 0.5 * rng.standard_normal((n, 1))
    return X, Y, GaussianKernel(1.0)


def check_hsic_b_from_grams(function) -> Feedback:
    """``function(K, L)``: the biased HSIC tr(KHLH)/n² from the two Gram matrices."""
    X, Y, k = independence_data()
    cases = [(k(X), k(Y)), (k(X[:30]), k(Y[:30]))]
    truth = [hsic(X, Y, kernel_x=k, kernel_y=k), hsic(X[:30], Y[:30], kernel_x=k, kernel_y=k)]

    def uncentred(K, L):
        return np.sum(K * L) / len(K) ** 2

    def centred_once(K, L):
        n = len(K)
        H = np.eye(n) - 1.0 / n
        return np.trace(K @ H @ L) / n**2

    def over_n_minus_1(K, L):
        n = len(K)
        H = np.eye(n) - 1.0 / n
        return np.trace(K @ H @ L @ H) / (n - 1) ** 2

    mistakes = [
        (uncentred, "without H, Σ K∘L / n² also counts what the two means share: centre both "
                    "Grams, H = I − 11ᵀ/n on each side of one of them"),
        (centred_once, "one H is not enough: tr(K H L H) centres K's rows and L's columns; "
                       "with a single H the marginal means still enter"),
        (over_n_minus_1, "the biased (V-statistic) HSIC divides by n², not (n − 1)²"),
    ]
    return _implementation(function, "biased HSIC", cases, truth, mistakes,
                           refused=("independence",),
                           why="two centrings and one trace: HSIC_b is the squared norm of "
                               "the empirical cross-covariance operator")


def rotated_data():
    """300 pairs of the rotated uniform sources at θ = π/4 (the notebook's section 1)."""
    return rotated_sources(300, np.pi / 4, rng=0)


def check_rotated_sources_decision(answer) -> Feedback:
    """"reject" or "keep": HSIC's decision at α = 0.05 on ``rotated_data()`` (``rng=0``)."""
    X, Y = rotated_data()
    truth = "reject" if hsic_test(X, Y, rng=0).reject else "keep"
    r = float(np.corrcoef(X[:, 0], Y[:, 0])[0, 1])
    return _choice(answer, truth, ("reject", "keep"), "decision",
                   "Pearson's r near 0 only says there is no linear trend. Plot the pairs: "
                   "is the spread of y the same in every vertical slice?",
                   why=f"r = {r:.2f}, but the pairs fill a square turned by 45°: where |x| "
                       "is large, y is pinned near 0, so the law of Y depends on X")


#: The tests the notebook's power table compares at ℓ = 2.
POWER_TESTS = ("biased/permutation", "hsicagg", "nystrom/spectral", "block/normal")


def check_test_for_frequency_two(answer) -> Feedback:
    """Which of ``POWER_TESTS`` keeps its power on the sinusoid at ℓ = 2 (n = 200), where
    the median-heuristic Gaussian's power falls to the level."""
    return _choice(answer, "hsicagg", POWER_TESTS, "test",
                   "the three others use one Gaussian at the median heuristic (about 1.8 "
                   "here): compare that width with the checkerboard's cells, π/ℓ wide",
                   why="its collection goes down to σ = median/(4√2), about 0.33; a "
                       "Gaussian of width σ weighs frequency ℓ by exp(−σ²ℓ²/2), about 0.001 "
                       "at σ = 1.8 and 0.8 at σ = 0.33, so only its small bandwidths see "
                       "the cells")
