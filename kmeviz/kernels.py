"""Kernels, their spectral measures (Bochner) and Gram matrices streamed in tiles.

Each kernel is a small immutable object: ``kernel(X, Y)`` returns the Gram matrix,
``kernel.gram_sum(X, Y)`` sums it tile by tile in bounded memory, and the
shift-invariant ones sample their spectral frequencies for random features
(Eq. (2) of Zhao & Meng, FastMMD).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.spatial.distance import cdist

from ._validation import (
    check_in_interval,
    check_pair,
    check_positive,
    check_positive_int,
    check_rng,
    check_samples,
)

#: Bytes one Gram tile may occupy; tiles are square-ish blocks of float64.
DEFAULT_WORKING_MEMORY = 32 * 2**20


class _Prepared(NamedTuple):
    """Per-sample quantities computed once and reused by every tile."""

    X: np.ndarray  # scaled sample, C-contiguous
    h: np.ndarray | None  # per-row statistic (half squared norms, ...)


class Kernel:
    """Base class: subclasses implement ``_prepare`` and ``_tile``."""

    shift_invariant = False

    def __call__(self, X, Y=None) -> np.ndarray:
        """Gram matrix ``K[i, j] = k(X[i], Y[j])`` of shape (n_x, n_y)."""
        if Y is None:
            X = check_samples(X, "X")
            Y = X
        else:
            X, Y = check_pair(X, Y)
        return self._gram(X, Y)

    # -- private API, clean float64 (n, d) input assumed ------------------------
    def _prepare(self, X: np.ndarray) -> _Prepared:
        raise NotImplementedError

    def _tile(self, a: _Prepared, b: _Prepared, out: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _gram(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        out = np.empty((X.shape[0], Y.shape[0]))
        return self._tile(self._prepare(X), self._prepare(Y), out)

    def _paired(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """``k(X[i], Y[i])`` for each row i, in O(n) memory."""
        raise NotImplementedError

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return self._paired(X, X)

    def gram_sum(
        self, X, Y=None, *, working_memory: int = DEFAULT_WORKING_MEMORY
    ) -> tuple[float, float]:
        """Sum of all Gram entries and of its diagonal, streamed in tiles.

        With ``Y=None`` the Gram matrix of ``X`` with itself is summed using its
        symmetry (only tiles on or above the diagonal are computed). Memory is
        O(tile) whatever the sample sizes.

        Returns
        -------
        total, trace : float
            ``sum_ij k(x_i, y_j)`` and ``sum_i k(x_i, y_i)`` (trace only when
            ``Y is None``; 0.0 otherwise).
        """
        if Y is None:
            X = check_samples(X, "X")
            return _tiled_sum(self, X, None, working_memory)
        X, Y = check_pair(X, Y)
        return _tiled_sum(self, X, Y, working_memory)


class ShiftInvariantKernel(Kernel):
    """A kernel k(x, y) = k0 * E_w cos(w'(x - y)), w ~ spectral measure (Bochner)."""

    shift_invariant = True

    @property
    def value_at_zero(self) -> float:
        """k(x, x) = K(0), the total mass of the spectral measure."""
        return 1.0

    def _diag(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.value_at_zero)

    def sample_frequencies(self, n_features: int, dim: int, *, rng=None) -> np.ndarray:
        """Draw ``n_features`` frequencies ω of shape (n_features, dim) from p(ω)."""
        n_features = check_positive_int(n_features, "n_features")
        dim = check_positive_int(dim, "dim")
        return self._sample_frequencies(n_features, dim, check_rng(rng))

    def _sample_frequencies(self, n_features, dim, rng) -> np.ndarray:
        raise NotImplementedError


@dataclass(frozen=True)
class GaussianKernel(ShiftInvariantKernel):
    """Gaussian kernel k(x, y) = exp(-||x - y||² / (2σ²)).

    Its spectral measure is N(0, σ⁻² I) (FastMMD Sec. 2.2).

    Examples
    --------
    >>> import numpy as np
    >>> k = GaussianKernel(bandwidth=1.0)
    >>> bool(np.isclose(k(np.zeros((1, 2)), np.ones((1, 2)))[0, 0], np.exp(-1.0), rtol=1e-15))
    True
    """

    bandwidth: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", check_positive(self.bandwidth, "bandwidth"))

    def _prepare(self, X):
        Xs = X / self.bandwidth
        return _Prepared(Xs, 0.5 * np.einsum("ij,ij->i", Xs, Xs))

    def _tile(self, a, b, out):
        # -||x - y||²/(2σ²) = <xs, ys> - |xs|²/2 - |ys|²/2, clipped at 0 against round-off
        np.dot(a.X, b.X.T, out=out)
        out -= a.h[:, None]
        out -= b.h[None, :]
        np.minimum(out, 0.0, out=out)
        return np.exp(out, out=out)

    def _paired(self, X, Y):
        diff = X - Y
        return np.exp(-0.5 * np.einsum("ij,ij->i", diff, diff) / self.bandwidth**2)

    def _sample_frequencies(self, n_features, dim, rng):
        return rng.standard_normal((n_features, dim)) / self.bandwidth


@dataclass(frozen=True)
class LaplaceKernel(ShiftInvariantKernel):
    """Laplace kernel k(x, y) = exp(-||x - y||₁ / σ).

    Its spectral measure is a product of Cauchy(0, 1/σ) laws, one per coordinate.
    """

    bandwidth: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "bandwidth", check_positive(self.bandwidth, "bandwidth"))

    def _prepare(self, X):
        return _Prepared(np.ascontiguousarray(X / self.bandwidth), None)

    def _tile(self, a, b, out):
        cdist(a.X, b.X, metric="cityblock", out=out)
        np.negative(out, out=out)
        return np.exp(out, out=out)

    def _paired(self, X, Y):
        return np.exp(-np.abs(X - Y).sum(axis=1) / self.bandwidth)

    def _sample_frequencies(self, n_features, dim, rng):
        return rng.standard_cauchy((n_features, dim)) / self.bandwidth


@dataclass(frozen=True)
class IMQKernel(ShiftInvariantKernel):
    """Inverse multiquadric kernel k(x, y) = (c² + ||x - y||²)^β with β in (-1, 0).

    It is a Gamma mixture of Gaussians, (c² + r²)^β = c^{2β} E_t exp(-t r²) with
    t ~ Gamma(-β, rate c²), so its spectral measure is sampled as ω | t ~ N(0, 2t I).
    """

    c: float = 1.0
    beta: float = -0.5

    def __post_init__(self):
        object.__setattr__(self, "c", check_positive(self.c, "c"))
        object.__setattr__(self, "beta", check_in_interval(self.beta, "beta", -1.0, 0.0))

    @property
    def value_at_zero(self) -> float:
        return self.c ** (2 * self.beta)

    def _prepare(self, X):
        return _Prepared(X, np.einsum("ij,ij->i", X, X))

    def _tile(self, a, b, out):
        np.dot(a.X, b.X.T, out=out)
        out *= -2.0
        out += a.h[:, None]
        out += b.h[None, :]
        np.maximum(out, 0.0, out=out)
        out += self.c**2
        return np.power(out, self.beta, out=out)

    def _paired(self, X, Y):
        diff = X - Y
        return (self.c**2 + np.einsum("ij,ij->i", diff, diff)) ** self.beta

    def _sample_frequencies(self, n_features, dim, rng):
        t = rng.gamma(shape=-self.beta, scale=1.0 / self.c**2, size=(n_features, 1))
        return rng.standard_normal((n_features, dim)) * np.sqrt(2.0 * t)


def check_kernel(kernel, name: str = "kernel", *, shift_invariant: bool = False) -> Kernel:
    """Raise TypeError unless ``kernel`` is a kmeviz kernel (of the required kind)."""
    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"{name} must be a kmeviz kernel such as GaussianKernel(1.0), "
            f"got {type(kernel).__name__}"
        )
    if shift_invariant and not isinstance(kernel, ShiftInvariantKernel):
        raise TypeError(f"{name} must be shift-invariant, got {type(kernel).__name__}")
    return kernel


def tile_rows(n_cols: int, working_memory: int = DEFAULT_WORKING_MEMORY) -> int:
    """Rows per tile so that a (rows, n_cols) float64 tile fits ``working_memory``."""
    return max(1, min(int(working_memory // (8 * max(n_cols, 1))), 1 << 20))


def iter_gram_blocks(
    kernel: Kernel, X: np.ndarray, Y: np.ndarray, *, working_memory: int = DEFAULT_WORKING_MEMORY
):
    """Yield ``(row_slice, K[row_slice, :])`` row blocks of the Gram of clean X, Y."""
    b = kernel._prepare(Y)
    rows = tile_rows(Y.shape[0], working_memory)
    for start in range(0, X.shape[0], rows):
        sl = slice(start, min(start + rows, X.shape[0]))
        a = kernel._prepare(X[sl])
        yield sl, kernel._tile(a, b, np.empty((sl.stop - sl.start, Y.shape[0])))


def _tiled_sum(kernel: Kernel, X, Y, working_memory) -> tuple[float, float]:
    """Sum of the Gram of X (symmetric, with trace) or of X against Y, by square tiles."""
    symmetric = Y is None
    Y = X if symmetric else Y
    side = max(64, int(np.sqrt(working_memory / 8)))
    a_full = kernel._prepare(X)
    b_full = a_full if symmetric else kernel._prepare(Y)
    row_starts = range(0, X.shape[0], side)
    col_starts = range(0, Y.shape[0], side)
    tasks = [(i, j) for i in row_starts for j in col_starts if not symmetric or j >= i]

    def part(a, lo, hi):
        return _Prepared(a.X[lo:hi], None if a.h is None else a.h[lo:hi])

    buf = np.empty(side * side)
    total = trace = 0.0
    for i, j in tasks:
        a = part(a_full, i, min(i + side, X.shape[0]))
        b = part(b_full, j, min(j + side, Y.shape[0]))
        shape = (a.X.shape[0], b.X.shape[0])
        tile = kernel._tile(a, b, buf[: shape[0] * shape[1]].reshape(shape))
        s = float(tile.sum())
        if symmetric and i == j:
            total += s
            trace += float(np.trace(tile))
        else:
            total += 2.0 * s if symmetric else s
    return total, trace


def median_heuristic(X, Y=None, *, max_samples: int = 1000, rng=None) -> float:
    """Median pairwise Euclidean distance of the pooled sample (a bandwidth guess).

    Uses a seeded subsample of at most ``max_samples`` points so its cost is bounded.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> 1.0 < median_heuristic(X, rng=0) < 2.5
    True
    """
    if Y is None:
        Z = check_samples(X, "X", min_samples=2)
    else:
        X, Y = check_pair(X, Y)
        Z = np.vstack([X, Y])
    max_samples = check_positive_int(max_samples, "max_samples", minimum=2)
    if Z.shape[0] > max_samples:
        Z = Z[check_rng(rng).choice(Z.shape[0], size=max_samples, replace=False)]
    sq = np.einsum("ij,ij->i", Z, Z)
    d2 = sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T
    iu = np.triu_indices(Z.shape[0], k=1)
    med = float(np.median(np.sqrt(np.maximum(d2[iu], 0.0))))
    if med <= 0.0:
        raise ValueError("median_heuristic: all points coincide; choose a bandwidth by hand")
    return med
