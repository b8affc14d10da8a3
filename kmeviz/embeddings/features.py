"""Random features for shift-invariant kernels: random Fourier features and Fastfood.

Both expose ``projections(X)`` (the inner products ω'x, shape (n, L)) and
``transform(X)``, the feature map z(x) = sqrt(K(0)/L) [cos ω'x, sin ω'x] of
Alg. 2 in Zhao & Meng (FastMMD), so that z(x)'z(y) ≈ k(x, y).
"""

from __future__ import annotations

from functools import cache, partial

import numpy as np
import scipy.linalg

from .._validation import (
    check_choice,
    check_is_fitted,
    check_positive_int,
    check_rng,
    check_samples,
)
from ..chunked import check_any_samples, is_dask_array, row_chunk_sums
from ..config import get_config
from ..kernels import GaussianKernel, check_kernel, rows_within
from ..kernels.engine import column_sums, run_tasks


class _RandomFeatures:
    """Shared feature map and streamed feature means on top of ``_project``."""

    kernel = None
    n_features_: int

    def _check_fitted(self):
        check_is_fitted(self, "dim_")

    def _check_dim(self, X, name="X"):
        X = check_samples(X, name)
        if X.shape[1] != self.dim_:
            raise ValueError(
                f"{name} has dimension {X.shape[1]}, features were fitted for {self.dim_}"
            )
        return X

    def projections(self, X) -> np.ndarray:
        """ω_k'x_i for every sample and frequency, shape (n, L)."""
        self._check_fitted()
        return self._project(self._check_dim(X))

    def transform(self, X) -> np.ndarray:
        """Feature map z(X) of shape (n, 2L) with z(x)'z(y) ≈ k(x, y)."""
        P = self.projections(X)
        scale = np.sqrt(self.kernel.value_at_zero / self.n_features_)
        return scale * np.hstack([np.cos(P), np.sin(P)])

    def _mean_cos_sin(self, X, working_memory=None):
        """Means over rows of cos(ω'x) and sin(ω'x) of a clean sample or of a dask array
        (``check_chunked_samples``), whose chunks are summed where they live."""
        if is_dask_array(X):
            cos_sum, sin_sum = row_chunk_sums(partial(_chunk_cos_sin_sums, self, working_memory),
                                              X)
        else:
            cos_sum, sin_sum = self._cos_sin_sums(X, working_memory)
        return cos_sum / X.shape[0], sin_sum / X.shape[0]

    def _cos_sin_sums(self, X: np.ndarray, working_memory=None):
        """Sums over rows of cos(ω'x) and sin(ω'x), streamed by the engine's threads:
        O(L) extra memory per chunk. With ``config_context(dtype="float32")`` the
        trigonometric functions run in float32 (they have a SIMD path there, float64 has
        not); the sums are float64 either way."""
        config = get_config()
        dtype = np.dtype(config["dtype"])
        rows = min(rows_within(2 * self.n_features_, working_memory), 4 * config["tile_rows"])

        def work(start):
            P = self._project(X[start : start + rows]).astype(dtype, copy=False)
            return column_sums(np.cos(P)), column_sums(np.sin(P))

        cos_sum = np.zeros(self.n_features_)
        sin_sum = np.zeros(self.n_features_)
        for c, s in run_tasks(work, range(0, X.shape[0], rows), config["n_threads"]):
            cos_sum += c
            sin_sum += s
        return cos_sum, sin_sum


def _chunk_cos_sin_sums(features, working_memory, start, X):
    return features._cos_sin_sums(X, working_memory)


#: How ``RandomFourierFeatures`` draws its frequencies.
SAMPLINGS = ("iid", "sobol", "halton")


class RandomFourierFeatures(_RandomFeatures):
    """Random Fourier features (Rahimi & Recht 2007) with ω drawn from p(ω) (Bochner).

    Parameters
    ----------
    kernel : ShiftInvariantKernel
    n_features : int
        L, the number of frequencies (the feature vector has 2L entries).
    frequencies : array (L, d), optional
        Fix ω instead of sampling it (then ``n_features`` is ignored).
    sampling : {"iid", "sobol", "halton"}
        i.i.d. draws from p(ω), or scrambled quasi-Monte Carlo points pushed through its
        inverse CDF (``ShiftInvariantKernel.quasi_frequencies``).
    rng : Generator, int or None

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel
    >>> X = np.random.default_rng(0).normal(size=(5, 3))
    >>> rff = RandomFourierFeatures(GaussianKernel(1.0), 20000, rng=0).fit(X)
    >>> Z = rff.transform(X)
    >>> bool(np.abs(Z @ Z.T - GaussianKernel(1.0)(X)).max() < 0.05)
    True
    """

    def __init__(self, kernel, n_features: int = 1024, *, frequencies=None,
                 sampling: str = "iid", rng=None):
        self.kernel = kernel
        self.n_features = n_features
        self.frequencies = frequencies
        self.sampling = sampling
        self.rng = rng

    def fit(self, X):
        """Draw (or adopt) the frequencies for the dimension of ``X``."""
        check_kernel(self.kernel, shift_invariant=True)
        dim = check_any_samples(X, "X").shape[1]
        if self.frequencies is not None:
            frequencies = check_samples(self.frequencies, "frequencies")
            if frequencies.shape[1] != dim:
                raise ValueError(
                    f"frequencies have dimension {frequencies.shape[1]}, X has {dim}"
                )
            self.frequencies_ = frequencies
        else:
            n_features = check_positive_int(self.n_features, "n_features")
            check_choice(self.sampling, "sampling", SAMPLINGS)
            if self.sampling == "iid":
                self.frequencies_ = self.kernel.sample_frequencies(n_features, dim,
                                                                   rng=check_rng(self.rng))
            else:
                self.frequencies_ = self.kernel.quasi_frequencies(
                    n_features, dim, method=self.sampling, rng=check_rng(self.rng))
        self.n_features_ = self.frequencies_.shape[0]
        self.dim_ = dim
        return self

    def _project(self, X):
        return X @ self.frequencies_.T


#: the transform multiplies by Sylvester–Hadamard blocks of at most 2**_BLOCK_BITS
_BLOCK_BITS = 6


@cache
def _hadamard_block(bits: int) -> np.ndarray:
    """The Sylvester–Hadamard matrix of size 2**bits (read-only, shared)."""
    H = scipy.linalg.hadamard(1 << bits).astype(np.float64)
    H.flags.writeable = False
    return H


def fwht(A: np.ndarray) -> np.ndarray:
    """Unnormalised fast Walsh–Hadamard transform along the last axis (length 2^p).

    Equals ``A @ scipy.linalg.hadamard(n)`` in O(n log n) per row: H_n = H_a ⊗ H_r with
    H_a a Sylvester block of a = 2^{p_1} ≤ 64 rows, so a row read as an a × r matrix M
    (row-major) is transformed to H_a M H_r. H_a M is one batched matrix product over all
    rows (no transposed copies), and M H_r is the same transform of length r, applied to
    the rows of M, down to a single block. Every step runs through BLAS, 2^{p_i}
    operations per entry, instead of p numpy passes over pairs, which cost more than the
    whole dense product at Fastfood's sizes.

    The Hadamard step of Fastfood (Le et al. 2013), FastMMD Sec. 2.3.

    Parameters
    ----------
    A : array (..., 2^p)

    Returns
    -------
    array
        Of the shape of A.
    """
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[-1]
    if n < 1 or n & (n - 1):
        raise ValueError(f"fwht needs a power-of-two length, got {n}")
    return _fwht_rows(A.reshape(-1, n)).reshape(A.shape)


def _fwht_rows(T: np.ndarray) -> np.ndarray:
    """``fwht`` of the rows of a 2-d array (m, 2^p)."""
    p = T.shape[1].bit_length() - 1
    k = max(1, -(-p // _BLOCK_BITS))
    if k == 1:
        return T @ _hadamard_block(p)
    first = p // k + (p % k > 0)  # the blocks' sizes differ by at most one bit
    rest = T.shape[1] >> first
    left = np.matmul(_hadamard_block(first), T.reshape(-1, 1 << first, rest))
    return _fwht_rows(left.reshape(-1, rest)).reshape(T.shape)


class FastfoodFeatures(_RandomFeatures):
    """Fastfood random features for the Gaussian kernel (Le et al. 2013).

    Each block is V = S H G Π H B / (σ sqrt(D)) with D = d zero-padded to a power of
    two, H the Walsh–Hadamard matrix (applied fast), B random signs, Π a random
    permutation, G Gaussian, and S rescaling rows to chi(D)-distributed lengths so
    that V's rows are distributed like N(0, σ⁻² I) frequencies. Blocks are stacked
    until L rows are reached. Parameters take O(L) memory instead of O(L d).

    Parameters
    ----------
    kernel : GaussianKernel
    n_features : int
        L, the number of frequencies.
    rng : Generator, int or None
    """

    def __init__(self, kernel, n_features: int = 1024, *, rng=None):
        self.kernel = kernel
        self.n_features = n_features
        self.rng = rng

    def fit(self, X):
        """Draw B, Π, G and S for the dimension of ``X``."""
        check_kernel(self.kernel, shift_invariant=True)
        if not isinstance(self.kernel, GaussianKernel):
            raise TypeError(
                f"Fastfood approximates the Gaussian kernel only, got "
                f"{type(self.kernel).__name__}"
            )
        n_features = check_positive_int(self.n_features, "n_features")
        dim = check_any_samples(X, "X").shape[1]
        rng = check_rng(self.rng)
        D = 1 << max(0, (dim - 1).bit_length())
        n_blocks = -(-n_features // D)
        self.dim_, self.padded_dim_, self.n_features_ = dim, D, n_features
        self.signs_ = rng.choice([-1.0, 1.0], size=(n_blocks, D))
        self.permutations_ = np.argsort(rng.random((n_blocks, D)), axis=1)
        self.gaussians_ = rng.standard_normal((n_blocks, D))
        radii = np.sqrt(rng.chisquare(D, size=(n_blocks, D)))
        self.scales_ = radii / np.linalg.norm(self.gaussians_, axis=1, keepdims=True)
        return self

    def _project(self, X):
        n, D, d = X.shape[0], self.padded_dim_, self.dim_
        T = np.zeros((n, self.signs_.shape[0], D))
        np.multiply(X[:, None, :], self.signs_[None, :, :d], out=T[:, :, :d])
        T = fwht(T)  # (n, blocks, D): H B x
        # Π: one gather of flat indices (3× faster than take_along_axis here)
        T = np.take(T.reshape(n, -1), self._flat_permutation(), axis=1).reshape(T.shape)
        T *= self.gaussians_[None]
        T = fwht(T)
        T *= (self.scales_ / (self.kernel.bandwidth * np.sqrt(D)))[None]
        return T.reshape(n, -1)[:, : self.n_features_]

    def _flat_permutation(self) -> np.ndarray:
        """Π of every block as indices into a row of all blocks side by side."""
        blocks, D = self.permutations_.shape
        return (self.permutations_ + D * np.arange(blocks)[:, None]).ravel()

    @property
    def frequencies_(self) -> np.ndarray:
        """The implied frequency matrix V restricted to the first d columns, (L, d)."""
        self._check_fitted()
        return self._project(np.eye(self.dim_)).T
