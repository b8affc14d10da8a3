"""Estimators of the squared maximum mean discrepancy MMD²(P, Q) = ||μ_P - μ_Q||²_H.

All share one signature style, ``f(X, Y, kernel, *, options)``, accept unequal
sample sizes and stream the kernel matrix so memory never holds an n × n Gram.
References: Gretton et al. (2012) for the exact, linear and block estimators,
Zaremba et al. (2013) for the B-test, Zhao & Meng (FastMMD) for the Fourier and
Fastfood approximations.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .._validation import check_choice, check_pair, check_positive_int, check_rng
from ..chunked import check_any_pair, reject_dask, row_chunk_sums
from ..embeddings.features import FastfoodFeatures, RandomFourierFeatures
from ..embeddings.kme import NystromKME
from ..kernels import check_kernel, joint_gram_sums
from ..results import Moments

ESTIMATORS = ("biased", "unbiased")

#: The estimators that take dask arrays, quoted when an exact one is given one.
LINEAR_TIME_MMD = ("mmd2_nystrom, mmd2_fastmmd, mmd2_linear or mmd2_block (or mmd_test "
                   "with estimator='pooled-nystrom', 'linear' or 'block')")


def mmd2(
    X, Y, kernel, *, estimator: str = "biased", working_memory: int | None = None
) -> float:
    """Exact squared MMD from the full Gram matrix, streamed in symmetric tiles.

    biased:   MMD²_b = S_XX/m² + S_YY/n² - 2 S_XY/(mn)   (Eq. (1) of FastMMD)
    unbiased: MMD²_u drops the diagonals, (S_XX - tr)/(m(m-1)) + ... (App. A.1)

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel
    estimator : {"biased", "unbiased"}
    working_memory : int, optional
        Bytes for one Gram tile (default: ``get_config()["working_memory"]``); total extra
        memory is O(working_memory + (m + n) d).

    Returns
    -------
    float
        MMD²_b or MMD²_u.

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel
    >>> X = np.zeros((3, 1)); Y = np.ones((2, 1))
    >>> value = mmd2(X, Y, GaussianKernel(1.0))  # 1 + 1 - 2 exp(-1/2)
    >>> round(value, 6)
    0.786939
    """
    check_choice(estimator, "estimator", ESTIMATORS)
    for Z, name in ((X, "X"), (Y, "Y")):
        reject_dask(Z, name, "mmd2", LINEAR_TIME_MMD)
    X, Y = check_pair(X, Y, min_samples=2 if estimator == "unbiased" else 1)
    kernel = check_kernel(kernel)
    m, n = X.shape[0], Y.shape[0]
    s_xx, s_xy, s_yy, tr_xx, tr_yy = joint_gram_sums(kernel, X, Y, working_memory)
    if estimator == "biased":
        return s_xx / m**2 + s_yy / n**2 - 2.0 * s_xy / (m * n)
    return (s_xx - tr_xx) / (m * (m - 1)) + (s_yy - tr_yy) / (n * (n - 1)) - 2.0 * s_xy / (m * n)


def linear_terms(X: np.ndarray, Y: np.ndarray, kernel) -> np.ndarray:
    """The h-statistics of the linear-time MMD on clean input (Gretton et al. 2012, Lemma 14).

    With p = min(m, n) // 2 pairs, h_i = k(x_{2i}, x_{2i+1}) + k(y_{2i}, y_{2i+1})
    - k(x_{2i}, y_{2i+1}) - k(x_{2i+1}, y_{2i}); surplus points of the larger sample
    are not used.
    """
    p = min(X.shape[0], Y.shape[0]) // 2
    x1, x2 = X[0 : 2 * p : 2], X[1 : 2 * p : 2]
    y1, y2 = Y[0 : 2 * p : 2], Y[1 : 2 * p : 2]
    k = kernel.paired
    return k(x1, x2) + k(y1, y2) - k(x1, y2) - k(x2, y1)


def mmd2_linear(X, Y, kernel) -> float:
    """Linear-time unbiased MMD² estimate: the mean of independent h-statistics.

    O(n) time and memory, high variance. Needs at least 2 points per sample; with
    unequal sizes only the first 2·min(m, n)//2 points of each sample are used. X and Y
    may be dask arrays (``kmeviz.chunked``).

    Gretton et al. 2012 (JMLR), Sec. 6; the MMD-linear of FastMMD Sec. 4.

    Parameters
    ----------
    X : array (m, d) or dask array
    Y : array (n, d) or dask array
    kernel : Kernel

    Returns
    -------
    float
        The mean of the min(m, n) // 2 h-statistics.
    """
    X, Y, chunked = check_any_pair(X, Y, min_samples=2)
    kernel = check_kernel(kernel)
    if chunked:
        return linear_moments(X, Y, kernel)[1]
    return float(linear_terms(X, Y, kernel).mean())


def linear_moments(X, Y, kernel) -> Moments:
    """``Moments`` of the linear-time h-statistics of two checked dask arrays: the first
    2p rows of both are cut into the same even-sized chunks, so no pair straddles two."""
    p = min(X.shape[0], Y.shape[0]) // 2
    rows = 2 * max(1, -(-max(X.chunks[0]) // 2))
    X, Y = (Z[: 2 * p].rechunk({0: rows}) for Z in (X, Y))
    return row_chunk_sums(partial(_chunk_linear_moments, kernel), X, Y)


def _chunk_linear_moments(kernel, start, X, Y):
    return Moments.of(linear_terms(X, Y, kernel))


def block_slices(m: int, n: int, block_size: int | None):
    """Split both samples into the same number of contiguous blocks.

    The smaller sample gets blocks of about ``block_size`` points (default
    floor(sqrt(min(m, n))), Zaremba et al. 2013); the larger is split into as
    many blocks, so every point is used.
    """
    edges_x, edges_y = block_edges(m, n, block_size)
    return [(slice(edges_x[b], edges_x[b + 1]), slice(edges_y[b], edges_y[b + 1]))
            for b in range(edges_x.size - 1)]


def block_edges(m: int, n: int, block_size: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The block boundaries of ``block_slices`` in X and in Y."""
    small = min(m, n)
    if block_size is None:
        block_size = max(2, int(np.sqrt(small)))
    block_size = check_positive_int(block_size, "block_size", minimum=2)
    if block_size > small:
        raise ValueError(f"block_size={block_size} exceeds the smaller sample size {small}")
    n_blocks = small // block_size
    return (np.linspace(0, m, n_blocks + 1).round().astype(int),
            np.linspace(0, n, n_blocks + 1).round().astype(int))


def block_terms(X: np.ndarray, Y: np.ndarray, kernel, block_size=None) -> np.ndarray:
    """Unbiased MMD² of each block pair (the B-test's summands), on clean input."""
    return _terms_of_blocks(X, Y, kernel, block_slices(X.shape[0], Y.shape[0], block_size))


def _terms_of_blocks(X, Y, kernel, slices) -> np.ndarray:
    return np.asarray([_unbiased_from_grams(kernel.gram(X[sx], X[sx]), kernel.gram(Y[sy], Y[sy]),
                                            kernel.gram(X[sx], Y[sy])) for sx, sy in slices])


def block_moments(X, Y, kernel, block_size=None) -> Moments:
    """``Moments`` of the block terms of two checked dask arrays: both are rechunked on
    block boundaries, about as many blocks per chunk as X's chunks held, so each chunk
    pair holds whole, matching blocks."""
    edges_x, edges_y = block_edges(X.shape[0], Y.shape[0], block_size)
    per_chunk = max(1, round(max(X.chunks[0]) / max(1, np.diff(edges_x).max())))
    groups = np.unique(np.r_[np.arange(0, edges_x.size - 1, per_chunk), edges_x.size - 1])
    X = X[: edges_x[-1]].rechunk({0: tuple(np.diff(edges_x[groups]))})
    Y = Y[: edges_y[-1]].rechunk({0: tuple(np.diff(edges_y[groups]))})
    return row_chunk_sums(partial(_chunk_block_moments, kernel, edges_x, edges_y), X, Y)


def _chunk_block_moments(kernel, edges_x, edges_y, start, X, Y):
    first = int(np.searchsorted(edges_x, start))
    last = int(np.searchsorted(edges_x, start + X.shape[0]))
    slices = [(slice(edges_x[b] - start, edges_x[b + 1] - start),
               slice(edges_y[b] - edges_y[first], edges_y[b + 1] - edges_y[first]))
              for b in range(first, last)]
    return Moments.of(_terms_of_blocks(X, Y, kernel, slices))


def _unbiased_from_grams(Kxx, Kyy, Kxy) -> float:
    m, n = Kxx.shape[0], Kyy.shape[0]
    return float(
        (Kxx.sum() - np.trace(Kxx)) / (m * (m - 1))
        + (Kyy.sum() - np.trace(Kyy)) / (n * (n - 1))
        - 2.0 * Kxy.mean()
    )


def mmd2_block(X, Y, kernel, *, block_size: int | None = None) -> float:
    """B-test / block MMD²: mean of unbiased MMD² over disjoint blocks (Zaremba et al. 2013).

    With block size B (default floor(sqrt(n))) it costs O(n B d) time and O(B²) memory.
    X and Y may be dask arrays (``kmeviz.chunked``).

    Parameters
    ----------
    X : array (m, d) or dask array
    Y : array (n, d) or dask array
    kernel : Kernel
    block_size : int, optional

    Returns
    -------
    float
        The mean of the blocks' unbiased MMD².
    """
    X, Y, chunked = check_any_pair(X, Y, min_samples=2)
    kernel = check_kernel(kernel)
    if chunked:
        return block_moments(X, Y, kernel, block_size)[1]
    return float(block_terms(X, Y, kernel, block_size).mean())


#: The random features of FastMMD: dense Gaussian frequencies or Fastfood blocks.
FASTMMD_FEATURES = ("fourier", "fastfood")


FASTMMD_ALGORITHMS = ("features", "amplitude")


def random_features(kernel, X, *, n_features, features="fourier", frequencies=None, rng=None,
                    sampling="iid"):
    """Fitted random ``features`` for clean sample ``X`` (the FastMMD ω's)."""
    check_choice(features, "features", FASTMMD_FEATURES)
    if features == "fastfood":
        if frequencies is not None or sampling != "iid":
            raise ValueError("frequencies and sampling can only be set for "
                             "features='fourier'")
        return FastfoodFeatures(kernel, n_features, rng=rng).fit(X)
    return RandomFourierFeatures(kernel, n_features, frequencies=frequencies,
                                 sampling=sampling, rng=rng).fit(X)


def fastmmd_from_amplitudes(amp2, amp2_x, amp2_y, m, n, k0, estimator):
    """Steps 8–9 of FastMMD Alg. 1 from per-frequency squared amplitudes."""
    biased = k0 * float(np.mean(amp2))
    if estimator == "biased":
        return biased
    return (
        biased
        + k0 * float(np.mean(amp2_x)) / (m - 1)
        + k0 * float(np.mean(amp2_y)) / (n - 1)
        - (m + n - 2) / ((m - 1) * (n - 1)) * k0
    )


def mmd2_fastmmd(
    X,
    Y,
    kernel,
    *,
    n_features: int = 1024,
    features: str = "fourier",
    estimator: str = "biased",
    frequencies=None,
    algorithm: str = "features",
    sampling: str = "iid",
    rng=None,
) -> float:
    """FastMMD: MMD² approximated with L random frequencies in O(L n d) time, O(L) memory.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : ShiftInvariantKernel (GaussianKernel for ``features="fastfood"``)
    n_features : int
        L, the number of frequencies ω ~ p(ω).
    features : {"fourier", "fastfood"}
        Dense Gaussian frequencies (FastMMD-Fourier) or Fastfood blocks.
    estimator : {"biased", "unbiased"}
        Step 8 or step 9 of Alg. 1 (App. A.1 correction).
    frequencies : array (L, d), optional
        Fix ω (Fourier method only).
    algorithm : {"features", "amplitude"}
        Alg. 2 (norm of mean random-feature vectors) or Alg. 1 (amplitude and
        phase of the summed sinusoids, steps 4–6). They agree to round-off.
    sampling : {"iid", "sobol", "halton"}
        i.i.d. frequencies (the paper's), or scrambled quasi-Monte Carlo ones (Fourier
        method only; ``RandomFourierFeatures``).
    rng : Generator, int or None

    Returns
    -------
    float
        The FastMMD estimate of MMD² (biased or unbiased, as ``estimator``).

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel, mmd2
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(300, 2)), rng.normal(0.5, 1, size=(300, 2))
    >>> k = GaussianKernel(1.0)
    >>> abs(mmd2_fastmmd(X, Y, k, n_features=4096, rng=1) - mmd2(X, Y, k)) < 0.01
    True
    """
    check_choice(estimator, "estimator", ESTIMATORS)
    check_choice(algorithm, "algorithm", FASTMMD_ALGORITHMS)
    X, Y, _ = check_any_pair(X, Y, min_samples=2 if estimator == "unbiased" else 1)
    kernel = check_kernel(kernel, shift_invariant=True)
    feats = random_features(kernel, X, n_features=n_features, features=features,
                            frequencies=frequencies, rng=rng, sampling=sampling)
    cx, sx = feats._mean_cos_sin(X)
    cy, sy = feats._mean_cos_sin(Y)
    k0 = kernel.value_at_zero
    if algorithm == "amplitude":
        # Alg. 1: amplitude/phase of (1/m) Σ sin(t - ω'x_i), combined by the law of cosines
        a_x, th_x = np.hypot(cx, sx), np.arctan2(sx, cx)
        a_y, th_y = np.hypot(cy, sy), np.arctan2(sy, cy)
        amp2 = a_x**2 + a_y**2 - 2.0 * a_x * a_y * np.cos(th_x - th_y)
        return fastmmd_from_amplitudes(amp2, a_x**2, a_y**2, X.shape[0], Y.shape[0], k0, estimator)
    # Alg. 2: z̄ = sqrt(k0/L) [mean cos, mean sin]; MMD²_b = ||z̄_X - z̄_Y||²
    L = feats.n_features_
    zx = np.sqrt(k0 / L) * np.concatenate([cx, sx])
    zy = np.sqrt(k0 / L) * np.concatenate([cy, sy])
    biased = float(np.sum((zx - zy) ** 2))
    if estimator == "biased":
        return biased
    m, n = X.shape[0], Y.shape[0]
    return (
        biased
        + float(zx @ zx) / (m - 1)
        + float(zy @ zy) / (n - 1)
        - (m + n - 2) / ((m - 1) * (n - 1)) * k0
    )


def mmd2_nystrom(X, Y, kernel, *, n_landmarks=None, n_landmarks_y=None, rng=None) -> float:
    """Squared Nyström MMD ||P₁μ̂(ρ₁) - P₂μ̂(ρ₂)||²_H (Chatalic et al. 2022, Sec. 5,
    Thm 5.1), like every other ``mmd2_*`` estimator.

    Each sample gets its own Nyström embedding with m₁ = ``n_landmarks`` and
    m₂ = ``n_landmarks_y`` (default: the same as m₁; both default to ceil(√n log √n)):
    the *Nyström-embedding MMD*. The test ``mmd_test(estimator="pooled-nystrom")`` is a
    different estimator, the *pooled-landmark Nyström MMD*: both samples projected on one
    set of landmarks drawn from the pooled sample, which a permutation leaves unchanged.

    Parameters
    ----------
    X : array (m, d) or dask array
    Y : array (n, d) or dask array
    kernel : Kernel
    n_landmarks, n_landmarks_y : int, optional
    rng : Generator, int or None

    Returns
    -------
    float
        The squared Nyström MMD.
    """
    X, Y, _ = check_any_pair(X, Y)
    kernel = check_kernel(kernel)
    rng = check_rng(rng)
    m2 = n_landmarks if n_landmarks_y is None else n_landmarks_y
    mu_x = NystromKME(kernel, n_landmarks, rng=rng).fit(X)
    mu_y = NystromKME(kernel, m2, rng=rng).fit(Y)
    return mu_x.distance(mu_y) ** 2
