"""Exercises of notebooks 03 and 04: Nyström embeddings and the effective dimension."""

from __future__ import annotations

import numpy as np

from ..distributions import GaussianMixture
from ..embeddings import NystromKME, effective_dimension, gram_spectrum
from ..kernels import GaussianKernel
from ._feedback import Feedback, _choice, _close, _number

# --- 03 Nyström kernel mean embeddings ---------------------------------------------------

def nystrom_data():
    """The mixture, 2000 points from it (seed 3) and the Gaussian kernel σ = 1."""
    mixture = GaussianMixture(np.array([[-2.0, 0.0], [2.0, 0.0], [0.0, 2.5]]), [0.5, 0.8, 0.3])
    return mixture, mixture.sample(2000, rng=3), GaussianKernel(1.0)


LANDMARK_COUNTS = (5, 10, 20, 50, 100)


def check_weight_sum(answer) -> Feedback:
    """Σ α of ``NystromKME(kernel, 50, rng=0).fit(X)`` on ``nystrom_data()`` (1e-8)."""
    _, X, kernel = nystrom_data()
    truth = float(NystromKME(kernel, 50, rng=0).fit(X).weights_.sum())
    return _close(answer, truth, "sum of the Nyström weights", "fit NystromKME(kernel, 50, "
                  "rng=0) and sum its weights_ (they need not sum to 1: α = K_mm⁺ K_mn 1/n)",
                  rtol=1e-8)


def check_landmarks_for_error(answer) -> Feedback:
    """The smallest m of ``LANDMARK_COUNTS`` whose Nyström KME (rng=0) has exact error
    below 0.02 (``mixture.error_of``) on ``nystrom_data()``."""
    mixture, X, kernel = nystrom_data()
    truth = next((m for m in LANDMARK_COUNTS
                  if mixture.error_of(NystromKME(kernel, m, rng=0).fit(X)) < 0.02), None)
    return _choice(answer, truth, LANDMARK_COUNTS, "smallest m",
                   "fit each m with rng=0 and compute mixture.error_of(estimator); take the "
                   "first m whose error is below 0.02",
                   why="the empirical embedding of these 2000 points is itself 0.017 from μ, "
                   "so 0.02 asks Nyström to come within 20 % of that floor; m = 50 still adds "
                   "projection error (0.024), and by m = 100, near √n log √n ≈ 170, the "
                   "Nyström error sits on the floor")


# --- 04 effective dimension --------------------------------------------------------------

def check_effective_dimension(answer) -> Feedback:
    """N(λ) at λ = 1e-3 of the Gram spectrum of ``nystrom_data()``'s first 500 points."""
    _, X, kernel = nystrom_data()
    truth = float(effective_dimension(gram_spectrum(X[:500], kernel), 1e-3))
    return _close(answer, truth, "effective dimension N(1e-3)", "N(λ) = Σ ν_i / (ν_i + λ) "
                  "over the eigenvalues ν_i of K/n (kmeviz.gram_spectrum, then "
                  "kmeviz.effective_dimension)", rtol=1e-6)


HALVING_SPECTRUM = 0.5 ** np.arange(1, 13)


def check_halving_effective_dimension(answer) -> Feedback:
    """N(0.01) of the spectrum 0.5, 0.25, …, 0.5¹² (``HALVING_SPECTRUM``), to 1e-6."""
    truth = effective_dimension(HALVING_SPECTRUM, 0.01)
    above = int(np.sum(HALVING_SPECTRUM > 0.01))
    value = _number(answer, "effective dimension")
    if isinstance(value, Feedback):
        return value
    if abs(value - truth) <= 1e-6 * truth:
        return Feedback(True, "that is N(0.01), close to the count of eigenvalues above λ "
                        "but not equal: each of those counts ν/(ν + λ), a little less than 1, "
                        "and each one below λ still adds ν/(ν + λ) — 0.44 for the eigenvalue "
                        "0.0078 just under λ — so here the soft count ends above the hard one")
    hint = ("that is the count of eigenvalues above λ; N(λ) weighs each eigenvalue by "
            "ν/(ν + λ): compute the sum" if abs(value - above) < 1e-9 else
            "call kmeviz.effective_dimension(0.5 ** np.arange(1, 13), 0.01)")
    return Feedback(False, hint)
