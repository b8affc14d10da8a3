"""Analytic and simulated H0 laws of the exact MMD² (Gretton et al. 2009, 2012): the Gamma
moment match, the spectral null, and the Pearson curve of the unbiased statistic."""

from __future__ import annotations

import contextlib
import threading

import numpy as np
from scipy import stats

from .._validation import check_choice, check_positive_int, check_rng
from .spectra import (
    DEFAULT_RANK,
    EXACT_MAX,
    SpectralNull,
    centred_gram,
    exact_centred_eigenvalues,
    leading_centred_eigenvalues,
)


def centred_joint_gram(X, Y, kernel) -> tuple[np.ndarray, int]:
    """H K H for the pooled sample (H the centring matrix) and N = m + n."""
    Z = np.vstack([X, Y])
    return centred_gram(Z, kernel), Z.shape[0]


_spectra = threading.local()


@contextlib.contextmanager
def shared_spectra():
    """Inside the block, ``spectral_null`` of the same (X, Y, kernel) objects is
    computed once (this thread): the biased and unbiased spectral tests of one comparison
    share their O(N³) eigendecomposition."""
    previous = getattr(_spectra, "memo", None)
    _spectra.memo = {}
    try:
        yield
    finally:
        _spectra.memo = previous


def spectral_eigenvalues(X, Y, kernel) -> np.ndarray:
    """All eigenvalues of the centred joint Gram matrix divided by N (positive part), by one
    LAPACK call without eigenvectors."""
    lam = exact_centred_eigenvalues(np.vstack([X, Y]), kernel)
    return lam[lam > 1e-12 * max(lam.max(), 1e-300)]


def spectral_null(X, Y, kernel, *, rank: int | None = None, rng=0) -> SpectralNull:
    """The spectrum of the spectral null of MMD² (Gretton et al. 2009) for samples X, Y.

    With N = m + n ≤ ``EXACT_MAX`` (2500) and no ``rank``: every eigenvalue of H K H / N,
    by one LAPACK call without eigenvectors (``spectral_eigenvalues``). Above, or with
    ``rank``: the ``rank`` (default 200) leading ones by randomized subspace iteration,
    streamed by the tile engine in O(N · rank) memory, and the exact sum and sum of
    squares of the others, which enter the null as a Gamma term with their mean and
    variance (``SpectralNull.draws``). Measured against the full spectrum
    (``benchmarks/bench_spectral.py``, ``docs/results/spectral_null*.txt``): p-values
    within 0.002 at N = 6000 and 0.0005 at N = 20 000 (B = 100 000 draws each), where
    the full route takes 13 s and several minutes.

    Parameters
    ----------
    X, Y : arrays (m, d), (n, d)
        Validated samples.
    kernel : Kernel
    rank : int, optional
        Leading eigenvalues to keep (forces the truncated route).
    rng : Generator, int or None
        Seed of the random sketch (default 0: the spectrum is a function of the data).

    Returns
    -------
    SpectralNull
        Its ``draws(m, n, estimator, B, rng)`` simulate the null. Inside
        ``shared_spectra`` the spectrum of the same (X, Y, kernel) objects is computed once.
    """
    memo = getattr(_spectra, "memo", None)
    key = (id(X), id(Y), id(kernel), rank)
    if memo is not None and key in memo:
        return memo[key][3]
    N = X.shape[0] + Y.shape[0]
    if rank is None and N <= EXACT_MAX:
        spectrum = SpectralNull(spectral_eigenvalues(X, Y, kernel))
    else:
        rank = DEFAULT_RANK if rank is None else check_positive_int(rank, "rank")
        spectrum = leading_centred_eigenvalues(np.vstack([X, Y]), kernel, min(rank, N),
                                               check_rng(rng))
    if memo is not None:  # the objects are kept so their ids stay theirs
        memo[key] = (X, Y, kernel, spectrum)
    return spectrum


def gamma_null_params(X, Y, kernel) -> dict:
    """Gamma(shape, scale) matching the H0 mean and variance of MMD²_b.

    Under H0, MMD²_b ≈ c Σ λ_l z_l² with c = 1/m + 1/n, so E = c Σλ = c tr(Kc)/N and
    Var = 2 c² Σλ² = 2 c² ||Kc||_F² / N². The moments come from the pooled centred Gram,
    which is asymptotically equivalent to the h-statistic moments of Gretton et al.
    (2009), not identical to them at finite n.
    """
    Kc, N = centred_joint_gram(X, Y, kernel)
    c = 1.0 / X.shape[0] + 1.0 / Y.shape[0]
    mean = c * np.trace(Kc) / N
    var = 2.0 * c**2 * np.sum(Kc**2) / N**2
    return {"shape": mean**2 / var, "scale": var / mean}


def simulate_spectral_null(eigenvalues, m: int, n: int, *, estimator: str = "biased",
                           n_resamples: int = 1000, rng=None) -> np.ndarray:
    """Draws of the spectral null of MMD² (Gretton et al. 2009): (1/m + 1/n) Σ_l λ_l z_l²,
    z_l ~ N(0, 1), centred (z_l² - 1) for the unbiased estimator; ``eigenvalues`` are those
    of the centred joint Gram / N (``spectral_eigenvalues``)."""
    check_choice(estimator, "estimator", ("biased", "unbiased"))
    lam = np.asarray(eigenvalues, dtype=float)
    if lam.ndim != 1 or not np.all(np.isfinite(lam)):
        raise ValueError("eigenvalues must be a finite 1-D array")
    return simulate_spectral(lam, check_positive_int(m, "m"), check_positive_int(n, "n"),
                              estimator, check_positive_int(n_resamples, "n_resamples"),
                              check_rng(rng))


def simulate_spectral(lam, m, n, estimator, B, rng) -> np.ndarray:
    """``simulate_spectral_null`` on clean arguments (B draws of the spectral null)."""
    return SpectralNull(lam).draws(m, n, estimator, B, rng)


def pearson_null_moments(X, Y, kernel) -> dict:
    """H0 moments of MMD²_u for equal sample sizes m (Gretton et al. 2012a, Sec. 5 and the
    moments of their 2007 NIPS paper): mean 0,

        E[(MMD²_u)²] = 2/(m(m-1)) E[h²(z, z')],
        E[(MMD²_u)³] = 8(m-2)/(m²(m-1)²) E[h(z, z') h(z', z'') h(z'', z)],

    h(z_i, z_j) = k(x_i, x_j) + k(y_i, y_j) - k(x_i, y_j) - k(x_j, y_i), the expectations
    estimated over distinct indices (the third by tr(H³) of the zero-diagonal H). O(m³)
    time, O(m²) memory. Returns mean, variance and skewness.
    """
    m = X.shape[0]
    if Y.shape[0] != m:
        raise ValueError("the Pearson null needs samples of equal size (its moments are those "
                         f"of the paired U-statistic), got {m} and {Y.shape[0]}")
    if m < 3:
        raise ValueError(f"the Pearson null needs at least 3 points per sample, got {m}")
    Kxy = kernel.gram(X, Y)
    H = kernel.gram(X, X) + kernel.gram(Y, Y) - Kxy - Kxy.T
    np.fill_diagonal(H, 0.0)
    e_h2 = float(np.sum(H * H)) / (m * (m - 1))
    e_h3 = float(np.sum((H @ H) * H)) / (m * (m - 1) * (m - 2))
    variance = 2.0 / (m * (m - 1)) * e_h2
    third = 8.0 * (m - 2) / (m**2 * (m - 1) ** 2) * e_h3
    return {"mean": 0.0, "variance": variance, "skewness": third / variance**1.5}


def pearson_null(X, Y, kernel):
    """The Pearson curve of FastMMD Fig. 8b (Gretton et al. 2012a): the member of Pearson's
    family fixed by the first three H0 moments of MMD²_u (``pearson_null_moments``), which
    is Pearson type III (``scipy.stats.pearson3``: a shifted, scaled Gamma, or the normal
    at skewness 0). Returns (frozen distribution, moments)."""
    moments = pearson_null_moments(X, Y, kernel)
    return stats.pearson3(moments["skewness"], loc=0.0,
                          scale=np.sqrt(moments["variance"])), moments
