"""Is Fastfood's small accuracy deficit in FastMMD Fig. 5 kmeviz's or Fastfood's?

On one fixed blob data set (n = 1000 per sample, ε = 4, Gaussian σ = 1, biased MMD²), the
mean relative error over many frequency draws of: independent Gaussian frequencies; the
Fastfood construction of Le et al. (2013) built with dense matrices, S H G Π H B / √D per
block, as the FastMMD authors' ``FastfoodPara`` draws it; and kmeviz's ``FastfoodFeatures``.
Prints mean ± standard error per L. Then the cause: the estimate is a mean of
f(ω) = |φ̂_X(ω) − φ̂_Y(ω)|² over the frequencies, and the two frequencies of one Fastfood
block (D = 2) give correlated values of f, with correlation ρ; the variance of the estimate
is then (1 + ρ) times that of independent frequencies, its error √(1 + ρ) times.
``python docs/results/fastfood_dense_check.py`` (about 10 min for the default draws; the
numbers on the results page are its output).
"""

from __future__ import annotations

import sys

import numpy as np
from scipy.linalg import hadamard
from scipy.stats import chi

import kmeviz as K
from kmeviz.distributions.datasets import blobs_two_sample

D = 2  # the blobs' dimension, already a power of two


def dense_fastfood(L: int, rng) -> np.ndarray:
    """L frequencies, block by block S H G Π H B / √D with dense matrices (σ = 1)."""
    H, blocks = hadamard(D), []
    for _ in range(-(-L // D)):
        B = np.diag(rng.choice([-1.0, 1.0], D))
        Pi = np.eye(D)[rng.permutation(D)]
        G = rng.standard_normal(D)
        S = chi.rvs(D, size=D, random_state=rng) / np.linalg.norm(G)
        blocks.append(np.diag(S) @ H @ np.diag(G) @ Pi @ H @ B / np.sqrt(D))
    return np.vstack(blocks)[:L]


def independent(L: int, rng) -> np.ndarray:
    return rng.standard_normal((L, D))


def biased_mmd2(X, Y, W) -> float:
    """‖mean z(X) − mean z(Y)‖² with z(x) = (cos Wx, sin Wx)/√L."""
    def mean_features(Z):
        return np.hstack([np.cos(Z @ W.T), np.sin(Z @ W.T)]).mean(axis=0)
    return float(np.sum((mean_features(X) - mean_features(Y)) ** 2) / W.shape[0])


def squared_difference(X, Y, omegas) -> np.ndarray:
    """f(ω) = |φ̂_X(ω) − φ̂_Y(ω)|² of the empirical characteristic functions, per row ω."""
    ax, ay = X @ omegas.T, Y @ omegas.T
    return ((np.cos(ax).mean(axis=0) - np.cos(ay).mean(axis=0)) ** 2
            + (np.sin(ax).mean(axis=0) - np.sin(ay).mean(axis=0)) ** 2)


def block_correlation(X, Y, blocks: int, rng) -> tuple[float, float]:
    """Correlation of f between the two frequencies of a Fastfood block, and its s.e."""
    pairs = np.array([squared_difference(X, Y, dense_fastfood(D, rng)) for _ in range(blocks)])
    r = float(np.corrcoef(pairs[:, 0], pairs[:, 1])[0, 1])
    return r, (1 - r**2) / np.sqrt(blocks)


def main(Ls=(8, 64), draws: int = 4000) -> None:
    X, Y = blobs_two_sample(1000, epsilon=4.0, rng=np.random.default_rng(1))
    kernel = K.GaussianKernel(1.0)
    exact = K.mmd2(X, Y, kernel, estimator="biased")
    rng = np.random.default_rng(7)
    for L in Ls:
        errors = {
            "independent": [biased_mmd2(X, Y, independent(L, rng)) for _ in range(draws)],
            "Fastfood, dense": [biased_mmd2(X, Y, dense_fastfood(L, rng)) for _ in range(draws)],
            "Fastfood, kmeviz": [K.mmd2_fastmmd(X, Y, kernel, n_features=L, features="fastfood",
                                                estimator="biased", rng=int(rng.integers(2**62)))
                                 for _ in range(draws)],
        }
        for name, values in errors.items():
            e = np.abs(np.asarray(values) - exact) / exact
            print(f"L = {L:4d}  {name:18s} {e.mean():.4f} ± {e.std() / np.sqrt(draws):.4f}")
    r, se = block_correlation(X, Y, 10 * draws, np.random.default_rng(3))
    print(f"within-block correlation of f: ρ = {r:.3f} ± {se:.3f}; error ratio √(1 + ρ) = "
          f"{np.sqrt(1 + r):.3f}")


if __name__ == "__main__":
    main(draws=int(sys.argv[1]) if len(sys.argv) > 1 else 4000)
