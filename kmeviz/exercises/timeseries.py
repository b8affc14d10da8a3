"""Exercises of notebook 13 (rows that are not independent): the multiplier process of
the dependent wild bootstrap, what happens to an i.i.d. test's size as φ → 1, and which
test to trust on two stretches of one series."""

from __future__ import annotations

import numpy as np

from ..distributions.series import independent_ar1_pair, stretches
from ..independence.tests import hsic_test
from ..timeseries.nulls import multiplier_filter
from ..twosample.mmd_tests import mmd_test
from ._feedback import Feedback, _choice
from .implement import _implementation


def innovations(n: int = 60, columns: int = 3) -> np.ndarray:
    """Fixed innovations ε (n, columns) for the multiplier-process exercise."""
    return np.random.default_rng(13).standard_normal((n, columns))


def check_multiplier_process(function) -> Feedback:
    """``function(eps, length)``: W_1 = ε_1, W_t = e^{−1/ℓ} W_{t−1} + √(1 − e^{−2/ℓ}) ε_t,
    down each column of ``eps``."""
    cases = [(innovations(), 5.0), (innovations(40, 2), 1.5)]

    def truth(eps, length):  # kmeviz's filter, fed these innovations
        return _from_innovations(eps, length)

    def no_scaling(eps, length):
        a = np.exp(-1.0 / length)
        W = eps.copy()
        for t in range(1, len(W)):
            W[t] = a * W[t - 1] + eps[t]
        return W

    def length_in_exponent(eps, length):
        a = np.exp(-length)
        W = eps.copy()
        for t in range(1, len(W)):
            W[t] = a * W[t - 1] + np.sqrt(1 - a * a) * eps[t]
        return W

    mistakes = [
        (no_scaling, "without √(1 − a²) in front of ε_t the variance grows to 1/(1 − a²): "
                     "the multipliers must keep unit variance"),
        (length_in_exponent, "the correlation at lag 1 is e^(−1/ℓ): a longer ℓ must mean a "
                             "slower decay, so ℓ divides, it does not multiply"),
    ]
    return _implementation(function, "multiplier process", cases,
                           [truth(*c) for c in cases], mistakes,
                           refused=("timeseries",),
                           why="an AR(1) process of unit variance and correlation "
                               "e^(−|s−t|/ℓ): its products W_i W_j weigh pairs of rows "
                               "about as much as the data's own serial dependence does")


def _from_innovations(eps, length):
    """kmeviz's multiplier process of these innovations."""
    return multiplier_filter(np.array(eps, dtype=float), length)


#: φ and draws of the size exercise (the notebook's measured curve uses more)
SIZE_PHI, SIZE_DRAWS, SIZE_N = 0.95, 60, 200


def iid_size_at_high_phi(draws: int = SIZE_DRAWS) -> float:
    """The permutation HSIC test's rejection rate at α = 0.05 on ``draws`` independent
    AR(1) pairs with φ = ``SIZE_PHI`` (n = ``SIZE_N``)."""
    rejected = 0
    for k in range(draws):
        X, Y = independent_ar1_pair(SIZE_N, SIZE_PHI, rng=np.random.default_rng([13, k]))
        rejected += hsic_test(X, Y, rows="iid", n_resamples=200, rng=k).reject
    return rejected / draws


def check_iid_size_as_phi_grows(answer) -> Feedback:
    """Where the i.i.d. permutation test's size goes as φ → 1: "0", "alpha" or "1"."""
    return _choice(answer, "1", ("0", "alpha", "1"), "limit",
                   "as φ → 1 each series barely moves: how many independent pieces of "
                   "information do n rows then hold, and how wide is a permutation null "
                   "that assumes n?",
                   why="the permutation null's spread assumes n independent rows, but the "
                       "effective sample size n(1 − φ)/(1 + φ) goes to 0: two slowly "
                       "drifting series look related almost always (φ = 0.95, n = 200: "
                       f"{iid_size_at_high_phi():.2f} of independent pairs rejected)")


def two_stretch_data(n: int = 300, phi: float = 0.9):
    """Two stretches of one stationary AR(1) series (H0 of the two-sample test holds)."""
    return stretches(n, phi, rng=np.random.default_rng(133))


TWO_STRETCH_TESTS = ("biased/permutation", "biased/dependent-wild-bootstrap")


def check_two_stretch_test(answer) -> Feedback:
    """Which of ``TWO_STRETCH_TESTS`` to trust on ``two_stretch_data()``."""
    X, Y = two_stretch_data()
    p = {name: mmd_test(X, Y, null=name.split("/")[1], rows="iid", rng=0).p_value
         for name in TWO_STRETCH_TESTS}
    return _choice(answer, "biased/dependent-wild-bootstrap", TWO_STRETCH_TESTS, "test",
                   "both stretches come from one stationary process, so H0 holds; which "
                   "null assumes the rows inside each stretch are exchangeable?",
                   why=f"the permutation null mixes rows as if each were independent "
                       f"(p = {p['biased/permutation']:.3g} here, although H0 holds), the "
                       f"dependent wild bootstrap keeps each stretch's memory (p = "
                       f"{p['biased/dependent-wild-bootstrap']:.3g})")
