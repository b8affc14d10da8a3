"""Linear-time HSIC for large n: block HSIC, Nyström HSIC and random-Fourier-feature HSIC
(Zhang, Filippi, Gretton & Sejdinovic 2018, *Large-scale kernel methods for independence
testing*, Statistics and Computing 28, Secs. 3.1–3.3).

All three run in O(n) time and memory O(n d + D²) (D features), reading the samples in
row blocks, so they take dask arrays (``kmeviz.chunked``): each chunk's sums are formed
where it lives and added.

- Block HSIC: the mean of HSIC_u over disjoint blocks of ``block_size`` pairs; under H0
  the block statistics are i.i.d. with mean 0, so the mean is asymptotically normal. Its
  variance is estimated from the block statistics of Y shuffled within each block (the
  null's own variance, as Zhang et al. Sec. 3.1 estimate the null by shuffling within
  blocks).
- Nyström and RFF HSIC: features φ (n × D) with φ(x)ᵀφ(x') ≈ k(x, x'); the statistic is
  ||Ĉ_XY||²_F, Ĉ_XY the centred cross-covariance of the features (the biased HSIC of
  the approximate kernels), and its null the spectral one: n·||Ĉ_XY||² → Σ λ_a η_b z²_ab
  with λ, η the eigenvalues of the feature covariances Ĉ_XX, Ĉ_YY (Zhang et al.
  Sec. 3.4, "spectral approach").
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..chunked import is_dask_array, row_chunk_sums, take_rows
from ..config import get_config
from ..embeddings.kme import draw_landmarks, psd_inverse_factor
from ..kernels.engine import run_tasks
from ..results import Moments
from ..twosample.mmd import random_features
from .hsic import KernelPair, hsic_from_sums

#: Rows of a numpy sample read at once by the feature tests.
ROWS_PER_BLOCK = 16384
#: Upper bound of the default block size of block HSIC.
MAX_DEFAULT_BLOCK = 100
#: Default landmarks per variable of Nyström HSIC (Zhang et al. 2018 use a few hundred at
#: most: the feature covariance costs D² per row, so D stays fixed as n grows).
DEFAULT_LANDMARKS = 200


def default_block_size(n: int) -> int:
    """min(⌊√n⌋, 100), at least 4 (HSIC_u needs 4 points)."""
    return max(4, min(int(np.sqrt(n)), MAX_DEFAULT_BLOCK))


def _block_hsic_u(K: np.ndarray, L: np.ndarray) -> float:
    return float(hsic_from_sums(float(np.einsum("ij,ij->", K, L)), K.sum(axis=1),
                                L.sum(axis=1), np.diagonal(K), np.diagonal(L), "unbiased"))


def _block_terms(kernels: KernelPair, X, Y, block: int, seed: tuple) -> tuple:
    """(Moments of the observed block HSIC_u, Moments of the shuffled ones) of the whole
    blocks of one chunk; the shuffles are seeded by the chunk's first row."""
    rng = np.random.default_rng(seed)
    observed, shuffled = [], []
    for start in range(0, X.shape[0] - block + 1, block):
        rows = slice(start, start + block)
        K, L = kernels.x.gram(X[rows], X[rows]), kernels.y.gram(Y[rows], Y[rows])
        observed.append(_block_hsic_u(K, L))
        p = rng.permutation(block)
        shuffled.append(_block_hsic_u(K, L[np.ix_(p, p)]))
    return Moments.of(observed), Moments.of(shuffled)


def block_hsic(X, Y, kernels: KernelPair, block_size: int, rng) -> tuple[Moments, Moments]:
    """(observed, shuffled) ``Moments`` of the block HSIC_u statistics (see the module)."""
    seed = int(rng.integers(2**63))
    if is_dask_array(X):
        return row_chunk_sums(lambda start, a, b: _block_terms(kernels, a, b, block_size,
                                                               (seed, start)),
                              X, Y, name="X and Y")
    config = get_config()
    step = block_size * max(1, ROWS_PER_BLOCK // block_size)
    tasks = range(0, X.shape[0], step)
    parts = run_tasks(lambda s: _block_terms(kernels, X[s : s + step], Y[s : s + step],
                                             block_size, (seed, s)),
                      tasks, config["n_threads"])
    observed, shuffled = parts[0]
    for a, b in parts[1:]:
        observed, shuffled = observed + a, shuffled + b
    return observed, shuffled


# -- feature HSIC ------------------------------------------------------------------------
def _feature_sums(map_x, map_y, X, Y) -> tuple:
    def sums(_start, a, b):
        fx, fy = map_x(a), map_y(b)
        return (float(a.shape[0]), fx.sum(axis=0), fy.sum(axis=0), fx.T @ fy, fx.T @ fx,
                fy.T @ fy)

    if is_dask_array(X):
        return row_chunk_sums(sums, X, Y, name="X and Y")
    parts = [sums(s, X[s : s + ROWS_PER_BLOCK], Y[s : s + ROWS_PER_BLOCK])
             for s in range(0, X.shape[0], ROWS_PER_BLOCK)]
    return tuple(sum(p[i] for p in parts) for i in range(6))


def feature_hsic(map_x, map_y, X, Y) -> tuple[float, np.ndarray, np.ndarray, int]:
    """(||Ĉ_XY||²_F, eigenvalues of Ĉ_XX, of Ĉ_YY, n) of feature maps ``map_x``,
    ``map_y`` (row block -> features), from one pass of sums over row blocks."""
    n, sx, sy, sxy, sxx, syy = _feature_sums(map_x, map_y, X, Y)
    mx, my = sx / n, sy / n
    cxy = sxy / n - np.outer(mx, my)
    lam = linalg.eigvalsh(sxx / n - np.outer(mx, mx))[::-1]
    eta = linalg.eigvalsh(syy / n - np.outer(my, my))[::-1]
    return float(np.sum(cxy**2)), np.clip(lam, 0, None), np.clip(eta, 0, None), int(n)


def nystrom_map(kernel, Z, n_landmarks, rng):
    """Nyström features x -> K(x, L) Rᵀ on m landmarks drawn from Z (RᵀR a generalised
    inverse of K_LL, ``psd_inverse_factor``): their inner products are the Nyström
    approximation of k (Williams & Seeger 2001; Zhang et al. Sec. 3.2)."""
    m = min(Z.shape[0], n_landmarks or DEFAULT_LANDMARKS)
    idx = np.sort(draw_landmarks(Z.shape[0], m, None, False, rng))
    L = take_rows(Z, idx) if is_dask_array(Z) else Z[idx]
    R = psd_inverse_factor(kernel.gram(L, L))
    return lambda block: kernel.gram(block, L) @ R.T


def rff_map(kernel, Z, n_features, rng):
    """Random Fourier features of a shift-invariant kernel (Rahimi & Recht 2007), 2L
    columns [cos, sin] (Zhang et al. Sec. 3.3)."""
    probe = Z[:2].compute() if is_dask_array(Z) else Z[:2]
    return random_features(kernel, probe, n_features=n_features, rng=rng).transform
