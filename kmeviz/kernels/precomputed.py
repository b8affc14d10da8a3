"""A precomputed Gram matrix as a kernel: tests on a graph, string or any other kernel
that the user evaluated elsewhere.

The "points" of a ``PrecomputedKernel`` are row indices into its Gram matrix, one column
of integers: ``kernel.samples(labels)`` splits the N indices by a two-valued labelling
into the (m, 1) and (n, 1) index columns X and Y that ``mmd_test`` takes. Every test
that only evaluates k on pairs of points then works unchanged (the exact MMD² with its
permutation, wild-bootstrap, Gamma, spectral and Pearson nulls; also the linear-time,
B-test and pooled-landmark Nyström ones); a test that needs random features of a
shift-invariant kernel (FastMMD) refuses it with a TypeError.

Examples
--------
>>> import numpy as np
>>> from kmeviz import mmd_test
>>> rng = np.random.default_rng(0)
>>> Z = np.vstack([rng.normal(size=(40, 2)), rng.normal(2.0, 1.0, size=(40, 2))])
>>> K = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / 2)
>>> kernel = PrecomputedKernel(K)
>>> X, Y = kernel.samples(np.repeat(["a", "b"], 40))
>>> bool(mmd_test(X, Y, kernel, n_resamples=200, rng=0).reject)
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .base import Kernel


class _Indices(NamedTuple):
    X: np.ndarray  # the (n, 1) float index column, as the engine passes it along
    rows: np.ndarray  # the same indices as intp


class PrecomputedKernel(Kernel):
    """k(i, j) = K[i, j] for a user's N × N Gram matrix K; points are row indices.

    Parameters
    ----------
    gram : array (N, N)
        Real, finite and symmetric: ``abs(K - K.T) <= rtol * abs(K).max()`` entrywise.
        It is copied and frozen (read-only). Positive semi-definiteness is not checked
        (an O(N³) eigendecomposition); an indefinite K gives tests without their
        guarantees.
    rtol : float
        The symmetry tolerance (default 1e-8, round-off of a Gram computed in float64).

    Returns
    -------
    PrecomputedKernel

    (Implements no paper equation: the kernel of Gretton et al. 2012's MMD, given as a
    matrix; the tests' equations are those of ``mmd_test``.)
    """

    points_are_indices = True

    def __init__(self, gram, *, rtol: float = 1e-8):
        if isinstance(gram, (str, bytes)) or gram is None:
            raise TypeError(f"gram must be a square 2-D array, got {type(gram).__name__}")
        try:
            K = np.array(gram, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("gram must be a square 2-D array of real numbers") from None
        if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] < 4:
            raise ValueError(f"gram must be a square N × N matrix with N >= 4, got shape "
                             f"{K.shape}")
        if not np.all(np.isfinite(K)):
            raise ValueError(f"gram has {np.count_nonzero(~np.isfinite(K))} NaN or "
                             "infinite entries")
        scale = float(np.max(np.abs(K))) or 1.0
        asymmetry = float(np.max(np.abs(K - K.T)))
        if asymmetry > rtol * scale:
            raise ValueError(f"gram is not symmetric: max |K - K.T| = {asymmetry:.3g} > "
                             f"rtol · max|K| = {rtol * scale:.3g}")
        K = (K + K.T) / 2.0
        K.setflags(write=False)
        self.gram_matrix = K

    @property
    def size(self) -> int:
        """N, the number of points the Gram matrix covers."""
        return self.gram_matrix.shape[0]

    def __repr__(self) -> str:
        return f"PrecomputedKernel(N={self.size})"

    def samples(self, labels) -> tuple[np.ndarray, np.ndarray]:
        """Split the points by a labelling with exactly two values.

        Parameters
        ----------
        labels : array (N,)
            One label per row of the Gram matrix (booleans, 0/1, two strings, ...). The
            first value in sorted order labels X.

        Returns
        -------
        X, Y : arrays (m, 1) and (n, 1)
            The row indices of each group, as the points of this kernel.
        """
        labels = np.asarray(labels)
        if labels.ndim != 1 or labels.shape[0] != self.size:
            raise ValueError(f"labels must have one entry per row of the Gram matrix "
                             f"({self.size}), got shape {labels.shape}")
        values = np.unique(labels)
        if values.size != 2:
            raise ValueError(f"labels must take exactly two values, got {values.size}")
        index = np.arange(self.size, dtype=np.float64)[:, None]
        X, Y = index[labels == values[0]], index[labels == values[1]]
        if min(len(X), len(Y)) < 2:
            raise ValueError(f"each group needs at least 2 points, got {len(X)} and {len(Y)}")
        return X, Y

    def _rows(self, X: np.ndarray) -> np.ndarray:
        rows = X[:, 0].astype(np.intp) if X.ndim == 2 else np.empty(0, np.intp)
        if X.ndim != 2 or X.shape[1] != 1 or np.any(rows != X[:, 0]) or (
                rows.size and (rows.min() < 0 or rows.max() >= self.size)):
            raise ValueError(f"the points of a PrecomputedKernel are row indices 0..."
                             f"{self.size - 1} in one column (from kernel.samples(labels)), "
                             f"got an array of shape {X.shape}")
        return rows

    def prepare_validated(self, X):
        return _Indices(X, self._rows(X))

    def tile_into(self, a, b, out):
        out[...] = self.gram_matrix[np.ix_(a.rows, b.rows)]
        return out

    def paired(self, X, Y):
        return self.gram_matrix[self._rows(X), self._rows(Y)]
