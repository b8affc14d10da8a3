"""Gram spectra, the effective dimension N(λ), and landmark-count guidance.

References are to Chatalic et al. (2022), *Nyström Kernel Mean Embeddings*.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, special

from .._validation import check_in_interval, check_positive, check_positive_int, check_samples
from ..embeddings.kme import draw_landmarks, psd_inverse_factor
from ..kernels import check_kernel, gram_pass


def gram_spectrum(X, kernel, *, max_exact: int = 3000, n_landmarks: int = 1000,
                  rng=None) -> np.ndarray:
    """Eigenvalues of K/n in decreasing order (the empirical covariance spectrum).

    Exact for n <= ``max_exact``; beyond, the Nyström approximation K̃ = K_nm K_m⁻ K_mn
    with m = ``n_landmarks`` uniform landmarks, whose nonzero eigenvalues are those of
    the r × r matrix R K_mn K_nm Rᵀ (RᵀR = K_m⁻ from ``psd_inverse_factor``; streamed
    over n).

    Chatalic et al. 2022, Sec. 4: the effective dimension N(λ) is computed from them.

    Parameters
    ----------
    X : array (n, d)
    kernel : Kernel
    max_exact : int
        Largest n computed exactly.
    n_landmarks : int
        m of the Nyström approximation beyond ``max_exact``.
    rng : Generator, int or None

    Returns
    -------
    array
        The eigenvalues, largest first.
    """
    X = check_samples(X, "X")
    kernel = check_kernel(kernel)
    n = X.shape[0]
    if n <= max_exact:
        gram = kernel.gram(X, X)
        gram /= n
        lam = linalg.eigvalsh(gram, overwrite_a=True, check_finite=False)[::-1]
        return np.maximum(lam, 0.0)
    L = X[draw_landmarks(n, n_landmarks, None, False, rng)]
    R = psd_inverse_factor(kernel.gram(L, L))  # K̃ = K_nm RᵀR K_mn
    C = sum(gram_pass(kernel, X, L, lambda sl, block, _: _gram_of_columns(block)))
    lam = linalg.eigvalsh(R @ C @ R.T / n)[::-1]
    return np.maximum(lam, 0.0)


def _gram_of_columns(block: np.ndarray) -> np.ndarray:
    """BᵀB in float64 (no copy when the tile is float64 already)."""
    block = block.astype(np.float64, copy=False)
    return block.T @ block


def effective_dimension(eigenvalues, lam) -> np.ndarray | float:
    """N(λ) = Σ_i σ_i / (σ_i + λ), vectorised over λ (Eq. (6)).

    Decreasing in λ, and bounded by min(rank, Σσ_i / λ).

    Parameters
    ----------
    eigenvalues : array (n,)
        σ_i of K/n (``gram_spectrum``).
    lam : float or array
        λ > 0.

    Returns
    -------
    float or array
        N(λ), of the shape of ``lam``.
    """
    sigma = np.asarray(eigenvalues, dtype=float)
    if sigma.ndim != 1 or np.any(sigma < 0) or not np.all(np.isfinite(sigma)):
        raise ValueError("eigenvalues must be a 1-D array of finite non-negative numbers")
    lam_arr = np.asarray(lam, dtype=float)
    if np.any(~np.isfinite(lam_arr)) or np.any(lam_arr <= 0):
        raise ValueError(f"lam must be > 0, got {lam}")
    out = (sigma[None, :] / (sigma[None, :] + lam_arr.reshape(-1, 1))).sum(axis=1)
    return out.reshape(lam_arr.shape) if lam_arr.ndim else float(out[0])


def lambda_of_m(m, *, delta: float = 0.05, kernel_bound: float = 1.0):
    """λ(m) = 12 K² log(m/δ) / m, the regularisation of Thm 4.1."""
    m = np.asarray(m, dtype=float)
    delta = check_in_interval(delta, "delta", 0.0, 1.0)
    if np.any(m < 1):
        raise ValueError("m must be >= 1")
    return 12.0 * kernel_bound**2 * np.log(m / delta) / m


def sufficient_landmarks(*, delta: float = 0.05, kernel_bound: float = 1.0,
                         cov_norm: float = 1.0) -> int:
    """The landmark count after Thm 4.1: m >= -c δ W₋₁(-1/c), c = max(67, 12K²/||C||)/δ.

    It is the smallest m with m >= max(67, 12K²/||C||) log(m/δ), written with the
    lower branch of Lambert's W function (App. C.2).
    """
    delta = check_in_interval(delta, "delta", 0.0, 1.0)
    cov_norm = check_positive(cov_norm, "cov_norm")
    a = max(67.0, 12.0 * kernel_bound**2 / cov_norm)
    c = a / delta
    return int(np.ceil(-delta * c * special.lambertw(-1.0 / c, k=-1).real))


def landmarks_exponential_decay(n, *, delta: float = 0.05, c: float = 1.0,
                                kernel_bound: float = 1.0):
    """Cor. 4.1, N(λ) <= log(1 + c/λ)/β: m = √n log(√n · max(1/δ, c/(6K²)))."""
    r = np.sqrt(np.asarray(n, dtype=float))
    return r * np.log(r * max(1.0 / delta, c / (6.0 * kernel_bound**2)))


def landmarks_polynomial_decay(n, gamma: float, *, delta: float = 0.05):
    """Cor. 4.1, N(λ) <= c_γ λ^{-γ} with γ in (0, 1]: m = n^{1/(2-γ)} log(n/δ)."""
    gamma = check_in_interval(gamma, "gamma", 0.0, 1.0 + 1e-12)
    n = np.asarray(n, dtype=float)
    return n ** (1.0 / (2.0 - gamma)) * np.log(n / delta)


@dataclass(frozen=True)
class DecayFit:
    """Which decay the spectrum follows: σ_i ≈ A e^{-r i} or σ_i ≈ A i^{-1/γ}."""

    kind: str  # "exponential" or "polynomial"
    rate: float  # r of the exponential fit
    gamma: float  # γ of the polynomial fit (N(λ) ~ λ^{-γ})
    r2_exponential: float
    r2_polynomial: float
    n_used: int
    intercept_exponential: float = 0.0  # log σ_i ≈ intercept - rate·i
    intercept_polynomial: float = 0.0  # log σ_i ≈ intercept + slope·log i
    slope_polynomial: float = 0.0

    def predict(self, i) -> np.ndarray:
        """Fitted σ_i of the chosen model at indices i (1-based)."""
        i = np.asarray(i, dtype=float)
        if self.kind == "exponential":
            return np.exp(self.intercept_exponential - self.rate * i)
        return np.exp(self.intercept_polynomial + self.slope_polynomial * np.log(i))


def fit_decay(eigenvalues, *, floor: float = 1e-12, max_terms: int = 200) -> DecayFit:
    """Least-squares fits of log σ_i against i (exponential) and log i (polynomial).

    Uses the leading eigenvalues above ``floor`` × σ_1 (at most ``max_terms``) and
    reports the model with the larger R².

    The two decay regimes of Chatalic et al. 2022, Cor. 4.1.

    Parameters
    ----------
    eigenvalues : array
        Decreasing eigenvalues.
    floor : float
        Relative floor below which eigenvalues are ignored.
    max_terms : int

    Returns
    -------
    DecayFit
        Both fits (rate, R²) and the better model.
    """
    sigma = np.sort(np.asarray(eigenvalues, dtype=float))[::-1]
    check_positive_int(max_terms, "max_terms", minimum=3)
    sigma = sigma[sigma > floor * sigma[0]][:max_terms]
    if sigma.size < 3:
        raise ValueError("fit_decay needs at least 3 eigenvalues above the floor")
    i = np.arange(1, sigma.size + 1, dtype=float)
    y = np.log(sigma)

    def fit(x):
        slope, icpt = np.polyfit(x, y, 1)
        resid = y - (slope * x + icpt)
        return slope, icpt, 1.0 - resid.var() / y.var()

    s_exp, c_exp, r2_exp = fit(i)
    s_pol, c_pol, r2_pol = fit(np.log(i))
    gamma = float(np.clip(-1.0 / s_pol, 0.0, 1.0)) if s_pol < 0 else 1.0
    kind = "exponential" if r2_exp >= r2_pol else "polynomial"
    return DecayFit(kind, float(-s_exp), gamma, float(r2_exp), float(r2_pol), int(sigma.size),
                    float(c_exp), float(c_pol), float(s_pol))
