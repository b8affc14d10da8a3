"""The Stein kernel h_p (Kalinke, Szabó & Sriperumbudur, Eq. 3) as a kernel.

For a target p known through its score s = ∇ log p and a radial base kernel
k(x, y) = φ(||x - y||²), with u = x - y and r² = ||u||²,

    h_p(x, y) = φ sₓ·s_y + 2φ' (s_y·u - sₓ·u) - 4φ'' r² - 2dφ',

so a Gram tile costs four (rows × d) @ (d × cols) products. Any ``RadialKernel`` (one
that gives φ, φ' and φ'') can be the base kernel.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.spatial.distance import cdist

from .base import Kernel, RadialKernel, check_kernel
from .engine import scratch


def checked_score(target, X: np.ndarray) -> np.ndarray:
    """target.score(X), checked to be a finite (n, d) array."""
    if not callable(getattr(target, "score", None)):
        raise TypeError(f"target must have a score(X) method, got {type(target).__name__}")
    S = np.asarray(target.score(X), dtype=float)
    if S.shape != X.shape:
        raise ValueError(f"target.score returned shape {S.shape}, expected {X.shape} "
                         "(one gradient of log p per row of X)")
    if not np.all(np.isfinite(S)):
        raise ValueError("target.score returned non-finite values (NaN or inf)")
    return S


class SteinPrepared(NamedTuple):
    """A sample with its score: X, S = ∇ log p(X), rowsum(X∘S) and rowsum(X∘X)."""

    X: np.ndarray
    S: np.ndarray
    xs: np.ndarray
    xx: np.ndarray


def stein_parts(a: SteinPrepared, b: SteinPrepared, dtype) -> tuple:
    """(r², sₓ·s_y, s_y·u - sₓ·u) between two prepared blocks, in ``dtype``: the parts of
    h_p that every base kernel shares (``SteinKernel.tile_from_parts``)."""
    sq = cdist(a.X, b.X, "sqeuclidean").astype(dtype, copy=False)
    cross = (a.X @ b.S.T + a.S @ b.X.T - a.xs[:, None] - b.xs[None, :]).astype(dtype,
                                                                             copy=False)
    return sq, (a.S @ b.S.T).astype(dtype, copy=False), cross


class SteinKernel(Kernel):
    """h_p of Eq. (3): a kernel built from a radial base kernel and a target's score.

    It follows the kernel protocol (``gram``, ``gram_blocks``, ``paired``, ``diag``,
    ``gram_sum``, ``prepare``/``tile``), so every kernel-generic estimator
    applies to it: Nyström KSD is ``NystromKME`` on a Stein kernel (Lemma 1).

    Parameters
    ----------
    kernel : RadialKernel
        The base kernel k.
    target : object with ``score(X)``
    """

    def __init__(self, kernel, target):
        self.kernel = check_kernel(kernel, "kernel")
        if not isinstance(self.kernel, RadialKernel):
            raise TypeError("the Stein kernel needs a radial base kernel k(x, y) = "
                            "φ(||x - y||²): a GaussianKernel or an IMQKernel, or your own "
                            f"RadialKernel; got {type(self.kernel).__name__}")
        self.target = target

    #: a tile holds sₓ·s_y, r², the cross term, φ, φ' and φ''
    tile_temporaries = 6

    def prepare_validated(self, X) -> SteinPrepared:
        S = checked_score(self.target, X)
        return SteinPrepared(X, S, np.einsum("ij,ij->i", X, S), np.einsum("ij,ij->i", X, X))

    def _combine(self, sq, ss, cross, dim, buffers):
        """φ sₓ·s_y + 2φ'(s_y·u - sₓ·u - d) - 4φ'' r² from r², sₓ·s_y and s_y·u - sₓ·u,
        written over ``ss`` (``cross`` is overwritten); (φ, φ', φ'') go to ``buffers``,
        three distinct arrays of sq's shape."""
        phi, d1, d2 = self._derivatives(sq, buffers)
        cross -= dim
        d1 *= 2.0
        cross *= d1
        d2 *= sq
        d2 *= 4.0
        ss *= phi
        ss += cross
        ss -= d2
        return ss

    def tile_into(self, a: SteinPrepared, b: SteinPrepared, out: np.ndarray) -> np.ndarray:
        """h_p(a_i, b_j) for two prepared blocks, written to ``out``.

        r², the cross term and (φ, φ', φ'') live in per-thread scratch arrays, so a tile
        allocates nothing (fresh temporaries cost as much as the arithmetic)."""
        shape, dtype = out.shape, out.dtype
        sq, cross = (scratch(f"stein.{name}", shape, dtype) for name in ("sq", "cross"))
        np.matmul(a.X, b.X.T, out=sq)
        sq *= -2.0
        sq += a.xx[:, None]
        sq += b.xx[None, :]
        np.clip(sq, 0.0, np.inf, out=sq)
        np.matmul(a.X, b.S.T, out=cross)
        cross += np.matmul(a.S, b.X.T, out=out)
        cross -= a.xs[:, None]
        cross -= b.xs[None, :]  # s_y·u - sₓ·u
        buffers = tuple(scratch(f"stein.d{i}", shape, dtype) for i in range(3))
        return self._combine(sq, np.matmul(a.S, b.S.T, out=out), cross, a.X.shape[1],
                             buffers)

    def tile_from_parts(self, sq, ss, cross, dim: int, out: np.ndarray) -> np.ndarray:
        """h_p written to ``out`` from the parts of a tile that do not depend on the base
        kernel: r², sₓ·s_y and s_y·u - sₓ·u (``stein_parts``), in dimension ``dim``. The
        parts are left as they are, so the kernels of a collection share them (KSDAgg)."""
        np.copyto(out, ss)
        work = scratch("stein.parts_cross", out.shape, out.dtype)
        np.copyto(work, cross)
        buffers = tuple(scratch(f"stein.d{i}", out.shape, out.dtype) for i in range(3))
        return self._combine(sq, out, work, dim, buffers)

    def _derivatives(self, sq, buffers):
        """(φ, φ', φ'') into ``buffers``; a user kernel without ``out`` gets copied in."""
        try:
            return self.kernel.radial_derivatives(sq, out=buffers)
        except TypeError:  # radial_derivatives(sq) only
            for buffer, values in zip(buffers, self.kernel.radial_derivatives(sq),
                                      strict=True):
                buffer[...] = values
            return buffers

    def paired_prepared(self, a: SteinPrepared, b: SteinPrepared) -> np.ndarray:
        """h_p(a_i, b_i) for prepared blocks of equal length (row by row)."""
        sq = np.maximum(a.xx + b.xx - 2.0 * np.einsum("ij,ij->i", a.X, b.X), 0.0)
        cross = (np.einsum("ij,ij->i", a.X, b.S) + np.einsum("ij,ij->i", a.S, b.X)
                 - a.xs - b.xs)
        return self._combine(sq, np.einsum("ij,ij->i", a.S, b.S), cross, a.X.shape[1],
                             tuple(np.empty_like(sq) for _ in range(3)))

    def paired(self, X, Y) -> np.ndarray:
        return self.paired_prepared(self.prepare_validated(X), self.prepare_validated(Y))

    def diag(self, X) -> np.ndarray:
        """h_p(x, x) = φ(0) ||s(x)||² - 2d φ'(0)."""
        S = checked_score(self.target, X)
        phi, d1, _ = self.kernel.radial_derivatives(np.zeros(1))
        return phi[0] * np.einsum("ij,ij->i", S, S) - 2.0 * X.shape[1] * d1[0]

    def __call__(self, X, Y=None) -> np.ndarray:
        """The Stein Gram matrix [h_p(x_i, y_j)]."""
        a = self.prepare(X)
        return self.tile(a, a if Y is None else self.prepare(Y))

