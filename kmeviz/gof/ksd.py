"""Kernel Stein discrepancies (Kalinke, Szabó & Sriperumbudur, *Nyström Kernel Stein
Discrepancy*): the Stein kernel, KSD², Nyström KSD² and their statistics.

The Stein kernel h_p itself (Eq. 3) is ``kmeviz.kernels.SteinKernel``; its Gram matrices
are streamed in row blocks like the other kernels. The tests are in
``kmeviz.goodness_of_fit``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice
from ..embeddings.kme import draw_landmarks, pinv_psd
from ..kernels import DEFAULT_WORKING_MEMORY, SteinKernel, prepared_rows
from ..results import warn_deprecated


def ksd2(X, target, kernel, *, estimator: str = "biased",
         working_memory: int = DEFAULT_WORKING_MEMORY) -> float:
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
    stein = SteinKernel(kernel, target)
    a = stein.prepare(X)
    n = a[0].shape[0]
    if estimator == "unbiased" and n < 2:
        raise ValueError("the U-statistic needs at least 2 samples")
    total = sum(float(block.sum()) for _, block in stein.row_blocks(a, a, working_memory))
    if estimator == "biased":
        return total / n**2
    return (total - float(stein.diag(a.X).sum())) / (n * (n - 1))


class NystromStein:
    """The Nyström KSD pieces of Lemma 1: landmarks x̃ (indices into X, with replacement),
    β = K_mn 1/n, and a factor R of K_mm⁺ = RᵀR (eigenvalues below 1e-10 × max dropped).

    ``statistic`` is β K_mm⁺ β = ||R β||² (Eq. 8); the witness and bootstrap reuse R.
    Given ``signs`` — an (n, D) array W or a stream with ``take(rows)`` — the same pass also
    computes K_mn W for the bootstrap (Eq. 11).
    """

    def __init__(self, X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None,
                 signs=None, working_memory: int = DEFAULT_WORKING_MEMORY):
        self.stein = SteinKernel(kernel, target)
        self.prepared = self.stein.prepare(X)
        n = self.prepared[0].shape[0]
        m = default_stein_landmarks(n) if n_landmarks is None else n_landmarks
        self.landmarks = draw_landmarks(n, m if landmarks is None else None, landmarks,
                                        True, rng)
        self.working_memory = working_memory
        lm = prepared_rows(self.prepared, self.landmarks)
        self.landmark_data = lm
        # divide-and-conquer eigh: repeated landmarks make MRRR (scipy's default) slow
        w, V = pinv_psd(self.stein.tile(lm, lm), driver="evd")
        self.R = (V / np.sqrt(w)).T  # (rank, m)
        # one pass over blocks of samples: β = K_mn 1 / n and, for a test, K_mn W
        self.beta = np.zeros(self.landmarks.size)
        self.projected_signs = None
        for sl, block in self.stein.row_blocks(self.prepared, lm, working_memory):
            self.beta += block.sum(axis=0)
            if signs is not None:
                W = signs[sl] if isinstance(signs, np.ndarray) else signs.take(sl.stop - sl.start)
                if self.projected_signs is None:
                    self.projected_signs = np.zeros((lm[0].shape[0], W.shape[1]))
                self.projected_signs += block.T @ W
        self.beta /= n

    @property
    def statistic(self) -> float:
        return float(np.sum((self.R @ self.beta) ** 2))

    def project(self, W: np.ndarray) -> np.ndarray:
        """K_mn W (m, D) streamed over blocks of samples: O(m n D) time, O(m D) memory."""
        out = np.zeros((self.landmarks.size, W.shape[1]))
        for sl, block in self.stein.row_blocks(self.prepared, self.landmark_data,
                                               self.working_memory):
            out += block.T @ W[sl]
        return out

    @property
    def weights(self) -> np.ndarray:
        """α = K_mm⁺ β: the projected embedding is Σ_j α_j h_p(x̃_j, ·) (Eq. 6)."""
        return self.R.T @ (self.R @ self.beta)

    def witness(self, grid) -> np.ndarray:
        """x ↦ Σ_j α_j h_p(x̃_j, x): the projected Stein witness."""
        return self.stein.tile(self.stein.prepare(grid), self.landmark_data) @ self.weights


def default_stein_landmarks(n: int) -> int:
    """m = ceil(4√n), the paper's choice in every experiment of Sec. 5."""
    return max(1, int(np.ceil(4.0 * np.sqrt(n))))


def ksd2_nystrom(X, target, kernel, *, n_landmarks=None, landmarks=None, rng=None) -> float:
    """Nyström KSD² = β_pᵀ K_mm⁺ β_p (Lemma 1, Eq. 8), landmarks drawn with replacement
    (default m = 4√n) or given as indices into X. O(nm + m³) time, O(nm) memory at most."""
    return NystromStein(X, target, kernel, n_landmarks=n_landmarks, landmarks=landmarks,
                        rng=rng).statistic


def stein_witness(X, target, kernel, grid, *, weights=None) -> np.ndarray:
    """x ↦ (1/n) Σ_i h_p(x_i, x), the witness of the full KSD, at each row of ``grid``; with
    ``weights`` α, x ↦ Σ_i α_i h_p(x_i, x) (e.g. the Nyström weights of a test result)."""
    stein = SteinKernel(kernel, target)
    values = stein.tile(stein.prepare(grid), stein.prepare(X))
    return values.mean(axis=1) if weights is None else values @ np.asarray(weights, float)
