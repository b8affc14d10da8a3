"""Kernel Stein discrepancies (Kalinke, Szabó & Sriperumbudur, *Nyström Kernel Stein
Discrepancy*): the Stein kernel, KSD², Nyström KSD² and their statistics.

The Stein kernel h_p itself (Eq. 3) is ``kmeviz.kernels.SteinKernel``, a kernel of the
protocol; Nyström KSD is ``NystromKME`` applied to it. The tests are in ``kmeviz.gof.test``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_samples
from ..chunked import check_any_samples, reject_dask
from ..embeddings.kme import NystromKME
from ..kernels import SteinKernel, row_block_results
from ..results import warn_deprecated


def ksd2(X, target, kernel, *, estimator: str = "biased",
         working_memory: int | None = None) -> float:
    """KSD² by the V-statistic (1/n²) Σ_ij h_p(x_i, x_j) (Eq. 5, ``estimator="biased"``)
    or the U-statistic that drops i = j (Liu et al. 2016, ``"unbiased"``), the names of
    ``mmd2``. O(n²) time, O(working_memory) extra memory.

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel, NormalTarget
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> u = ksd2(X, NormalTarget(np.zeros(2)), GaussianKernel(1.0), estimator="unbiased")
    >>> bool(abs(u) < 0.01)
    True
    """
    if estimator in ("v", "u"):
        new = {"v": "biased", "u": "unbiased"}[estimator]
        warn_deprecated(f"ksd2(estimator={estimator!r})", f"estimator={new!r} (as in mmd2)")
        estimator = new
    check_choice(estimator, "estimator", ("biased", "unbiased"))
    reject_dask(X, "X", "ksd2", "ksd2_nystrom or ksd_test(method='nystrom')")
    stein = SteinKernel(kernel, target)
    a = stein.prepare(X)
    n = a[0].shape[0]
    if estimator == "unbiased" and n < 2:
        raise ValueError("the U-statistic needs at least 2 samples")
    total = sum(row_block_results(stein, a, a,
                                  lambda sl, block, _: float(block.sum(dtype=np.float64)),
                                  working_memory=working_memory))
    if estimator == "biased":
        return total / n**2
    return (total - float(stein.diag(a.X).sum())) / (n * (n - 1))


def nystrom_stein(X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None,
                  project=None, working_memory: int | None = None) -> NystromKME:
    """The Nyström KSD pieces of Lemma 1, fitted: a ``NystromKME`` of the Stein kernel h_p
    on m landmarks drawn with replacement (default m = 4√n) or given as indices into X.

    Its ``squared_norm()`` is Nyström KSD² (Eq. 8), ``weights_`` the α of the projected
    witness (Eq. 6), and ``fit(X, project=W)`` the K_mn W of the bootstrap (Eq. 11).
    """
    X = check_any_samples(X, "X")
    m = default_stein_landmarks(X.shape[0]) if n_landmarks is None else n_landmarks
    embedding = NystromKME(SteinKernel(kernel, target), None if landmarks is not None else m,
                           landmarks=landmarks, working_memory=working_memory, rng=rng)
    return embedding.fit(X, project=project)


class NystromStein(NystromKME):
    """Deprecated: use ``nystrom_stein`` (a ``NystromKME`` of the Stein kernel)."""

    def __init__(self, X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None,
                 signs=None, working_memory: int | None = None):
        warn_deprecated("NystromStein", "nystrom_stein(X, target, kernel, ...), a NystromKME "
                        "of the Stein kernel")
        fitted = nystrom_stein(X, target, kernel, n_landmarks=n_landmarks, landmarks=landmarks,
                               rng=rng, project=signs, working_memory=working_memory)
        self.__dict__.update(fitted.__dict__)
        self.stein, self._X = fitted.kernel, check_samples(X, "X")
        self.landmarks, self.beta = fitted.landmark_indices_, fitted.mean_map_
        self.R = fitted.factor_
        self.projected_signs, self.weights = fitted.projected_, fitted.weights_
        self.statistic = fitted.squared_norm()

    def project(self, W):
        return NystromKME(self.stein, landmarks=self.landmarks).fit(self._X, project=W).projected_

    witness = NystromKME.evaluate


def default_stein_landmarks(n: int) -> int:
    """m = ceil(4√n), the paper's choice in every experiment of Sec. 5."""
    return max(1, int(np.ceil(4.0 * np.sqrt(n))))


def ksd2_nystrom(X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None) -> float:
    """Nyström KSD² = β_pᵀ K_mm⁻ β_p (Lemma 1, Eq. 8), landmarks drawn with replacement
    (default m = 4√n) or given as indices into X. O(nm + m³) time, O(m² + tile) memory.
    X may be a dask array (``kmeviz.chunked``)."""
    return nystrom_stein(X, target, kernel, n_landmarks=n_landmarks, landmarks=landmarks,
                         rng=rng).squared_norm()


def stein_witness(X, target, kernel, grid, *, weights=None) -> np.ndarray:
    """x ↦ (1/n) Σ_i h_p(x_i, x), the witness of the full KSD, at each row of ``grid``; with
    ``weights`` α, x ↦ Σ_i α_i h_p(x_i, x) (e.g. the Nyström weights of a test result).

    Kalinke et al. Eq. 6 (the full witness; the Nyström one projects it).
    """
    stein = SteinKernel(kernel, target)
    values = stein.tile(stein.prepare(grid), stein.prepare(X))
    return values.mean(axis=1) if weights is None else values @ np.asarray(weights, float)
