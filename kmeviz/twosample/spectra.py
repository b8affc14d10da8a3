"""The spectrum behind the spectral null of MMD² (Gretton et al. 2009): eigenvalues of the
centred joint Gram H K H / N, exactly (LAPACK, eigenvalues only) or, above a size, its
leading r eigenvalues with the rest of the spectrum summarised by its exact sum and sum
of squares.

The truncated route never stores the N × N Gram: it runs randomized subspace iteration
(Halko, Martinsson & Tropp 2011, Alg. 4.4) with each product H K H V computed by the tile
engine, and gets tr(HKH) and ||HKH||_F² exactly from the same passes, so the tail of the
spectrum keeps its exact mean and variance in the null (``SpectralNull.draws``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ..kernels import gram_pass

#: above this pooled size N the spectral null uses the leading eigenvalues by default
EXACT_MAX = 2500
#: leading eigenvalues kept by default above ``EXACT_MAX``
DEFAULT_RANK = 200
#: normal draws held at once by ``SpectralNull.draws`` (32 MB)
DRAW_ENTRIES = 1 << 22
#: extra columns of the random sketch, and its power iterations
OVERSAMPLE, POWER_ITERATIONS = 20, 2


@dataclass(frozen=True)
class SpectralNull:
    """The spectral null of MMD² (Gretton et al. 2009): the eigenvalues λ_l of H K H / N
    that enter it, and the exact sum and sum of squares of the ones left out (0 when the
    spectrum is exact)."""

    eigenvalues: np.ndarray
    tail_sum: float = 0.0
    tail_square_sum: float = 0.0

    @property
    def truncated(self) -> bool:
        return self.tail_sum > 0.0

    def draws(self, m: int, n: int, estimator: str, B: int, rng) -> np.ndarray:
        """B draws of (1/m + 1/n) Σ_l λ_l (z_l² [- 1]). The left-out part Σ_tail λ_l z_l²
        is drawn from the Gamma law with its exact mean Σ λ_l and variance 2 Σ λ_l² (the
        law itself when the left-out λ_l are equal)."""
        total = np.empty(B)
        rows = max(1, DRAW_ENTRIES // max(self.eigenvalues.size, 1))
        for start in range(0, B, rows):  # O(DRAW_ENTRIES) memory whatever B and N
            z2 = rng.standard_normal((min(rows, B - start), self.eigenvalues.size)) ** 2
            if estimator == "unbiased":
                z2 -= 1.0
            total[start:start + z2.shape[0]] = z2 @ self.eigenvalues
        if self.truncated:
            scale = 2.0 * self.tail_square_sum / self.tail_sum
            tail = rng.gamma(self.tail_sum / scale, scale, size=B)
            total += tail - self.tail_sum if estimator == "unbiased" else tail
        return (1.0 / m + 1.0 / n) * total


def centred_gram(Z, kernel) -> np.ndarray:
    """H K H for the pooled sample Z (H the centring matrix), centred in place."""
    K = kernel.gram(Z, Z)
    row = K.mean(axis=1)
    K -= row[:, None]
    K -= row[None, :]
    K += row.mean()
    return K


def exact_centred_eigenvalues(Z, kernel) -> np.ndarray:
    """All eigenvalues of H K H / N for the pooled sample Z (N × N Gram in memory, one
    LAPACK call without eigenvectors)."""
    K = centred_gram(Z, kernel)
    K /= Z.shape[0]
    return linalg.eigvalsh(K, overwrite_a=True, check_finite=False)


def _centred_products(kernel, Z, V: np.ndarray, *, moments: bool = False):
    """H K H V for the pooled sample Z, streamed over row blocks of K; with ``moments``
    also (Σ_i K_ii, K1, ||K||_F²) from the same pass."""
    V = V - V.mean(axis=0)

    def work(rows, block, _):
        block64 = block.astype(np.float64, copy=False)
        product = block64 @ V
        if not moments:
            return product, None
        diagonal = block64[np.arange(block.shape[0]), np.arange(rows.start, rows.stop)]
        return product, (diagonal.sum(), block64.sum(axis=1), np.einsum("ij,ij->", block64,
                                                                         block64))
    parts = list(gram_pass(kernel, Z, Z, work))
    KV = np.vstack([p for p, _ in parts])
    KV -= KV.mean(axis=0)
    if not moments:
        return KV, None
    trace = sum(s[0] for _, s in parts)
    row_sums = np.concatenate([s[1] for _, s in parts])
    frobenius = sum(s[2] for _, s in parts)
    return KV, (trace, row_sums, frobenius)


def leading_centred_eigenvalues(Z, kernel, rank: int, rng) -> SpectralNull:
    """The ``rank`` leading eigenvalues of H K H / N by randomized subspace iteration
    (``POWER_ITERATIONS`` passes after the sketch, ``OVERSAMPLE`` extra columns), and the
    exact sum and sum of squares of the others, in O(N · rank) memory.

    tr(HKH) = Σ K_ii - 1ᵀK1/N and ||HKH||_F² = ||K||_F² - 2||K1||²/N + (1ᵀK1)²/N² come from
    the sketch's pass. The kept eigenvalues are Rayleigh–Ritz values, never larger than
    the true ones, so the tail sums are never negative.
    """
    N = Z.shape[0]
    columns = min(N, rank + OVERSAMPLE)
    Y, (diag_sum, k1, frobenius) = _centred_products(
        kernel, Z, rng.standard_normal((N, columns)), moments=True)
    for _ in range(POWER_ITERATIONS):
        Q, _ = linalg.qr(Y, mode="economic", check_finite=False)
        Y, _ = _centred_products(kernel, Z, Q)
    Q, _ = linalg.qr(Y, mode="economic", check_finite=False)
    KQ, _ = _centred_products(kernel, Z, Q)
    ritz = linalg.eigvalsh((Q.T @ KQ + KQ.T @ Q) / 2.0, check_finite=False)[::-1] / N
    lead = np.clip(ritz[:rank], 0.0, None)
    total = k1.sum()
    trace = (diag_sum - total / N) / N
    squares = (frobenius - 2.0 * (k1 @ k1) / N + total**2 / N**2) / N**2
    tail_sum = max(trace - lead.sum(), 0.0)
    tail_square_sum = max(squares - lead @ lead, 0.0)
    if tail_sum <= 1e-12 * max(trace, 1e-300) or tail_square_sum <= 0.0:
        tail_sum = tail_square_sum = 0.0
    return SpectralNull(lead, tail_sum, tail_square_sum)
