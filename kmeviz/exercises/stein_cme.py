"""Exercises of notebooks 05, 06 and 07: KSD, conditional mean embeddings, dask."""

from __future__ import annotations

import numpy as np

from ..conditional import ConditionalMeanEmbedding, sparse_cme
from ..distributions import GaussianMixture, NormalTarget
from ..gof import ksd2, ksd_test
from ..kernels import GaussianKernel, IMQKernel
from ._feedback import Feedback, _choice, _close, _number

# --- 05 kernel Stein discrepancy ---------------------------------------------------------

def stein_data():
    """N(0, I₂) target; a sample of 300 from the target (seed 4) and one from Laplace with
    unit variance (seed 5)."""
    target = NormalTarget(np.zeros(2))
    same = np.random.default_rng(4).standard_normal((300, 2))
    laplace = np.random.default_rng(5).laplace(scale=1 / np.sqrt(2), size=(300, 2))
    return target, same, laplace


def check_ksd2(answer) -> Feedback:
    """The V-statistic KSD² of the Laplace sample of ``stein_data()``, IMQ(c=1, β=-½)."""
    target, _, laplace = stein_data()
    return _close(answer, ksd2(laplace, target, IMQKernel()), "KSD² (V-statistic)",
                  "use kmeviz.ksd2(sample, target, IMQKernel()) with the default "
                  "estimator='biased'")


def close_modes_data():
    """The target ½ N(−e₁, I₂) + ½ N(e₁, I₂) and 500 points (seed 0) of the same modes
    weighted 0.9 and 0.1."""
    means, variances = [[-1.0, 0.0], [1.0, 0.0]], [1.0, 1.0]
    target = GaussianMixture(means, variances=variances, weights=[0.5, 0.5])
    sample = GaussianMixture(means, variances=variances, weights=[0.9, 0.1]).sample(500, rng=0)
    return target, sample


def check_close_modes_p_value(answer) -> Feedback:
    """The p-value of ``ksd_test(sample, target, IMQKernel(), rng=0)`` on
    ``close_modes_data()`` (exact: the same seed gives the same bootstrap)."""
    target, sample = close_modes_data()
    truth = ksd_test(sample, target, IMQKernel(), rng=0).p_value
    return _close(answer, truth, "p-value", "build the two GaussianMixture objects as the "
                  "exercise says (weights=[0.5, 0.5] for the target), sample 500 points with "
                  "rng=0 and run kmeviz.ksd_test(sample, target, IMQKernel(), rng=0)",
                  rtol=1e-12, why="the test rejects. With modes 2 apart they overlap, so the "
                  "score between them depends on the weights, and KSD sees them; 8 apart, the "
                  "score near each mode is that of its own Gaussian whatever the weights")


# --- 06 conditional mean embeddings ------------------------------------------------------

def cme_data():
    """x ~ U(-3, 3), y = sin x + 0.1 ε, 150 pairs (seed 6)."""
    rng = np.random.default_rng(6)
    X = rng.uniform(-3, 3, size=(150, 1))
    return X, np.sin(X) + 0.1 * rng.standard_normal((150, 1))


GAMMAS = (1e-3, 1e-2, 1e-1)


def _fitted_cme():
    X, Y = cme_data()
    return ConditionalMeanEmbedding(GaussianKernel(0.5), GaussianKernel(0.5),
                                    reg=1e-3).fit(X, Y)


def check_conditional_mean(answer) -> Feedback:
    """Ê[Y | x = 1] from a CME with Gaussian kernels σ = 0.5 and λ = 1e-3 on ``cme_data()``."""
    _, Y = cme_data()
    truth = float(_fitted_cme().expectation(Y[:, 0], np.array([[1.0]]))[0])
    return _close(answer, truth, "estimate of E[Y | x = 1]", "fit ConditionalMeanEmbedding "
                  "and call .expectation(h_values, X_new) with h(y) = y at the training "
                  "points (it should be near sin 1)", rtol=1e-6)


def check_sparsest_gamma(answer) -> Feedback:
    """Which γ of ``GAMMAS`` gives sparse_cme the fewest non-zero coefficients?"""
    cme = _fitted_cme()
    _, Y = cme_data()
    L = GaussianKernel(0.5)(Y)
    counts = [np.count_nonzero(sparse_cme(cme.coefficients(), cme.gram_x_, L, gamma=g,
                                          tol=1e-4).M) for g in GAMMAS]
    return _choice(answer, GAMMAS[int(np.argmin(counts))], GAMMAS, "γ",
                   "γ weighs the ℓ1 penalty against the fit: count the non-zeros of .M "
                   "for each γ",
                   why="γ weighs the ℓ1 penalty against the fit, so the largest γ zeroes "
                   "the most coefficients, at the price of a larger distance to the dense CME "
                   "(the path of section 3)")


# --- 07 scaling out ----------------------------------------------------------------------

def check_chunk_count(answer) -> Feedback:
    """How many chunks has ``lazy_sample(draw, 2_500_000, dim=3, chunk_rows=1_000_000)``?"""
    value = _number(answer, "number of chunks")
    if isinstance(value, Feedback):
        return value
    if value == -(-2_500_000 // 1_000_000):
        return Feedback(True, "that is the number of chunks")
    return Feedback(False, "the rows are cut every chunk_rows; the last chunk keeps the "
                    "remainder (look at X.numblocks or X.chunks)")


def check_exact_on_dask(answer) -> Feedback:
    """Which estimator refuses a dask array: "mmd2", "mmd2_linear" or "mmd2_nystrom"?"""
    return _choice(answer, "mmd2", ("mmd2", "mmd2_linear", "mmd2_nystrom"), "estimator",
                   "the linear-time and Nyström estimators work chunk by chunk; one of "
                   "the three needs every pair of points at once")
