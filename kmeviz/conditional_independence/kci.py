"""The kernel conditional independence test KCI (Zhang, Peters, Janzing & Schölkopf 2011,
*Kernel-based conditional independence test and application in causal discovery*, UAI).

Under H0: X ⫫ Y | Z, the residuals of Ẍ = (X, Z) and of Y after the kernel ridge
regression on Z are uncorrelated in every RKHS direction (Zhang et al. Prop. 5). With
centred Grams K̃ = HKH, the regression residual of a kernel column k̃ on Z is

    R_Z k̃ = k̃ − K̃_Z (K̃_Z + εI)⁻¹ k̃ = ε (K̃_Z + εI)⁻¹ k̃,

the residual of the conditional mean embedding of notebook 06 (Grünewälder et al. 2012,
Eq. 1, with nλ = ε and the centred Gram K̃_Z as its kernel). The statistic is

    T_CI = (1/n) tr(K̃_{Ẍ|Z} K̃_{Y|Z}),   K̃_{Ẍ|Z} = R_Z K̃_Ẍ R_Z,  K̃_{Y|Z} = R_Z K̃_Y R_Z

(Zhang et al. Eq. 12). Its H0 limit is (1/n) Σ_k λ_k z_k², λ the eigenvalues of the
n × n matrix W = K̃_{Ẍ|Z} ∘ K̃_{Y|Z} (Hadamard product: the Gram of the products of the
residual eigenfunctions, Prop. 5), hence

- the **Gamma** null (Zhang et al. Sec. 4): mean tr(W)/n, variance 2 tr(W²)/n², read off
  the diagonals and the squared entries of W, with no eigendecomposition;
- the **spectral** null: weighted χ² draws with the eigenvalues of W/n.

One Cholesky factorisation of K̃_Z + εI serves both residualisations.

The authors' settings (their Matlab code, which causal-learn's ``KCI_CInd`` follows) are
the defaults here: every column z-scored (``ddof=1``), Ẍ = (X, Z/2), Gaussian kernels of
width σ = w(n)·√d_Z with w(n) = 1.2 (n < 200), 0.7 (n < 1200), 0.4 otherwise, on Ẍ, Y and
Z alike, and ε = 10⁻³.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ..independence.hsic import pivoted_cholesky
from ..kernels import GaussianKernel

#: The authors' regularisation ε of the residualisation (their Matlab code; causal-learn).
DEFAULT_EPSILON = 1e-3


@dataclass(frozen=True)
class KernelTriple:
    """The kernels of a conditional test: on Ẍ (or X), on Y (or Ÿ) and on Z.

    Parameters
    ----------
    x, y, z : Kernel

    (Implements no paper equation: the ``kernel`` of a conditional ``TestResult``.)
    """

    x: object
    y: object
    z: object

    @property
    def shift_invariant(self) -> bool:
        return all(getattr(k, "shift_invariant", False) for k in (self.x, self.y, self.z))

    @property
    def points_are_indices(self) -> bool:
        return any(getattr(k, "points_are_indices", False) for k in (self.x, self.y, self.z))


def empirical_width(n: int, d_z: int) -> float:
    """The authors' Gaussian width for KCI on z-scored data: w(n)·√d_Z, w(n) = 1.2 for
    n < 200, 0.7 for n < 1200, 0.4 beyond (Zhang et al.'s code, ``CInd_test_new_withGP.m``
    lines 37–52; causal-learn ``set_width_empirical_kci``)."""
    w = 1.2 if n < 200 else 0.7 if n < 1200 else 0.4
    return w * float(np.sqrt(d_z))


def default_kci_kernels(n: int, d_z: int) -> KernelTriple:
    """The Gaussian kernels of the authors' rule on Ẍ, Y and Z (``empirical_width``)."""
    k = GaussianKernel(empirical_width(n, d_z))
    return KernelTriple(k, k, k)


def augmented(X: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Ẍ = (X, Z/2), the authors' augmented input (Zhang et al. Sec. 3: Ẍ = (X, Z); their
    code halves Z's weight)."""
    return np.hstack([X, 0.5 * Z])


def centred(K: np.ndarray) -> np.ndarray:
    """K̃ = HKH, H = I − 11ᵀ/n, without forming H (a new array)."""
    row = K.mean(axis=1)
    return K - row[:, None] - row[None, :] + row.mean()


#: Pivoted-Cholesky tolerance of the factors: tr(K − GGᵀ) ≤ FACTOR_RTOL · tr K. R_Z
#: amplifies an error of K̃_Z by up to 1/ε (10³ at the default), so it is tighter than
#: HSIC's 1e-12.
FACTOR_RTOL = 1e-14


class Residualiser:
    """R_Z = ε (K̃_Z + εI)⁻¹, the residual operator of the kernel ridge regression (the
    CME) on Z, from one Cholesky factorisation: of the r × r matrix εI + GᵀG when K̃_Z = GGᵀ
    has a factor of rank r (Woodbury: R_Z = I − G(εI + GᵀG)⁻¹Gᵀ), else of K̃_Z + εI.

    (Zhang et al. 2011, Eq. 11: K̃_{Ẍ|Z} = R_Z K̃_Ẍ R_Z.)
    """

    def __init__(self, gram_z: CentredFactor, epsilon: float):
        self.epsilon = float(epsilon)
        self._G = gram_z.factor
        if self._G is not None:
            M = self._G.T @ self._G
        else:
            M = gram_z.matrix.copy()
        M.flat[:: M.shape[0] + 1] += self.epsilon
        self._cho = linalg.cho_factor(M, lower=True, overwrite_a=True, check_finite=False)

    def apply(self, A: np.ndarray) -> np.ndarray:
        """R_Z A = A − K̃_Z (K̃_Z + εI)⁻¹ A: the residuals of A's columns regressed on Z."""
        if self._G is None:
            return self.epsilon * linalg.cho_solve(self._cho, A, check_finite=False)
        return A - self._G @ linalg.cho_solve(self._cho, self._G.T @ A, check_finite=False)

    def residual_gram(self, gram: CentredFactor) -> CentredFactor:
        """R_Z K̃ R_Z as a factor R_Z F (K̃ = FFᵀ) or a symmetric matrix."""
        if gram.factor is not None:
            return CentredFactor(self.apply(gram.factor), None)
        out = self.apply(self.apply(gram.matrix).T)  # R_Z (R_Z K̃)ᵀ = R_Z K̃ R_Z
        return CentredFactor(None, 0.5 * (out + out.T))


@dataclass(frozen=True)
class CentredFactor:
    """A centred PSD n × n matrix, held as a factor F (matrix = FFᵀ) or as the matrix.
    """

    factor: np.ndarray | None
    matrix: np.ndarray | None = None

    @property
    def n(self) -> int:
        return (self.factor if self.factor is not None else self.matrix).shape[0]

    def full(self) -> np.ndarray:
        return self.factor @ self.factor.T if self.factor is not None else self.matrix

    def diagonal(self) -> np.ndarray:
        if self.factor is not None:
            return np.einsum("ij,ij->i", self.factor, self.factor)
        return np.diagonal(self.matrix).copy()

    def truncated(self, threshold: float) -> CentredFactor:
        """The matrix without its eigen-components below ``threshold`` × the largest
        eigenvalue (the authors' code drops them before the null, ``thresh = 1e-5``):
        from the r × r matrix FᵀF for a factor, a full eigendecomposition otherwise."""
        if self.factor is not None:
            w, V = linalg.eigh(self.factor.T @ self.factor)
            return CentredFactor(self.factor @ V[:, w > threshold * w.max()], None)
        w, V = linalg.eigh(self.matrix)
        keep = w > threshold * w.max()
        return CentredFactor(V[:, keep] * np.sqrt(w[keep]), None)


def centred_factor(kernel, V: np.ndarray, max_rank: int) -> CentredFactor:
    """HKH of ``kernel`` on V: the centred pivoted-Cholesky factor when its rank (at
    ``FACTOR_RTOL``) is at most ``max_rank``, else the matrix."""
    G = pivoted_cholesky(kernel, V, max_rank, FACTOR_RTOL) if max_rank > 0 else None
    if G is not None and G.shape[1] > 0:
        return CentredFactor(G - G.mean(axis=0), None)
    return CentredFactor(None, centred(kernel.gram(V, V)))


#: Factors are tried from this n on (below it the n³ solves take milliseconds) ...
FACTOR_MIN_N = 400
#: ... up to rank n / FACTOR_SHARE: a factor of rank r costs O(n r²) to find and O(n² r)
#: to use, against 8n³ for the dense residualisation; a failed attempt is wasted.
FACTOR_SHARE = 4

#: Rows of the tiles of the variance pass of factored residual Grams.
TILE = 1024


@dataclass(frozen=True)
class ResidualGrams:
    """K̃_{Ẍ|Z} and K̃_{Y|Z} (factors or matrices), and the statistic and the null
    they give.

    (Zhang et al. 2011, Eq. 12, Prop. 5 and Sec. 4.)
    """

    x: CentredFactor
    y: CentredFactor

    @property
    def n(self) -> int:
        return self.x.n

    @property
    def factored(self) -> bool:
        return self.x.factor is not None and self.y.factor is not None

    def statistic(self) -> float:
        """T_CI = (1/n) tr(K̃_{Ẍ|Z} K̃_{Y|Z}) (= ||A_XᵀA_Y||²_F / n for factors A)."""
        if self.factored:
            return float(np.sum((self.x.factor.T @ self.y.factor) ** 2)) / self.n
        return float(np.einsum("ij,ij->", self.x.full(), self.y.full())) / self.n

    def _hadamard_square_sum(self) -> float:
        """tr(W²) = Σ_ij W_ij², W = K̃_{Ẍ|Z} ∘ K̃_{Y|Z}, by row tiles for factors."""
        if not self.factored:
            w = self.x.full() * self.y.full()
            return float(np.einsum("ij,ij->", w, w))
        A, B = self.x.factor, self.y.factor
        total = 0.0
        for s in range(0, self.n, TILE):
            w = (A[s : s + TILE] @ A.T) * (B[s : s + TILE] @ B.T)
            total += float(np.einsum("ij,ij->", w, w))
        return total

    def gamma_moments(self) -> dict:
        """The Gamma law with the mean tr(W)/n and the variance 2 tr(W²)/n² of T_CI's H0
        limit (1/n) Σ λ_k z_k², λ the eigenvalues of W (tr W = Σ_t K̃_{Ẍ|Z,tt}
        K̃_{Y|Z,tt}); no eigendecomposition."""
        n = self.n
        mean = float(np.dot(self.x.diagonal(), self.y.diagonal())) / n
        variance = 2.0 * self._hadamard_square_sum() / n**2
        return {"shape": mean**2 / variance, "scale": variance / mean, "mean": mean,
                "variance": variance}

    def spectral_weights(self) -> np.ndarray:
        """The eigenvalues of W/n, largest first and ≥ 0: the weights of T_CI's H0 limit
        (Zhang et al. Prop. 5); from the (r_X r_Y)² matrix UᵀU of the row-wise products
        U = A_X ⊙ A_Y when r_X r_Y ≤ n (W = UUᵀ), else from W."""
        if self.factored and self.x.factor.shape[1] * self.y.factor.shape[1] <= self.n:
            A, B = self.x.factor, self.y.factor
            U = (A[:, :, None] * B[:, None, :]).reshape(self.n, -1)
            lam = linalg.eigvalsh(U.T @ U, check_finite=False)
        else:
            lam = linalg.eigvalsh(self.x.full() * self.y.full(), check_finite=False)
        return np.clip(lam[::-1], 0.0, None) / self.n

    def truncated(self, threshold: float | None) -> ResidualGrams:
        """Both without their eigen-components below ``threshold`` × their largest
        (``CentredFactor.truncated``); unchanged for None."""
        if not threshold:
            return self
        return ResidualGrams(self.x.truncated(threshold), self.y.truncated(threshold))


def residual_grams(Xa: np.ndarray, Y: np.ndarray, Z: np.ndarray, kernels: KernelTriple,
                   epsilon_x: float, epsilon_y: float | None = None) -> ResidualGrams:
    """K̃_{Ẍ|Z}, K̃_{Y|Z} of the (already augmented) Ẍ = ``Xa``, Y and Z. From n =
    ``FACTOR_MIN_N`` on, each centred Gram is a factor when its rank is at most
    n / ``FACTOR_SHARE``, else a matrix; one Cholesky factorisation
    serves both residualisations when ε_Y = ε_X (the default), two otherwise. A factored
    Gram costs its residualisation O(n² r) instead of the 4n³ of a matrix's two solves."""
    n = Xa.shape[0]
    cap = n // FACTOR_SHARE if n >= FACTOR_MIN_N else 0
    gz = centred_factor(kernels.z, Z, cap)
    rx = Residualiser(gz, epsilon_x)
    ry = rx if epsilon_y is None or epsilon_y == epsilon_x else Residualiser(gz, epsilon_y)
    gx, gy = centred_factor(kernels.x, Xa, cap), centred_factor(kernels.y, Y, cap)
    return ResidualGrams(rx.residual_gram(gx), ry.residual_gram(gy))
