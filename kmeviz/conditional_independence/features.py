"""Linear-time conditional independence tests from finite feature maps: RCIT and RCoT
(Strobl, Zhang & Visweswaran 2019, *Approximate kernel-based conditional independence
tests for fast non-parametric causal discovery*, J. Causal Inference 7) with random
Fourier features, and the Nyström approximation of KCI.

With centred features Φ_X, Φ_Y, Φ_Z (n × D each, K̃ ≈ ΦΦᵀ), KCI's residual operator acts
on features: A = R_Z Φ_X = Φ_X − Φ_Z(Φ_ZᵀΦ_Z + εI)⁻¹Φ_ZᵀΦ_X (Woodbury, as in
``kci.Residualiser``), so K̃_{Ẍ|Z} = AAᵀ, K̃_{Y|Z} = BBᵀ and

    T = (1/n) tr(AAᵀBBᵀ) = ||AᵀB||²_F / n,

KCI's statistic of the approximate kernels, exactly (with all n landmarks the Nyström
version *is* KCI). Under H0 T → (1/n) Σ λ_k z_k², λ the eigenvalues of UᵀU, U = A ⊙ B the
row-wise products (D_X D_Y columns): RCoT's null (Strobl et al. Sec. 4.2, "Cov" of the
products of the residual features), simulated (``spectral``) or moment-matched by a Gamma
law (their "Satterthwaite–Welch").

RCoT conditions X and Y on Z; RCIT conditions X on Z and Ÿ = (Y, Z) (their R code's
``y = cbind(y, z)``). Features: √2-scaled Fourier features of a Gaussian kernel at each
z-scored variable's median distance, L frequencies as [cos, sin] pairs (2L features),
and the ridge of the regression on Z 10⁻¹⁰ in covariance units (their ``Czz + 1e-10 I``).
Their code also standardises each feature column; with that ridge this inflated RCoT's
size to 15 % at n = 400 on a fork with non-linear links (100 draws), 3 % without it, so
the features here are not standardised (the Fourier features share one scale anyway).

Two passes over row blocks (the second forms the residuals with the first's
coefficients): O(n (D_Z² + (D_X D_Y)²)) time, O(D²) memory beside the sample, and dask
arrays are read chunk by chunk (``kmeviz.chunked.row_chunk_sums``).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ..chunked import is_dask_array, row_chunk_sums

#: Rows of a numpy sample read at once.
ROWS_PER_BLOCK = 4096
#: RCoT's ridge of the regression on Z, in covariance units (Strobl et al.'s R code).
RCOT_RIDGE = 1e-10


def _block_sums(arrays, work) -> tuple:
    """Σ over row blocks of ``work(start, *blocks)`` (tuples added term by term)."""
    if any(is_dask_array(a) for a in arrays):
        return row_chunk_sums(work, *arrays, name="X, Y and Z")
    parts = [work(s, *(a[s : s + ROWS_PER_BLOCK] for a in arrays))
             for s in range(0, arrays[0].shape[0], ROWS_PER_BLOCK)]
    return tuple(sum(p[i] for p in parts) for i in range(len(parts[0])))


class FeatureResiduals:
    """The residual features A = R_Z Φ_X, B = R_Z Φ_Y of three feature maps, and the
    sums of the statistic and its null, from two passes over the rows.

    Parameters
    ----------
    maps : (map_x, map_y, map_z)
        Row block -> features (n_block × D).
    arrays : (X, Y, Z)
        The inputs of the maps (numpy or dask, the same rows).
    ridge : float
        ε / n: the ridge of the regression on Z in covariance units.

    (Strobl et al. 2019, Sec. 4; Zhang et al. 2011, Eq. 12 on the features.)
    """

    def __init__(self, maps, arrays, ridge: float):
        self.maps, self.arrays, self.ridge = maps, arrays, float(ridge)
        n, sx, sy, sz, zz, zx, zy = _block_sums(arrays, self._first)
        self.n = int(n)
        self.means = [s / n for s in (sx, sy, sz)]
        mx, my, mz = self.means
        czz = zz / n - np.outer(mz, mz)
        czx, czy = zx / n - np.outer(mz, mx), zy / n - np.outer(mz, my)
        # (C_ZZ + ridge I)⁻¹ by eigenvalues clipped at 0: round-off in the summed moments
        # of thousands of collinear Fourier features leaves eigenvalues of -1e-13
        w, V = linalg.eigh(czz, check_finite=False)
        inverse = (V / (np.clip(w, 0.0, None) + self.ridge)) @ V.T
        self.beta_x, self.beta_y = inverse @ czx, inverse @ czy
        w = np.clip(w, 0.0, None)
        #: the regression's degrees of freedom tr(Φ_Z(Φ_ZᵀΦ_Z + nρI)⁻¹Φ_Zᵀ) (ρ the ridge)
        self.degrees_of_freedom = float(np.sum(w / (w + self.ridge)))
        self.cross, self.diagonal_products, self.product_gram = _block_sums(arrays,
                                                                             self._second)

    def _first(self, _start, x, y, z):
        fx, fy, fz = (m(v) for m, v in zip(self.maps, (x, y, z), strict=True))
        return (float(x.shape[0]), fx.sum(0), fy.sum(0), fz.sum(0), fz.T @ fz, fz.T @ fx,
                fz.T @ fy)

    def residuals(self, x, y, z) -> tuple[np.ndarray, np.ndarray]:
        """(A, B) of one row block."""
        fx, fy, fz = (m(v) - mu for m, v, mu in
                      zip(self.maps, (x, y, z), self.means, strict=True))
        return fx - fz @ self.beta_x, fy - fz @ self.beta_y

    def _second(self, _start, x, y, z):
        a, b = self.residuals(x, y, z)
        u = (a[:, :, None] * b[:, None, :]).reshape(a.shape[0], -1)
        return a.T @ b, float(np.dot((a**2).sum(1), (b**2).sum(1))), u.T @ u

    def statistic(self) -> float:
        """T = ||AᵀB||²_F / n."""
        return float(np.sum(self.cross**2)) / self.n

    def gamma_moments(self) -> dict:
        """Mean tr(UUᵀ)/n = Σ_t |a_t|²|b_t|² / n and variance 2||UᵀU||²_F / n²."""
        n = self.n
        mean = self.diagonal_products / n
        variance = 2.0 * float(np.sum(self.product_gram**2)) / n**2
        return {"shape": mean**2 / variance, "scale": variance / mean, "mean": mean,
                "variance": variance}

    def spectral_weights(self) -> np.ndarray:
        """The eigenvalues of UᵀU / n, largest first."""
        lam = linalg.eigvalsh(self.product_gram, check_finite=False)
        return np.clip(lam[::-1], 0.0, None) / self.n
